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
 * {@code [EXPLAIN] REFRESH MATERIALIZED VIEW name}: refreshes the storage table (incrementally when
 * it can, not at all when no source moved); with EXPLAIN, says which it would do and the plans it
 * would run, and changes nothing.
 */
public final class SqlRefreshMaterializedView extends SqlCall {
  private static final SqlOperator OPERATOR = new SqlSpecialOperator("REFRESH MATERIALIZED VIEW", SqlKind.OTHER_DDL);

  private final SqlIdentifier name;
  private final boolean explain;

  public SqlRefreshMaterializedView(SqlParserPos pos, SqlIdentifier name) {
    this(pos, name, false);
  }

  private SqlRefreshMaterializedView(SqlParserPos pos, SqlIdentifier name, boolean explain) {
    super(pos);
    this.name = requireNonNull(name, "name is null");
    this.explain = explain;
  }

  /** The statement under EXPLAIN, which starts at {@code pos}. */
  public SqlRefreshMaterializedView explained(SqlParserPos pos) {
    return new SqlRefreshMaterializedView(pos, name, true);
  }

  public SqlIdentifier name() {
    return name;
  }

  /** Whether the statement only explains the refresh (EXPLAIN REFRESH ...). */
  public boolean explain() {
    return explain;
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
    if (explain) {
      writer.keyword("EXPLAIN");
    }
    writer.keyword("REFRESH MATERIALIZED VIEW");
    name.unparse(writer, leftPrec, rightPrec);
  }
}
