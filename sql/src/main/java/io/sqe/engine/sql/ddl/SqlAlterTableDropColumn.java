package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name DROP COLUMN [IF EXISTS] col}. */
public final class SqlAlterTableDropColumn extends SqlAlterTable {
  private final boolean columnIfExists;
  private final SqlIdentifier column;

  public SqlAlterTableDropColumn(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean columnIfExists, SqlIdentifier column) {
    super(pos, ifExists, name);
    this.columnIfExists = columnIfExists;
    this.column = requireNonNull(column, "column is null");
  }

  public boolean columnIfExists() {
    return columnIfExists;
  }

  public SqlIdentifier column() {
    return column;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), column);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("DROP COLUMN");
    if (columnIfExists) {
      writer.keyword("IF EXISTS");
    }
    column.unparse(writer, 0, 0);
  }
}
