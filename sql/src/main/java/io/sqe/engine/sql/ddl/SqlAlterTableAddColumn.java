package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name ADD COLUMN [IF NOT EXISTS] col type [NOT NULL] [COMMENT 'x']}. */
public final class SqlAlterTableAddColumn extends SqlAlterTable {
  private final boolean ifNotExists;
  private final SqlColumnDeclaration column;

  public SqlAlterTableAddColumn(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean ifNotExists, SqlColumnDeclaration column) {
    super(pos, ifExists, name);
    this.ifNotExists = ifNotExists;
    this.column = requireNonNull(column, "column is null");
    if (column.type() == null) {
      throw new IllegalArgumentException("A new column needs a type");
    }
  }

  public boolean ifNotExists() {
    return ifNotExists;
  }

  /** The new column; a name with several segments adds a field to a struct column. */
  public SqlColumnDeclaration column() {
    return column;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), column);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("ADD COLUMN");
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    column.unparse(writer, 0, 0);
  }
}
