package io.sqe.engine.sql.ddl;

import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlValidatorException;

/**
 * Errors the grammar raises for input it can tokenise but not accept. The parser turns them into
 * a {@code SqlParseException} at the given position, like its own syntax errors.
 */
public final class SqlSyntaxErrors {
  private SqlSyntaxErrors() {}

  public static CalciteContextException error(SqlParserPos pos, String message) {
    CalciteContextException e = new CalciteContextException(message, new SqlValidatorException(message, null));
    e.setPosition(pos.getLineNum(), pos.getColumnNum(), pos.getEndLineNum(), pos.getEndColumnNum());
    return e;
  }
}
