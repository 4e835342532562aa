package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlDrop;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code DROP MATERIALIZED VIEW [IF EXISTS] name}: the view and its storage table. */
public final class SqlDropMaterializedView extends SqlDrop {
  private static final SqlOperator OPERATOR =
      new SqlSpecialOperator("DROP MATERIALIZED VIEW", SqlKind.DROP_MATERIALIZED_VIEW);

  private final SqlIdentifier name;

  public SqlDropMaterializedView(SqlParserPos pos, boolean ifExists, SqlIdentifier name) {
    super(OPERATOR, pos, ifExists);
    this.name = requireNonNull(name, "name is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("DROP MATERIALIZED VIEW");
    if (ifExists) {
      writer.keyword("IF EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
  }
}
