package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code DEALLOCATE PREPARE name}: forgets a {@link SqlPrepare prepared} statement. */
public final class SqlDeallocate extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("DEALLOCATE", SqlKind.OTHER);

  private final SqlIdentifier name;

  public SqlDeallocate(SqlParserPos pos, SqlIdentifier name) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    if (!name.isSimple()) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "A prepared statement's name is one identifier, not " + name);
    }
  }

  public String name() {
    return name.getSimple();
  }

  /** The name as written, for error positions. */
  public SqlIdentifier nameNode() {
    return name;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return List.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("DEALLOCATE PREPARE");
    name.unparse(writer, 0, 0);
  }
}
