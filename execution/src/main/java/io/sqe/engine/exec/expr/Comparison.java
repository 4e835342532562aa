package io.sqe.engine.exec.expr;

/** The six comparisons of SQL, and how each reads a three-way comparison's result. */
public enum Comparison {
  EQUAL,
  NOT_EQUAL,
  LESS,
  LESS_OR_EQUAL,
  GREATER,
  GREATER_OR_EQUAL;

  /** Whether a value that compares to the other as {@code order} (negative, zero, positive) satisfies this comparison. */
  public boolean holds(int order) {
    return switch (this) {
      case EQUAL -> order == 0;
      case NOT_EQUAL -> order != 0;
      case LESS -> order < 0;
      case LESS_OR_EQUAL -> order <= 0;
      case GREATER -> order > 0;
      case GREATER_OR_EQUAL -> order >= 0;
    };
  }

  /** The comparison with its operands swapped: {@code a < b} is {@code b > a}. */
  public Comparison flipped() {
    return switch (this) {
      case EQUAL, NOT_EQUAL -> this;
      case LESS -> GREATER;
      case LESS_OR_EQUAL -> GREATER_OR_EQUAL;
      case GREATER -> LESS;
      case GREATER_OR_EQUAL -> LESS_OR_EQUAL;
    };
  }
}
