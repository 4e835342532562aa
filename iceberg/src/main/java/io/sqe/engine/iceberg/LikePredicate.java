package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.SqeException;
import io.sqe.engine.exec.Checkpoint;
import io.sqe.engine.sql.functions.LikePattern;
import org.apache.iceberg.types.Types;

/**
 * {@code column [NOT] LIKE pattern [ESCAPE e]} on a STRING column, which a scan evaluates exactly:
 * it drops every row for which the predicate is not true (NULL included, for LIKE and NOT LIKE
 * alike), so the Filter it came from no longer needs to (see {@link FilterIntoScanRule}).
 */
record LikePredicate(Types.NestedField column, String pattern, Character escape, boolean negated, LikePattern compiled) {
  LikePredicate {
    requireNonNull(column, "column is null");
    requireNonNull(pattern, "pattern is null");
    requireNonNull(compiled, "compiled is null");
  }

  /** The predicate, or null when the pattern is invalid for the escape character (left to the Filter, which reports it). */
  static LikePredicate of(Types.NestedField column, String pattern, Character escape, boolean negated) {
    LikePattern compiled;
    try {
      compiled = LikePattern.compile(pattern, escape == null ? null : escape.toString(), false);
    } catch (SqeException e) {
      return null;
    }
    return new LikePredicate(column, pattern, escape, negated, compiled);
  }

  /** Whether a UTF-8 value is kept; a long match calls {@code checkpoint} now and then. */
  boolean keeps(byte[] value, int length, Checkpoint checkpoint) {
    return compiled.matches(value, length, checkpoint) != negated;
  }

  /** Whether a row whose column holds {@code value} (read without vectors) is kept. */
  boolean keeps(Object value, Checkpoint checkpoint) {
    if (value == null) {
      return false;
    }
    return compiled.matches(value.toString(), checkpoint) != negated;
  }

  @Override
  public String toString() {
    String quoted = "'" + pattern.replace("'", "''") + "'";
    return column.name()
        + (negated ? " NOT LIKE " : " LIKE ")
        + quoted
        + (escape == null ? "" : " ESCAPE '" + (escape == '\'' ? "''" : String.valueOf(escape)) + "'");
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof LikePredicate that
        && column.fieldId() == that.column.fieldId()
        && pattern.equals(that.pattern)
        && java.util.Objects.equals(escape, that.escape)
        && negated == that.negated;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(column.fieldId(), pattern, escape, negated);
  }
}
