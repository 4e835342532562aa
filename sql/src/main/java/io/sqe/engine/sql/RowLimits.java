package io.sqe.engine.sql;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.math.BigDecimal;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Refuses a LIMIT (or FETCH) or OFFSET larger than the executor counts to: Calcite's generated
 * code counts rows in an int, and failed to compile a larger literal.
 */
public final class RowLimits {
  private static final BigDecimal MAX = BigDecimal.valueOf(Integer.MAX_VALUE);

  private RowLimits() {}

  /** Checks every query block of {@code statement}, sub-queries included. */
  public static void check(SqlNode statement) {
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        if (call instanceof SqlSelect select) {
          check(select.getOffset(), "OFFSET");
          check(select.getFetch(), "LIMIT");
        } else if (call instanceof SqlOrderBy orderBy) {
          check(orderBy.offset, "OFFSET");
          check(orderBy.fetch, "LIMIT");
        }
        return super.visit(call);
      }
    });
  }

  private static void check(SqlNode value, String clause) {
    if (value instanceof SqlNumericLiteral literal && literal.bigDecimalValue() != null && literal.bigDecimalValue().compareTo(MAX) > 0) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          clause + " " + literal.bigDecimalValue().toPlainString() + " is more than " + Integer.MAX_VALUE + ", the most SQE supports",
          new SqlPosition(literal.getParserPosition().getLineNum(), literal.getParserPosition().getColumnNum()),
          null);
    }
  }
}
