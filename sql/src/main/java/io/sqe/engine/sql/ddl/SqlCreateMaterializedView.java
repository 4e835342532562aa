package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

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

/** {@code CREATE [OR REPLACE] MATERIALIZED VIEW [IF NOT EXISTS] name [COMMENT 'x'] [WITH (...)] AS query}, Trino's syntax. */
public final class SqlCreateMaterializedView extends SqlCreate {
  private static final SqlOperator OPERATOR =
      new SqlSpecialOperator("CREATE MATERIALIZED VIEW", SqlKind.CREATE_MATERIALIZED_VIEW);

  private final SqlIdentifier name;
  private final SqlCharStringLiteral comment;
  private final SqlNodeList properties;
  private final SqlNode query;

  public SqlCreateMaterializedView(
      SqlParserPos pos,
      boolean replace,
      boolean ifNotExists,
      SqlIdentifier name,
      SqlCharStringLiteral comment,
      SqlNodeList properties,
      SqlNode query) {
    super(OPERATOR, pos, replace, ifNotExists);
    this.name = requireNonNull(name, "name is null");
    this.comment = comment;
    this.properties = requireNonNull(properties, "properties is null");
    this.query = requireNonNull(query, "query is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  public String comment() {
    return comment == null ? null : comment.getValueAs(String.class);
  }

  /** The WITH properties ({@link SqlProperty}s): the view's own ({@code max_staleness}) and its storage table's. */
  public SqlNodeList properties() {
    return properties;
  }

  public SqlNode query() {
    return query;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, comment, properties, query);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CREATE");
    if (getReplace()) {
      writer.keyword("OR REPLACE");
    }
    writer.keyword("MATERIALIZED VIEW");
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    if (comment != null) {
      writer.keyword("COMMENT");
      comment.unparse(writer, 0, 0);
    }
    if (!properties.isEmpty()) {
      writer.keyword("WITH");
      Unparsing.parenthesized(writer, properties);
    }
    writer.keyword("AS");
    Unparsing.query(writer, query);
  }
}
