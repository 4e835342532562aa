package io.sqe.engine.sql.ddl;

import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlExplainFormat;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code EXPLAIN ANALYZE query} (Trino's syntax): runs the query, discards its rows, and answers
 * its plan with each operator's figures. It is an EXPLAIN to everything that only reads the
 * statement (its kind, the tables it reads).
 */
public final class SqlExplainAnalyze extends SqlExplain {
  public SqlExplainAnalyze(SqlParserPos pos, SqlNode query, int dynamicParameterCount) {
    super(
        pos,
        query,
        SqlLiteral.createSymbol(SqlExplainLevel.EXPPLAN_ATTRIBUTES, SqlParserPos.ZERO),
        SqlLiteral.createSymbol(SqlExplain.Depth.PHYSICAL, SqlParserPos.ZERO),
        SqlLiteral.createSymbol(SqlExplainFormat.TEXT, SqlParserPos.ZERO),
        dynamicParameterCount);
  }

  @Override
  public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
    writer.keyword("EXPLAIN ANALYZE");
    getExplicandum().unparse(writer, getOperator().getLeftPrec(), getOperator().getRightPrec());
  }
}
