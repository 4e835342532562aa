package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Evaluated;
import io.sqe.engine.exec.expr.ScalarExpression;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Computes a batch of expressions over each of its input's batches: each output column is one
 * expression's vector, a column the input had shared rather than copied.
 */
public final class ProjectBatches implements BatchOperator {
  private final BatchOperator input;
  private final List<ScalarExpression> expressions;
  private final Schema schema;
  private final BufferAllocator allocator;

  /** @param context the execution whose variables (parameters, clock, checkpoint) the expressions read */
  public ProjectBatches(BatchOperator input, List<ScalarExpression> expressions, Schema schema, QueryContext context, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    requireNonNull(context, "context is null");
    this.expressions = expressions.stream().map(expression -> expression.bind(context::get)).toList();
    this.schema = requireNonNull(schema, "schema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (schema.getFields().size() != this.expressions.size()) {
      throw new IllegalArgumentException("The schema has " + schema.getFields().size() + " fields for " + this.expressions.size() + " expressions");
    }
  }

  @Override
  public VectorSchemaRoot next() {
    try (VectorSchemaRoot batch = input.next()) {
      if (batch == null) {
        return null;
      }
      int rows = batch.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(expressions.size());
      try {
        for (ScalarExpression expression : expressions) {
          Evaluated value = expression.evaluate(batch, allocator);
          vectors.add(value.take(allocator, rows));
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema.getFields(), vectors, rows);
    }
  }

  @Override
  public void close() {
    input.close();
  }
}
