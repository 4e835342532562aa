package io.sqe.engine.exec.expr;

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
}
