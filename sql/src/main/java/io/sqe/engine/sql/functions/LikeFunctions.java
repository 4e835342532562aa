package io.sqe.engine.sql.functions;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.engine.exec.Checkpoint;
import org.apache.calcite.DataContext;
import org.apache.calcite.sql.SqlOperator;

/**
 * LIKE and ILIKE as generated code runs them, on {@link LikePattern} (in place of Calcite's, which
 * backtracks): for rows, and for the constant expressions the planner folds. Compiled patterns are
 * kept, as most come from literals.
 */
public final class LikeFunctions {
  /** {@code LIKE(s, pattern [, escape])}. */
  public static final SqlOperator LIKE = ExecutionFunction.operator("SQE_LIKE", LikeFunctions.class, "like");
  /** {@code NOT LIKE}. */
  public static final SqlOperator NOT_LIKE = ExecutionFunction.operator("SQE_NOT_LIKE", LikeFunctions.class, "notLike");
  /** {@code ILIKE(s, pattern [, escape])}. */
  public static final SqlOperator ILIKE = ExecutionFunction.operator("SQE_ILIKE", LikeFunctions.class, "ilike");
  /** {@code NOT ILIKE}. */
  public static final SqlOperator NOT_ILIKE = ExecutionFunction.operator("SQE_NOT_ILIKE", LikeFunctions.class, "notIlike");

  private record Key(String pattern, String escape, boolean ignoreCase) {}

  private static final Cache<Key, LikePattern> PATTERNS = Caffeine.newBuilder().maximumSize(1_000).build();

  private LikeFunctions() {}

  private static LikePattern pattern(String pattern, String escape, boolean ignoreCase) {
    return PATTERNS.get(new Key(pattern, escape, ignoreCase), k -> LikePattern.compile(k.pattern(), k.escape(), k.ignoreCase()));
  }

  // ---- called from generated code

  public static boolean like(DataContext root, String s, String pattern) {
    return pattern(pattern, null, false).matches(s, Checkpoint.of(root));
  }

  public static boolean like(DataContext root, String s, String pattern, String escape) {
    return pattern(pattern, escape, false).matches(s, Checkpoint.of(root));
  }

  public static boolean notLike(DataContext root, String s, String pattern) {
    return !like(root, s, pattern);
  }

  public static boolean notLike(DataContext root, String s, String pattern, String escape) {
    return !like(root, s, pattern, escape);
  }

  public static boolean ilike(DataContext root, String s, String pattern) {
    return pattern(pattern, null, true).matches(s, Checkpoint.of(root));
  }

  public static boolean ilike(DataContext root, String s, String pattern, String escape) {
    return pattern(pattern, escape, true).matches(s, Checkpoint.of(root));
  }

  public static boolean notIlike(DataContext root, String s, String pattern) {
    return !ilike(root, s, pattern);
  }

  public static boolean notIlike(DataContext root, String s, String pattern, String escape) {
    return !ilike(root, s, pattern, escape);
  }
}
