package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code BEGIN [TRANSACTION | WORK]} and {@code START TRANSACTION}, {@code COMMIT [WORK]},
 * {@code ROLLBACK [WORK]}: what SQL clients send instead of Flight SQL's transaction calls.
 */
public final class SqlTransactionStatement extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("TRANSACTION", SqlKind.OTHER);

  /** What the statement does. */
  public enum Action {
    BEGIN,
    COMMIT,
    ROLLBACK
  }

  private final Action action;

  public SqlTransactionStatement(SqlParserPos pos, Action action) {
    super(pos);
    this.action = requireNonNull(action, "action is null");
  }

  public Action action() {
    return action;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return List.of();
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword(action == Action.BEGIN ? "START TRANSACTION" : action.name());
  }
}
