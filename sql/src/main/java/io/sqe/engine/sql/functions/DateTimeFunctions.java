package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.util.TimestampString;

/**
 * The date functions users of Trino, DuckDB and PostgreSQL write with the unit as a string:
 * {@code date_trunc('month', d)}, {@code datediff('day', a, b)} (also {@code date_diff}) and {@code
 * date_add('day', n, d)}; Trino's {@code date(x)}, a cast to DATE; and {@code now()}, which is
 * {@code CURRENT_TIMESTAMP}.
 * They become Calcite's own {@code FLOOR(d TO MONTH)}, {@code TIMESTAMPDIFF} and
 * {@code TIMESTAMPADD}, so they plan and run like those.
 *
 * <p>Calcite's parser binds {@code DATE_TRUNC} to its BigQuery function itself, so that one is
 * rewritten by {@link #standardize} before validation; the others by the validator's call
 * rewriting. SQE's grammar switches off Calcite's BigQuery {@code DATE_DIFF(a, b, unit)}, so {@code
 * date_diff} arrives here as an ordinary call.
 *
 * <p>{@link #standardize} also keeps microseconds where Calcite works in milliseconds: it turns
 * {@code CAST('text' AS TIMESTAMP)} into a timestamp literal, {@code TIMESTAMPDIFF} in microseconds
 * or milliseconds and {@code date_trunc('millisecond', ts)} into SQE's own functions over
 * microsecond values, and puts the template patterns of {@code to_date} / {@code to_timestamp}
 * formats in the upper case Calcite reads.
 */
public final class DateTimeFunctions {
  /** Units by name; "week" is the ISO week, starting on Monday, as in Trino and PostgreSQL. */
  private static final Map<String, String> UNITS =
      Map.ofEntries(
          Map.entry("microsecond", "MICROSECOND"),
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
      if (unit.timeFrameName == null && unit.getStartUnit() == TimeUnit.MILLISECOND) {
        return TimestampMicros.TRUNC_MILLIS.createCall(call.getParserPosition(), asTimestamp(call.operand(1)));
      }
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

  /** {@code date(x)}: Trino's (and MySQL's) spelling of {@code CAST(x AS DATE)}. */
  public static final SqlFunction DATE =
      new SqlFunction("DATE", SqlKind.OTHER_FUNCTION, ReturnTypes.explicit(SqlTypeName.DATE), null, OperandTypes.ANY, SqlFunctionCategory.TIMEDATE) {
        @Override
        public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
          if (call.operandCount() != 1) {
            throw new SqeException(
                ErrorCode.INVALID_ARGUMENT,
                "date takes 1 argument, not " + call.operandCount(),
                Rewritten.position(call.getParserPosition()),
                null);
          }
          SqlParserPos pos = call.getParserPosition();
          return SqlStdOperatorTable.CAST.createCall(
              pos, call.operand(0), new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.DATE, pos), pos));
        }
      };

  /** {@code now()}: PostgreSQL's and Trino's name for {@code CURRENT_TIMESTAMP}. */
  public static final SqlFunction NOW =
      new SqlFunction("NOW", SqlKind.OTHER_FUNCTION, ReturnTypes.explicit(SqlTypeName.TIMESTAMP), null, OperandTypes.NILADIC, SqlFunctionCategory.TIMEDATE) {
        @Override
        public SqlNode rewriteCall(SqlValidator validator, SqlCall call) {
          if (call.operandCount() != 0) {
            throw new SqeException(
                ErrorCode.INVALID_ARGUMENT,
                "now takes no arguments, not " + call.operandCount(),
                Rewritten.position(call.getParserPosition()),
                null);
          }
          return SqlStdOperatorTable.CURRENT_TIMESTAMP.createCall(call.getParserPosition());
        }
      };

  /** The functions to add to the operator table. */
  public static final List<SqlOperator> ALL =
      List.of(DATEDIFF, DATE_DIFF, DATE_ADD, DATE, NOW, TimestampMicros.DIFF_MICROS, TimestampMicros.TRUNC_MILLIS);

  private DateTimeFunctions() {}

  /** Applies the rewrites described above anywhere in a parsed statement. */
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
            if (current.getKind() == SqlKind.CAST) {
              SqlNode literal = timestampLiteral(current);
              if (literal != null) {
                return literal;
              }
            }
            if (current.getKind() == SqlKind.TIMESTAMP_DIFF
                && current.operandCount() == 3
                && current.operand(0) instanceof SqlIntervalQualifier) {
              return timestampDiff(current.getParserPosition(), current.operand(0), current.operand(1), current.operand(2));
            }
            if ((current.getOperator().getName().equalsIgnoreCase("TO_DATE")
                    || current.getOperator().getName().equalsIgnoreCase("TO_TIMESTAMP"))
                && current.operandCount() == 2
                && current.operand(1) instanceof SqlCharStringLiteral) {
              SqlCharStringLiteral format = current.operand(1);
              current.setOperand(
                  1, SqlLiteral.createCharString(templatePatterns(format.getValueAs(String.class)), format.getParserPosition()));
            }
            return current;
          }
        });
    return result == null ? node : result;
  }

  /**
   * A PostgreSQL date format with its template patterns in upper case, the only case Calcite's
   * formatter reads: PostgreSQL reads {@code 'mm/dd/yyyy'} as {@code 'MM/DD/YYYY'}. Text in double
   * quotes stays as it is, and so do patterns in mixed case ({@code Month}), which Calcite knows.
   */
  static String templatePatterns(String format) {
    StringBuilder result = new StringBuilder(format.length());
    boolean quoted = false;
    int i = 0;
    while (i < format.length()) {
      char c = format.charAt(i);
      if (c == '"') {
        quoted = !quoted;
        result.append(c);
        i++;
      } else if (!quoted && Character.isLetter(c)) {
        int end = i;
        while (end < format.length() && Character.isLetter(format.charAt(end))) {
          end++;
        }
        String word = format.substring(i, end);
        result.append(word.equals(word.toLowerCase(Locale.ROOT)) ? word.toUpperCase(Locale.ROOT) : word);
        i = end;
      } else {
        result.append(c);
        i++;
      }
    }
    return result.toString();
  }

  /**
   * {@code CAST('text' AS TIMESTAMP[(p)])} as a TIMESTAMP literal, which keeps every digit of the
   * text. Calcite would fold the cast itself while planning, through its runtime, which rounds to
   * milliseconds ('1999-12-31 23:59:59.999999' would become the next second). Null when the call
   * is another cast or the text is no timestamp (the cast then fails as it runs).
   */
  private static SqlNode timestampLiteral(SqlCall cast) {
    if (cast.operandCount() != 2
        || !(cast.operand(0) instanceof SqlCharStringLiteral)
        || !(cast.operand(1) instanceof SqlDataTypeSpec)) {
      return null;
    }
    SqlDataTypeSpec spec = cast.operand(1);
    if (!(spec.getTypeNameSpec() instanceof SqlBasicTypeNameSpec)
        || !spec.getTypeNameSpec().getTypeName().getSimple().equalsIgnoreCase("TIMESTAMP")) {
      return null;
    }
    int precision = ((SqlBasicTypeNameSpec) spec.getTypeNameSpec()).getPrecision();
    long micros;
    try {
      micros = TimestampMicros.micros(((SqlCharStringLiteral) cast.operand(0)).getValueAs(String.class));
    } catch (DateTimeException | ArithmeticException e) {
      return null;
    }
    int digits = precision < 0 ? 6 : Math.min(precision, 6);
    LocalDateTime time = LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    TimestampString text =
        new TimestampString(time.getYear(), time.getMonthValue(), time.getDayOfMonth(), time.getHour(), time.getMinute(), time.getSecond())
            .withNanos(time.getNano())
            .round(digits);
    return SqlLiteral.createTimestamp(SqlTypeName.TIMESTAMP, text, digits, cast.getParserPosition());
  }

  /**
   * {@code TIMESTAMPDIFF(unit, a, b)}; microseconds and milliseconds are counted exactly from
   * SQE's microsecond timestamps (Calcite's own counts whole seconds for them), truncated towards
   * zero as Calcite truncates the other units.
   */
  private static SqlNode timestampDiff(SqlParserPos pos, SqlIntervalQualifier unit, SqlNode start, SqlNode end) {
    TimeUnit timeUnit = unit.timeFrameName == null ? unit.getStartUnit() : null;
    if (timeUnit != TimeUnit.MICROSECOND && timeUnit != TimeUnit.MILLISECOND) {
      return SqlStdOperatorTable.TIMESTAMP_DIFF.createCall(pos, unit, start, end);
    }
    SqlNode micros = TimestampMicros.DIFF_MICROS.createCall(pos, asTimestamp(start), asTimestamp(end));
    return timeUnit == TimeUnit.MICROSECOND
        ? micros
        : SqlStdOperatorTable.DIVIDE.createCall(pos, micros, SqlLiteral.createExactNumeric("1000", pos));
  }

  private static SqlNode asTimestamp(SqlNode node) {
    SqlParserPos pos = node.getParserPosition();
    return SqlStdOperatorTable.CAST.createCall(
        pos, node, new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.TIMESTAMP, 6, pos), pos));
  }

  /** {@code datediff('unit', a, b)}: whole units from a to b, as TIMESTAMPDIFF counts them. */
  private static final class DateDiff extends Rewritten {
    DateDiff(String name) {
      super(name, 3);
    }

    @Override
    SqlNode rewrite(SqlCall call, SqlIntervalQualifier unit) {
      return timestampDiff(call.getParserPosition(), unit, call.operand(1), call.operand(2));
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

    static SqlPosition position(SqlParserPos pos) {
      return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
    }
  }
}
