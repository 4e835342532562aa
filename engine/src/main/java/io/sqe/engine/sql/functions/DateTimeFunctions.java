package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.sql.validate.SqlValidator;

/**
 * The date functions users of Trino, DuckDB and PostgreSQL write with the unit as a string:
 * {@code date_trunc('month', d)}, {@code datediff('day', a, b)} (also {@code date_diff}) and {@code
 * date_add('day', n, d)}.
 * They become Calcite's own {@code FLOOR(d TO MONTH)}, {@code TIMESTAMPDIFF} and
 * {@code TIMESTAMPADD}, so they plan and run like those.
 *
 * <p>Calcite's parser binds {@code DATE_TRUNC} to its BigQuery function itself, so that one is
 * rewritten by {@link #standardize} before validation; the others by the validator's call
 * rewriting. SQE's grammar switches off Calcite's BigQuery {@code DATE_DIFF(a, b, unit)}, so {@code
 * date_diff} arrives here as an ordinary call.
 */
public final class DateTimeFunctions {
  /** Units by name; "week" is the ISO week, starting on Monday, as in Trino and PostgreSQL. */
  private static final Map<String, String> UNITS =
      Map.ofEntries(
          Map.entry("millisecond", "MILLISECOND"),
          Map.entry("second", "SECOND"),
          Map.entry("minute", "MINUTE"),
          Map.entry("hour", "HOUR"),
          Map.entry("day", "DAY"),
          Map.entry("week", "ISOWEEK"),
          Map.entry("month", "MONTH"),
          Map.entry("quarter", "QUARTER"),
          Map.entry("year", "YEAR"));

  private static final Rewritten DATE_TRUNC = new Rewritten("DATE_TRUNC", 2) {
    @Override
    SqlNode rewrite(SqlCall call, SqlIntervalQualifier unit) {
      return SqlStdOperatorTable.FLOOR.createCall(call.getParserPosition(), call.operand(1), unit);
    }
  };

  public static final SqlFunction DATEDIFF = new DateDiff("DATEDIFF");

  /** Trino's spelling of {@link #DATEDIFF}. */
  public static final SqlFunction DATE_DIFF = new DateDiff("DATE_DIFF");

  public static final SqlFunction DATE_ADD = new Rewritten("DATE_ADD", 3) {
    @Override
    SqlNode rewrite(SqlCall call, SqlIntervalQualifier unit) {
      return SqlStdOperatorTable.TIMESTAMP_ADD.createCall(call.getParserPosition(), unit, call.operand(1), call.operand(2));
    }
  };

  /** The functions to add to the operator table. */
  public static final List<SqlOperator> ALL = List.of(DATEDIFF, DATE_DIFF, DATE_ADD);

  private DateTimeFunctions() {}

  /** Rewrites {@code DATE_TRUNC('unit', x)} calls anywhere in a parsed statement. */
  public static SqlNode standardize(SqlNode node) {
    SqlNode result = node.accept(
        new SqlShuttle() {
          @Override
          public SqlNode visit(SqlCall call) {
            SqlCall visited = (SqlCall) super.visit(call);
            SqlCall current = visited == null ? call : visited;
            if (current.getOperator().getName().equalsIgnoreCase("DATE_TRUNC")
                && current.operandCount() == 2
                && current.operand(0) instanceof SqlCharStringLiteral) {
              return DATE_TRUNC.rewriteCall(null, current);
            }
            return current;
          }
        });
    return result == null ? node : result;
  }

  /** {@code datediff('unit', a, b)}: whole units from a to b, as TIMESTAMPDIFF counts them. */
  private static final class DateDiff extends Rewritten {
    DateDiff(String name) {
      super(name, 3);
    }

    @Override
    SqlNode rewrite(SqlCall call, SqlIntervalQualifier unit) {
      return SqlStdOperatorTable.TIMESTAMP_DIFF.createCall(call.getParserPosition(), unit, call.operand(1), call.operand(2));
    }
  }

  /** A function whose first operand is a unit string and which the validator rewrites. */
  private abstract static class Rewritten extends SqlFunction {
    private final int operands;

    Rewritten(String name, int operands) {
      super(name, SqlKind.OTHER_FUNCTION, ReturnTypes.ARG1_NULLABLE, null, OperandTypes.VARIADIC, SqlFunctionCategory.TIMEDATE);
      this.operands = operands;
    }

    abstract SqlNode rewrite(SqlCall call, SqlIntervalQualifier unit);

    @Override
    public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
      if (call.operandCount() != operands) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            getName().toLowerCase(Locale.ROOT) + " takes " + operands + " arguments, not " + call.operandCount(),
            position(call.getParserPosition()),
            null);
      }
      return rewrite(call, unit(call.operand(0)));
    }

    private SqlIntervalQualifier unit(SqlNode node) {
      if (!(node instanceof SqlCharStringLiteral)) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "The first argument of " + getName().toLowerCase(Locale.ROOT) + " must be a unit in quotes, such as 'day'",
            position(node.getParserPosition()),
            null);
      }
      String text = ((SqlCharStringLiteral) node).getValueAs(String.class).trim().toLowerCase(Locale.ROOT);
      String unit = UNITS.get(text.endsWith("s") ? text.substring(0, text.length() - 1) : text);
      if (unit == null) {
        throw new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "Unknown unit '" + text + "'; use one of " + String.join(", ", UNITS.keySet().stream().sorted().toList()),
            position(node.getParserPosition()),
            null);
      }
      SqlParserPos pos = node.getParserPosition();
      return unit.equals("ISOWEEK")
          ? new SqlIntervalQualifier(unit, pos)
          : new SqlIntervalQualifier(TimeUnit.valueOf(unit), null, pos);
    }

    private static SqlPosition position(SqlParserPos pos) {
      return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
    }
  }
}
