package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE [IF EXISTS] name RENAME TO newName}. */
public final class SqlAlterTableRename extends SqlAlterTable {
  private final SqlIdentifier newName;

  public SqlAlterTableRename(SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier newName) {
    super(pos, ifExists, name);
    this.newName = requireNonNull(newName, "newName is null");
  }

  public SqlIdentifier newName() {
    return newName;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), newName);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("RENAME TO");
    newName.unparse(writer, 0, 0);
  }
}
