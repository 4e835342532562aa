package io.sqe.engine.exec.expr;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.ColumnWriter;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.schema.SchemaPlus;

/**
 * Expressions and conditions the columnar evaluator has no operator for, evaluated one row at a
 * time by the code Calcite generates for its row runtime: the function library's long tail (text,
 * date and JSON functions, regular expressions...) runs in columnar plans with the row runtime's
 * exact semantics. Each row's input columns are read as the row runtime holds them ({@link
 * RowValues}), and the result is written as its results are ({@link ColumnWriter}). The code reads
 * the execution's variables (parameters, the clock, the user, the cancellation checkpoint) through
 * the values it is bound to.
 */
public final class Rowwise {
  /** The name under which Calcite's generated code reads its input row from its data context. */
  private static final String INPUT_RECORD = "inputRecord";

  private Rowwise() {}

  /**
   * The columns an expression reads, and its code: given a data context whose {@code inputRecord}
   * is the row (an {@code Object[]} of {@code width} values, those of {@code columns} set), the
   * expression's one value.
   */
  public record Code(Function1<DataContext, Object[]> function, int width, int[] columns) {
    public Code {
      requireNonNull(function, "function is null");
      columns = columns.clone();
    }
  }

  /** Whether a column of this Arrow type can be read by the generated code. */
  public static boolean readable(org.apache.arrow.vector.types.pojo.ArrowType type) {
    return RowValues.readable(type);
  }

  /** An expression whose values {@code code} computes, into a vector of {@code result}. Unusable until bound. */
  public static ScalarExpression expression(Code code, Field result) {
    return new Expression(requireNonNull(code, "code is null"), requireNonNull(result, "result is null"), null);
  }

  /** A condition {@code code} computes (kept where true). Unusable until bound. */
  public static Predicate predicate(Code code) {
    return new Condition(requireNonNull(code, "code is null"), null);
  }

  /** Evaluates one batch's rows: the readers of its columns, and the row the code reads. */
  private static final class Rows implements DataContext {
    private final Function<String, Object> values;
    private final Object[] row;
    private final int[] columns;
    private final RowValues.Reader[] readers;

    Rows(Code code, Function<String, Object> values, VectorSchemaRoot batch) {
      this.values = values;
      this.row = new Object[code.width()];
      this.columns = code.columns();
      this.readers = new RowValues.Reader[columns.length];
      for (int i = 0; i < columns.length; i++) {
        readers[i] = RowValues.reader(batch.getVector(columns[i]));
      }
    }

    Object evaluate(Code code, int position) {
      for (int i = 0; i < columns.length; i++) {
        row[columns[i]] = readers[i].get(position);
      }
      return code.function().apply(this)[0];
    }

    @Override
    public Object get(String name) {
      return INPUT_RECORD.equals(name) ? row : values.apply(name);
    }

    @Override
    public SchemaPlus getRootSchema() {
      return null;
    }

    @Override
    public JavaTypeFactory getTypeFactory() {
      return null;
    }

    @Override
    public QueryProvider getQueryProvider() {
      return null;
    }
  }

  private record Expression(Code code, Field result, Function<String, Object> values) implements ScalarExpression {
    @Override
    public ScalarExpression bind(Function<String, Object> executionValues) {
      return new Expression(code, result, requireNonNull(executionValues, "executionValues is null"));
    }

    @Override
    public Evaluated evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
      if (values == null) {
        throw new IllegalStateException("A row-wise expression runs only bound to an execution");
      }
      int count = batch.getRowCount();
      Rows rows = new Rows(code, values, batch);
      FieldVector vector = result.createVector(allocator);
      try {
        vector.setInitialCapacity(count);
        vector.allocateNew();
        ColumnWriter writer = ColumnWriter.create(vector);
        for (int r = 0; r < count; r++) {
          writer.write(r, rows.evaluate(code, r));
        }
        vector.setValueCount(count);
        return new Evaluated(vector, true);
      } catch (RuntimeException | Error e) {
        vector.close();
        throw e;
      }
    }
  }

  private record Condition(Code code, Function<String, Object> values) implements Predicate {
    @Override
    public Predicate bind(Function<String, Object> executionValues) {
      return new Condition(code, requireNonNull(executionValues, "executionValues is null"));
    }

    @Override
    public int filter(VectorSchemaRoot batch, int[] selection, int count) {
      if (values == null) {
        throw new IllegalStateException("A row-wise condition runs only bound to an execution");
      }
      Rows rows = new Rows(code, values, batch);
      int kept = 0;
      for (int i = 0; i < count; i++) {
        if (Boolean.TRUE.equals(rows.evaluate(code, selection[i]))) {
          selection[kept++] = selection[i];
        }
      }
      return kept;
    }
  }
}
