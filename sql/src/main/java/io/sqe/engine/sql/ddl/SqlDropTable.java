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

/** {@code DROP TABLE [IF EXISTS] name [PURGE]}; PURGE also deletes the table's files. */
public final class SqlDropTable extends SqlDrop {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("DROP TABLE", SqlKind.DROP_TABLE);

  private final SqlIdentifier name;
  private final boolean purge;

  public SqlDropTable(SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean purge) {
    super(OPERATOR, pos, ifExists);
    this.name = requireNonNull(name, "name is null");
    this.purge = purge;
  }

  public SqlIdentifier name() {
    return name;
  }

  public boolean purge() {
    return purge;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("DROP TABLE");
    if (ifExists) {
      writer.keyword("IF EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    if (purge) {
      writer.keyword("PURGE");
    }
  }
}
