package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code BEGIN [TRANSACTION | WORK]} and {@code START TRANSACTION}, each with optional modes
 * ({@code ISOLATION LEVEL ...}, {@code READ WRITE | READ ONLY}, as Trino's JDBC driver sends
 * them), {@code COMMIT [WORK]}, {@code ROLLBACK [WORK]}: what SQL clients send instead of Flight
 * SQL's transaction calls.
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
  private final List<String> modes;

  public SqlTransactionStatement(SqlParserPos pos, Action action) {
    this(pos, action, List.of());
  }

  /** @param modes the transaction modes as written, e.g. {@code READ COMMITTED}, {@code READ WRITE} */
  public SqlTransactionStatement(SqlParserPos pos, Action action, List<String> modes) {
    super(pos);
    this.action = requireNonNull(action, "action is null");
    this.modes = List.copyOf(modes);
  }

  public Action action() {
    return action;
  }

  /** The modes a BEGIN asks for: isolation levels ({@code READ COMMITTED}) and {@code READ WRITE} or {@code READ ONLY}. */
  public List<String> modes() {
    return modes;
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
    List<String> written = new ArrayList<>();
    for (String mode : modes) {
      written.add(mode.equals("READ WRITE") || mode.equals("READ ONLY") ? mode : "ISOLATION LEVEL " + mode);
    }
    if (!written.isEmpty()) {
      writer.keyword(String.join(", ", written));
    }
  }
}
