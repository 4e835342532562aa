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

/** {@code REFRESH MATERIALIZED VIEW name}: rewrites the storage table unless no source moved. */
public final class SqlRefreshMaterializedView extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("REFRESH MATERIALIZED VIEW", SqlKind.OTHER_DDL);

  private final SqlIdentifier name;

  public SqlRefreshMaterializedView(SqlParserPos pos, SqlIdentifier name) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
  }

  public SqlIdentifier name() {
    return name;
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
    writer.keyword("REFRESH MATERIALIZED VIEW");
    name.unparse(writer, leftPrec, rightPrec);
  }
}
