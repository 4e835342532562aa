package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name RENAME COLUMN col TO newName}; {@code col} may name a nested field. */
public final class SqlAlterTableRenameColumn extends SqlAlterTable {
  private final SqlIdentifier column;
  private final SqlIdentifier newName;

  public SqlAlterTableRenameColumn(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier column, SqlIdentifier newName) {
    super(pos, ifExists, name);
    this.column = requireNonNull(column, "column is null");
    this.newName = requireNonNull(newName, "newName is null");
  }

  public SqlIdentifier column() {
    return column;
  }

  /** The new name of the column's last segment. */
  public SqlIdentifier newName() {
    return newName;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), column, newName);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("RENAME COLUMN");
    column.unparse(writer, 0, 0);
    writer.keyword("TO");
    newName.unparse(writer, 0, 0);
  }
}
