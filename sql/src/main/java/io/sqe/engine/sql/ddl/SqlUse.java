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
import org.apache.calcite.util.ImmutableNullableList;

/** {@code USE catalog.schema} or {@code USE schema}: sets the session's default catalog and schema. */
public final class SqlUse extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("USE", SqlKind.OTHER);

  private final SqlIdentifier name;

  public SqlUse(SqlParserPos pos, SqlIdentifier name) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    if (name.names.size() > 2) {
      throw SqlSyntaxErrors.error(name.getParserPosition(), "USE takes a schema or catalog.schema, not " + name);
    }
  }

  /** The name as written, for error positions. */
  public SqlIdentifier name() {
    return name;
  }

  /** The catalog, or null when only a schema was given. */
  public String catalog() {
    return name.names.size() == 2 ? name.names.get(0) : null;
  }

  public String schema() {
    return name.names.get(name.names.size() - 1);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("USE");
    name.unparse(writer, 0, 0);
  }
}
