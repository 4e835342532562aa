package io.sqe.engine.sql.ddl;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.ImmutableNullableList;

/** One term of a table's sort order: {@code term [ASC | DESC] [NULLS FIRST | NULLS LAST]}. */
public final class SqlSortField extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("SORT FIELD", SqlKind.OTHER);

  /** Where NULLs go; DEFAULT leaves it to the table format (Iceberg: first when ascending, last when descending). */
  public enum NullOrder {
    DEFAULT,
    FIRST,
    LAST
  }

  private final SqlTransform term;
  private final boolean descending;
  private final NullOrder nullOrder;

  public SqlSortField(SqlParserPos pos, SqlTransform term, boolean descending, NullOrder nullOrder) {
    super(pos);
    this.term = requireNonNull(term, "term is null");
    this.descending = descending;
    this.nullOrder = requireNonNull(nullOrder, "nullOrder is null");
  }

  public SqlTransform term() {
    return term;
  }

  public boolean descending() {
    return descending;
  }

  public NullOrder nullOrder() {
    return nullOrder;
  }

  @Override
  public SqlOperator getOperator() {
    return OPERATOR;
  }

  @Override
  public List<SqlNode> getOperandList() {
    return ImmutableNullableList.of(term);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    term.unparse(writer, 0, 0);
    writer.keyword(descending ? "DESC" : "ASC");
    if (nullOrder != NullOrder.DEFAULT) {
      writer.keyword("NULLS " + nullOrder.name());
    }
  }
}
