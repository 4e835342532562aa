package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code ALTER TABLE name ALTER COLUMN col SET NOT NULL} or {@code ... DROP NOT NULL}. */
public final class SqlAlterTableAlterColumnNullability extends SqlAlterTable {
  private final SqlIdentifier column;
  private final boolean notNull;

  public SqlAlterTableAlterColumnNullability(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier column, boolean notNull) {
    super(pos, ifExists, name);
    this.column = requireNonNull(column, "column is null");
    this.notNull = notNull;
  }

  public SqlIdentifier column() {
    return column;
  }

  /** True for SET NOT NULL, false for DROP NOT NULL. */
  public boolean notNull() {
    return notNull;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), column);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("ALTER COLUMN");
    column.unparse(writer, 0, 0);
    writer.keyword(notNull ? "SET NOT NULL" : "DROP NOT NULL");
  }
}
