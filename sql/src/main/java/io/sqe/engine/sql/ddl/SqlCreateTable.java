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

/**
 * {@code CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(columns)] [COMMENT 'x'] [PARTITIONED BY
 * (...)] [SORTED BY (...)] [WITH (k = v, ...)] [AS query]}. Without a query every column has a
 * type; with one (CTAS) the column list is optional and holds names only.
 */
public final class SqlCreateTable extends SqlCreate {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE TABLE", SqlKind.CREATE_TABLE);

  private final SqlIdentifier name;
  private final SqlNodeList columns;
  private final SqlCharStringLiteral comment;
  private final SqlNodeList partitionBy;
  private final SqlNodeList sortedBy;
  private final SqlNodeList properties;
  private final SqlNode query;

  public SqlCreateTable(
      SqlParserPos pos,
      boolean replace,
      boolean ifNotExists,
      SqlIdentifier name,
      SqlNodeList columns,
      SqlCharStringLiteral comment,
      SqlNodeList partitionBy,
      SqlNodeList sortedBy,
      SqlNodeList properties,
      SqlNode query) {
    super(OPERATOR, pos, replace, ifNotExists);
    this.name = requireNonNull(name, "name is null");
    this.columns = requireNonNull(columns, "columns is null");
    this.comment = comment;
    this.partitionBy = requireNonNull(partitionBy, "partitionBy is null");
    this.sortedBy = requireNonNull(sortedBy, "sortedBy is null");
    this.properties = requireNonNull(properties, "properties is null");
    this.query = query;
  }

  public SqlIdentifier name() {
    return name;
  }

  /** {@link SqlColumnDeclaration}s; empty for a CTAS without a column list. */
  public SqlNodeList columns() {
    return columns;
  }

  public String comment() {
    return comment == null ? null : comment.getValueAs(String.class);
  }

  /** {@link SqlTransform}s, in the order of the partition spec. */
  public SqlNodeList partitionBy() {
    return partitionBy;
  }

  /** {@link SqlSortField}s of the table's sort order. */
  public SqlNodeList sortedBy() {
    return sortedBy;
  }

  /** {@link SqlProperty}s of the WITH clause. */
  public SqlNodeList properties() {
    return properties;
  }

  /** The query of CREATE TABLE ... AS, or null. */
  public SqlNode query() {
    return query;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(name, columns, comment, partitionBy, sortedBy, properties, query);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("CREATE");
    if (getReplace()) {
      writer.keyword("OR REPLACE");
    }
    writer.keyword("TABLE");
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
    if (!partitionBy.isEmpty()) {
      writer.keyword("PARTITIONED BY");
      Unparsing.parenthesized(writer, partitionBy);
    }
    if (!sortedBy.isEmpty()) {
      writer.keyword("SORTED BY");
      Unparsing.parenthesized(writer, sortedBy);
    }
    if (!properties.isEmpty()) {
      writer.keyword("WITH");
      Unparsing.parenthesized(writer, properties);
    }
    if (query != null) {
      writer.keyword("AS");
      Unparsing.query(writer, query);
    }
  }
}
