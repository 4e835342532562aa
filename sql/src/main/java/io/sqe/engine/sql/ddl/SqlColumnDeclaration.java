package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * A column of CREATE TABLE or ALTER TABLE ADD COLUMN: {@code name type [NOT NULL] [COMMENT 'x']}.
 * In the column list of CREATE TABLE ... AS query the type may be absent ({@code (a, b) AS
 * SELECT ...} only renames the query's columns).
 */
public final class SqlColumnDeclaration extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("COLUMN_DECL", SqlKind.COLUMN_DECL);

  private final SqlIdentifier name;
  private final SqlDataTypeSpec type;
  private final boolean notNull;
  private final SqlCharStringLiteral comment;

  public SqlColumnDeclaration(
      SqlParserPos pos, SqlIdentifier name, SqlDataTypeSpec type, boolean notNull, SqlCharStringLiteral comment) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    this.type = type;
    this.notNull = notNull;
    this.comment = comment;
  }

  /** The column's name; several segments for a nested field in ALTER TABLE ADD COLUMN ({@code point.z}). */
  public SqlIdentifier name() {
    return name;
  }

  /** The declared type, or null for a bare name in the column list of CREATE TABLE ... AS query. */
  public SqlDataTypeSpec type() {
    return type;
  }

  public boolean notNull() {
    return notNull;
  }

  public String comment() {
    return comment == null ? null : comment.getValueAs(String.class);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, type, comment);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    name.unparse(writer, 0, 0);
    if (type != null) {
      type.unparse(writer, 0, 0);
    }
    if (notNull) {
      writer.keyword("NOT NULL");
    }
    if (comment != null) {
      writer.keyword("COMMENT");
      comment.unparse(writer, 0, 0);
    }
  }
}
