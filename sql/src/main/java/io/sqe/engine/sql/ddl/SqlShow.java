package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/**
 * A {@code SHOW} statement that lists objects: {@code SHOW CATALOGS}, {@code SHOW SCHEMAS [FROM
 * catalog]}, {@code SHOW TABLES [FROM [catalog.]schema]} or {@code SHOW COLUMNS FROM table}, each
 * with an optional {@code LIKE 'pattern'}, {@code SHOW FUNCTIONS} and {@code SHOW SESSION}, also with
 * LIKE, and {@code SHOW QUERIES}. IN may be written for FROM.
 */
public final class SqlShow extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("SHOW", SqlKind.OTHER);

  /** What is listed; the scope the FROM clause names differs per kind. */
  public enum Kind {
    CATALOGS,
    SCHEMAS,
    TABLES,
    COLUMNS,
    /** The statements queued or running: the caller's, or everyone's for an admin. */
    QUERIES,
    /** The session's properties, their values and defaults. */
    SESSION,
    /** The functions statements may call. */
    FUNCTIONS
  }

  private final Kind kind;
  private final SqlIdentifier from;
  private final SqlCharStringLiteral like;

  public SqlShow(SqlParserPos pos, Kind kind, SqlIdentifier from, SqlCharStringLiteral like) {
    super(pos);
    this.kind = requireNonNull(kind, "kind is null");
    int maxSegments = switch (kind) {
      case CATALOGS -> 0;
      case SCHEMAS -> 1;
      case TABLES -> 2;
      case COLUMNS -> 3;
      case QUERIES, SESSION, FUNCTIONS -> 0;
    };
    if (kind == Kind.COLUMNS && from == null) {
      throw SqlSyntaxErrors.error(pos, "SHOW COLUMNS needs FROM table");
    }
    if (from != null && from.names.size() > maxSegments) {
      throw SqlSyntaxErrors.error(from.getParserPosition(), "Too many name segments for SHOW " + kind + ": " + from);
    }
    this.from = from;
    this.like = like;
  }

  public Kind kind() {
    return kind;
  }

  /** The catalog (SCHEMAS), [catalog.]schema (TABLES) or table (COLUMNS); null for the session's default. */
  public SqlIdentifier from() {
    return from;
  }

  /** The LIKE pattern, or null for all. */
  public String like() {
    return like == null ? null : like.getValueAs(String.class);
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(from, like);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("SHOW");
    writer.keyword(kind.name());
    if (from != null) {
      writer.keyword("FROM");
      from.unparse(writer, 0, 0);
    }
    if (like != null) {
      writer.keyword("LIKE");
      like.unparse(writer, 0, 0);
    }
  }
}
