package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import org.apache.calcite.sql.SqlDdl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code ALTER TABLE [IF EXISTS] name ...}: one subclass per alteration. With IF EXISTS a missing
 * table is not an error.
 */
public abstract class SqlAlterTable extends SqlDdl {
  static final SqlOperator OPERATOR = new SqlSpecialOperator("ALTER TABLE", SqlKind.ALTER_TABLE);

  private final boolean ifExists;
  private final SqlIdentifier name;

  protected SqlAlterTable(SqlParserPos pos, boolean ifExists, SqlIdentifier name) {
    super(OPERATOR, pos);
    this.ifExists = ifExists;
    this.name = requireNonNull(name, "name is null");
  }

  public boolean ifExists() {
    return ifExists;
  }

  public SqlIdentifier name() {
    return name;
  }

  @Override
  public final void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("ALTER TABLE");
    if (ifExists) {
      writer.keyword("IF EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    unparseAlteration(writer);
  }

  /** Writes what follows the table's name. */
  protected abstract void unparseAlteration(SqlWriter writer);
}
