package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlTruncate;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code TRUNCATE TABLE name}. */
public final class SqlTruncateTable extends SqlTruncate {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("TRUNCATE TABLE", SqlKind.TRUNCATE_TABLE);

  private final SqlIdentifier name;

  public SqlTruncateTable(SqlParserPos pos, SqlIdentifier name) {
    super(OPERATOR, pos);
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
    writer.keyword("TRUNCATE TABLE");
    name.unparse(writer, leftPrec, rightPrec);
  }
}
