package io.sqe.engine.sql;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Refuses statements nested deeper than the planner handles in reasonable time: every stage of
 * planning recurses once per level, and some walk the whole subtree at each level, so the time
 * grows with the square of the depth. Chains of AND, OR and {@code ||} are balanced before this
 * check (see {@link ExpressionChains}), so thousands of terms nest a dozen levels.
 */
public final class NestingDepth {
  /** The deepest nesting accepted: 999 levels of {@code x - 1 - 1 ...} planned in 4 s on a machine at load 18. */
  public static final int MAX_DEPTH = 1_000;

  private NestingDepth() {}

  /** Fails with INVALID_ARGUMENT, at the place it happens, if {@code node} nests deeper than {@link #MAX_DEPTH}. */
  public static void check(SqlNode node) {
    Deque<SqlNode> nodes = new ArrayDeque<>();
    Deque<Integer> depths = new ArrayDeque<>();
    nodes.push(node);
    depths.push(1);
    while (!nodes.isEmpty()) {
      SqlNode current = nodes.pop();
      int depth = depths.pop();
      if (depth > MAX_DEPTH) {
        SqlParserPos pos = current.getParserPosition();
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "The statement nests expressions, sub-queries or operators more than " + MAX_DEPTH + " levels deep;"
                + " write long chains of AND, OR or || (which may be of any length), IN lists or CASE instead",
            pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null,
            null);
      }
      Iterable<SqlNode> children =
          current instanceof SqlNodeList ? (SqlNodeList) current : current instanceof SqlCall ? ((SqlCall) current).getOperandList() : null;
      if (children != null) {
        for (SqlNode child : children) {
          if (child != null) {
            nodes.push(child);
            depths.push(depth + 1);
          }
        }
      }
    }
  }
}
