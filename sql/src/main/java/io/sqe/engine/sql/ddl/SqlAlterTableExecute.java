package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code ALTER TABLE name EXECUTE procedure([arg, ...]) [WHERE condition]}: Trino's table
 * maintenance statement, e.g. {@code EXECUTE optimize(file_size_threshold => '10MB')}. Arguments
 * are as in {@link SqlCallProcedure}.
 */
public final class SqlAlterTableExecute extends SqlAlterTable {
  private final SqlIdentifier procedure;
  private final SqlNodeList arguments;
  private final SqlNode where;

  public SqlAlterTableExecute(
      SqlParserPos pos, boolean ifExists, SqlIdentifier name, SqlIdentifier procedure, SqlNodeList arguments, SqlNode where) {
    super(pos, ifExists, name);
    this.procedure = requireNonNull(procedure, "procedure is null");
    this.arguments = requireNonNull(arguments, "arguments is null");
    this.where = where;
  }

  public String procedure() {
    return procedure.getSimple();
  }

  public SqlNodeList arguments() {
    return arguments;
  }

  /** The condition that limits which files the procedure works on, or null. */
  public SqlNode where() {
    return where;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name(), procedure, arguments, where);
  }

  @Override
  protected void unparseAlteration(SqlWriter writer) {
    writer.keyword("EXECUTE");
    procedure.unparse(writer, 0, 0);
    Unparsing.parenthesized(writer, arguments);
    if (where != null) {
      writer.keyword("WHERE");
      where.unparse(writer, 0, 0);
    }
  }
}
