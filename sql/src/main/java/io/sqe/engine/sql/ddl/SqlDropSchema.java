package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlDrop;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** {@code DROP SCHEMA [IF EXISTS] name [RESTRICT | CASCADE]}; RESTRICT, the default, refuses a schema that is not empty. */
public final class SqlDropSchema extends SqlDrop {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("DROP SCHEMA", SqlKind.DROP_SCHEMA);

  private final SqlIdentifier name;
  private final boolean cascade;

  public SqlDropSchema(SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean cascade) {
    super(OPERATOR, pos, ifExists);
    this.name = requireNonNull(name, "name is null");
    this.cascade = cascade;
  }

  public SqlIdentifier name() {
    return name;
  }

  public boolean cascade() {
    return cascade;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("DROP SCHEMA");
    if (ifExists) {
      writer.keyword("IF EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    writer.keyword(cascade ? "CASCADE" : "RESTRICT");
  }
}
