package io.sqe.engine.exec.aggregate;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.vector.types.pojo.Field;

/**
 * One aggregate call of a hash aggregate: what it computes, the input column it reads (-1 for
 * COUNT(*)), the BOOLEAN column of its FILTER (-1 for none), and the Arrow fields of its input
 * and result.
 */
public record AggregateCall(Kind kind, int argument, int filter, Field input, Field output) {
  /** The aggregate functions the columnar aggregate computes. */
  public enum Kind {
    COUNT_STAR,
    COUNT,
    SUM,
    /** SUM that is 0, not NULL, over no rows (Calcite's $SUM0, which COUNT's partial results combine with). */
    SUM0,
    MIN,
    MAX,
    ANY_VALUE,
    /** A scalar sub-query's one value: a second row in a group is an error. */
    SINGLE_VALUE
  }

  public AggregateCall {
    requireNonNull(kind, "kind is null");
    requireNonNull(output, "output is null");
    if ((kind == Kind.COUNT_STAR) != (argument < 0)) {
      throw new IllegalArgumentException(kind + " with argument " + argument);
    }
    if (argument >= 0) {
      requireNonNull(input, "input is null");
    }
  }
}
