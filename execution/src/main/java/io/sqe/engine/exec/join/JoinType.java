package io.sqe.engine.exec.join;

/** Which rows a join of a probe (left) input and a build (right) input returns. */
public enum JoinType {
  /** The pairs that match. */
  INNER,
  /** The pairs that match, and each probe row without one, its build columns null. */
  LEFT,
  /** The pairs that match, and each build row without one, its probe columns null. */
  RIGHT,
  /** LEFT and RIGHT together. */
  FULL,
  /** Each probe row that has a match, once, with the probe columns only. */
  SEMI,
  /** Each probe row that has no match, with the probe columns only. */
  ANTI;

  /** Whether each probe row is decided on by itself: returned once unmatched (or matched), never paired. */
  boolean decidesProbeRows() {
    return this == LEFT || this == FULL || this == SEMI || this == ANTI;
  }

  /** Whether the output has the build side's columns. */
  public boolean returnsBuildColumns() {
    return this != SEMI && this != ANTI;
  }

  /** Whether build rows without a match are returned after the probe side ends. */
  public boolean returnsUnmatchedBuildRows() {
    return this == RIGHT || this == FULL;
  }
}
