package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.sql.SqlDialect;
import java.util.List;
import org.apache.calcite.sql.SqlCharStringLiteral;
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

/** {@code CREATE USER [IF NOT EXISTS] name [WITH] PASSWORD 'password' [ROLES (role, ...)]}. */
public final class SqlCreateUser extends SqlCreate implements SqlRedactedStatement {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE USER", SqlKind.OTHER_DDL);

  private final SqlIdentifier name;
  private final SqlCharStringLiteral password;
  private final SqlNodeList roles;

  public SqlCreateUser(
      SqlParserPos pos, boolean ifNotExists, SqlIdentifier name, SqlCharStringLiteral password, SqlNodeList roles) {
    super(OPERATOR, pos, false, ifNotExists);
    this.name = requireNonNull(name, "name is null");
    this.password = requireNonNull(password, "password is null");
    this.roles = requireNonNull(roles, "roles is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  /** The password as written. */
  public String password() {
    return password.getValueAs(String.class);
  }

  /** Where the password is in the statement, for errors about it (which never quote it). */
  public SqlParserPos passwordPosition() {
    return password.getParserPosition();
  }

  /** The roles, as {@link SqlIdentifier}s; empty without a ROLES clause. */
  public SqlNodeList roles() {
    return roles;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, roles);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CREATE USER");
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    writer.keyword("PASSWORD");
    writer.literal(SqlRedactedStatement.MASKED_SECRET);
    if (!roles.isEmpty()) {
      writer.keyword("ROLES");
      Unparsing.parenthesized(writer, roles);
    }
  }

  @Override
  public String redactedText() {
    return SqlDialect.toSql(this);
  }
}
