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

/** {@code CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT 'x'] AS query}. */
public final class SqlCreateView extends SqlCreate {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE VIEW", SqlKind.CREATE_VIEW);

  private final SqlIdentifier name;
  private final SqlNodeList columns;
  private final SqlCharStringLiteral comment;
  private final SqlNode query;

  public SqlCreateView(
      SqlParserPos pos,
      boolean replace,
      boolean ifNotExists,
      SqlIdentifier name,
      SqlNodeList columns,
      SqlCharStringLiteral comment,
      SqlNode query) {
    super(OPERATOR, pos, replace, ifNotExists);
    this.name = requireNonNull(name, "name is null");
    this.columns = requireNonNull(columns, "columns is null");
    this.comment = comment;
    this.query = requireNonNull(query, "query is null");
  }

  public SqlIdentifier name() {
    return name;
  }

  /** Column names (simple {@code SqlIdentifier}s) that rename the query's columns; empty to keep them. */
  public SqlNodeList columns() {
    return columns;
  }

  public String comment() {
    return comment == null ? null : comment.getValueAs(String.class);
  }

  public SqlNode query() {
    return query;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, columns, comment, query);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CREATE");
    if (getReplace()) {
      writer.keyword("OR REPLACE");
    }
    writer.keyword("VIEW");
    if (ifNotExists) {
      writer.keyword("IF NOT EXISTS");
    }
    name.unparse(writer, leftPrec, rightPrec);
    if (!columns.isEmpty()) {
      Unparsing.parenthesized(writer, columns);
    }
    if (comment != null) {
      writer.keyword("COMMENT");
      comment.unparse(writer, 0, 0);
    }
    writer.keyword("AS");
    Unparsing.query(writer, query);
  }
}
