package io.sqe.write.dml;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;

/** Errors about a part of a statement, carrying where in the SQL text that part is. */
final class SqlPositions {
  private SqlPositions() {}

  static SqeException error(ErrorCode code, String message, SqlNode at) {
    return new SqeException(code, message, position(at), null);
  }

  static SqlPosition position(SqlNode at) {
    if (at == null) {
      return null;
    }
    SqlParserPos pos = at.getParserPosition();
    return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
  }
}
