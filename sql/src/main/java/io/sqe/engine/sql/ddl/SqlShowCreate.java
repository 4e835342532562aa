package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code SHOW CREATE TABLE name}, {@code SHOW CREATE VIEW name}, {@code SHOW CREATE MATERIALIZED
 * VIEW name} or {@code SHOW CREATE SCHEMA name}.
 */
public final class SqlShowCreate extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("SHOW CREATE", SqlKind.OTHER);

  /** The kind of object whose DDL is shown. */
  public enum ObjectKind {
    SCHEMA,
    TABLE,
    VIEW,
    MATERIALIZED_VIEW
  }

  private final ObjectKind objectKind;
  private final SqlIdentifier name;

  public SqlShowCreate(SqlParserPos pos, ObjectKind objectKind, SqlIdentifier name) {
    super(pos);
    this.objectKind = requireNonNull(objectKind, "objectKind is null");
    this.name = requireNonNull(name, "name is null");
  }

  public ObjectKind objectKind() {
    return objectKind;
  }

  public SqlIdentifier name() {
    return name;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("SHOW CREATE");
    writer.keyword(objectKind.name().replace('_', ' '));
    name.unparse(writer, 0, 0);
  }
}
