package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.validate.SqlValidator;

/** Trino's {@code if(condition, then [, else])}, which the validator rewrites into a CASE, and {@code try(expression)}. */
public final class ConditionalFunctions {
  /** if(condition, a [, b]): a when the condition is true, else b (NULL without one). */
  public static final SqlOperator IF = new SqlFunction(
      "IF", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG1_NULLABLE, null, OperandTypes.VARIADIC, SqlFunctionCategory.SYSTEM) {
    @Override
    public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
      SqlParserPos pos = call.getParserPosition();
      if (call.operandCount() != 2 && call.operandCount() != 3) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "if takes 2 or 3 arguments, not " + call.operandCount(),
            new SqeException.SqlPosition(pos.getLineNum(), pos.getColumnNum()),
            null);
      }
      SqlNode otherwise = call.operandCount() == 3 ? call.operand(2) : SqlLiteral.createNull(pos);
      return SqlCase.createSwitched(pos, null, SqlNodeList.of(call.operand(0)), SqlNodeList.of(call.operand(1)), otherwise);
    }
  };

  /**
   * try(expression): NULL where computing the expression fails for a bad value. It is validated and
   * planned as an ordinary function of its operand; the compiled plan computes the operand inside
   * {@link LambdaFunctions#TRY_EVALUATION}, which catches the error (see OperatorImplementations).
   */
  public static final SqlOperator TRY = new SqlFunction(
      "TRY", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0_FORCE_NULLABLE, null, OperandTypes.ANY, SqlFunctionCategory.SYSTEM);

  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = List.of(IF, TRY);

  private ConditionalFunctions() {}
}
