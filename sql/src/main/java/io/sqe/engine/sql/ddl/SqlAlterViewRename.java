package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlDdl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER VIEW [IF EXISTS] name RENAME TO newName}. */
public final class SqlAlterViewRename extends SqlDdl {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("ALTER VIEW", SqlKind.ALTER_VIEW);

  public final boolean ifExists;
  private final SqlIdentifier name;
  private final SqlIdentifier newName;

  public SqlAlterViewRename(SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier newName) {
    super(OPERATOR, pos);
    this.ifExists = ifExists;
    this.name = requireNonNull(name, "name is null");
    this.newName = requireNonNull(newName, "newName is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  public SqlIdentifier newName() {
    return newName;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, newName);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("ALTER VIEW");
    if (ifExists) {
      writer.keyword("IF EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    writer.keyword("RENAME TO");
    newName.unparse(writer, leftPrec, rightPrec);
  }
}
