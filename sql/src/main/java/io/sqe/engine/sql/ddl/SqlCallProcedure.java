package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code CALL name([arg, ...])}, such as {@code CALL system.rollback_to_snapshot('db.t', 123)}.
 * The name may contain the reserved word SYSTEM. An argument is an expression, or a named one,
 * {@code snapshot_id => 123}, which is Calcite's {@code ARGUMENT_ASSIGNMENT} call with the value
 * as operand 0 and the name as operand 1.
 */
public final class SqlCallProcedure extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("CALL", SqlKind.PROCEDURE_CALL);

  private final SqlIdentifier name;
  private final SqlNodeList arguments;

  public SqlCallProcedure(SqlParserPos pos, SqlIdentifier name, SqlNodeList arguments) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    this.arguments = requireNonNull(arguments, "arguments is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  public SqlNodeList arguments() {
    return arguments;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, arguments);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CALL");
    name.unparse(writer, 0, 0);
    Unparsing.parenthesized(writer, arguments);
  }
}
