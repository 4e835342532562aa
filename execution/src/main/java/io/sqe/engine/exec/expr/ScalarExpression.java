package io.sqe.engine.exec.expr;

import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A scalar expression evaluated over every row of a record batch at once, into a vector of its
 * result type: SQL's null in, null out, except where an operator says otherwise.
 */
@FunctionalInterface
public interface ScalarExpression {
  /** The expression's values for the rows of {@code batch}; new vectors come from {@code allocator}. */
  Evaluated evaluate(VectorSchemaRoot batch, BufferAllocator allocator);

  /**
   * This expression for one execution, given that execution's variables by name (parameters
   * {@code ?0}, {@code ?1}..., the clock, the checkpoint) in the engine's run-time representation.
   * An expression that reads none is itself.
   */
  default ScalarExpression bind(Function<String, Object> values) {
    return this;
  }
}
