package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name ALTER COLUMN col SET DATA TYPE type} (also written {@code ALTER COLUMN col TYPE type}). */
public final class SqlAlterTableAlterColumnType extends SqlAlterTable {
  private final SqlIdentifier column;
  private final SqlDataTypeSpec type;

  public SqlAlterTableAlterColumnType(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier column, SqlDataTypeSpec type) {
    super(pos, ifExists, name);
    this.column = requireNonNull(column, "column is null");
    this.type = requireNonNull(type, "type is null");
  }

  public SqlIdentifier column() {
    return column;
  }

  public SqlDataTypeSpec type() {
    return type;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), column, type);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("ALTER COLUMN");
    column.unparse(writer, 0, 0);
    writer.keyword("SET DATA TYPE");
    type.unparse(writer, 0, 0);
  }
}
