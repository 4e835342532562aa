package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.sql.SqlDialect;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * {@code ALTER USER name|CURRENT_USER SET PASSWORD 'password'} (also PostgreSQL's {@code [WITH]
 * PASSWORD 'password'}) and {@code ALTER USER name SET ROLES (role, ...)}.
 */
public final class SqlAlterUser extends SqlCall implements SqlRedactedStatement {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("ALTER USER", SqlKind.OTHER_DDL);

  private final SqlIdentifier name;
  private final SqlCharStringLiteral password;
  private final SqlNodeList roles;

  /**
   * @param name the user; null for CURRENT_USER
   * @param password the new password; null when the roles change
   * @param roles the new roles; null when the password changes
   */
  public SqlAlterUser(SqlParserPos pos, SqlIdentifier name, SqlCharStringLiteral password, SqlNodeList roles) {
    super(pos);
    if ((password == null) == (roles == null)) {
      throw new IllegalArgumentException("ALTER USER sets either the password or the roles");
    }
    this.name = name;
    this.password = password;
    this.roles = roles;
  }

  /** The user named; null for CURRENT_USER. */
  public SqlIdentifier name() {
    return name;
  }

  /** Whether the statement sets the password (else the roles). */
  public boolean setsPassword() {
    return password != null;
  }

  /** The new password as written. */
  public String password() {
    return requireNonNull(password, "ALTER USER ... SET ROLES has no password").getValueAs(String.class);
  }

  /** Where the password is in the statement. */
  public SqlParserPos passwordPosition() {
    return requireNonNull(password, "ALTER USER ... SET ROLES has no password").getParserPosition();
  }

  /** The new roles, as {@link SqlIdentifier}s. */
  public SqlNodeList roles() {
    return requireNonNull(roles, "ALTER USER ... SET PASSWORD has no roles");
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, roles);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("ALTER USER");
    if (name == null) {
      writer.keyword("CURRENT_USER");
    } else {
      name.unparse(writer, leftPrec, rightPrec);
    }
    writer.keyword("SET");
    if (password != null) {
      writer.keyword("PASSWORD");
      writer.literal(SqlRedactedStatement.MASKED_SECRET);
    } else {
      writer.keyword("ROLES");
      Unparsing.parenthesized(writer, roles);
    }
  }

  @Override
  public String redactedText() {
    return SqlDialect.toSql(this);
  }
}
