package io.sqe.engine.exec.expr;

import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A condition evaluated on a record batch, by SQL's rules: a row is kept only where the condition
 * is true, not where it is false or unknown (null).
 */
@FunctionalInterface
public interface Predicate {
  /**
   * Narrows {@code selection}, the positions of the first {@code count} candidate rows of {@code
   * batch} in ascending order, to those this condition keeps, in place and in the same order.
   *
   * @return how many positions are left at the start of {@code selection}
   */
  int filter(VectorSchemaRoot batch, int[] selection, int count);

  /**
   * This condition for one execution, its parameters ({@code ?}) given their values, by name
   * ({@code ?0}, {@code ?1}, ...) in the engine's run-time representation. A condition without
   * parameters is itself.
   */
  default Predicate bind(Function<String, Object> parameters) {
    return this;
  }

  /**
   * The positions of the columns this condition reads, ascending, so that a caller may fill only
   * those of the batches it passes; null when it does not say (it may read any).
   */
  default int[] columns() {
    return null;
  }
}
