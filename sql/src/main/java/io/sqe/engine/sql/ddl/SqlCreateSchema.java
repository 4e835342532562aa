package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCreate;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code CREATE SCHEMA [IF NOT EXISTS] name [WITH (k = v, ...)]}. */
public final class SqlCreateSchema extends SqlCreate {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE SCHEMA", SqlKind.CREATE_SCHEMA);

  private final SqlIdentifier name;
  private final SqlNodeList properties;

  public SqlCreateSchema(SqlParserPos pos, boolean ifNotExists, SqlIdentifier name, SqlNodeList properties) {
    super(OPERATOR, pos, false, ifNotExists);
    this.name = requireNonNull(name, "name is null");
    this.properties = requireNonNull(properties, "properties is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  /** The {@link SqlProperty}s of the WITH clause; empty without one. */
  public SqlNodeList properties() {
    return properties;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, properties);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CREATE SCHEMA");
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    if (!properties.isEmpty()) {
      writer.keyword("WITH");
      Unparsing.parenthesized(writer, properties);
    }
  }
}
