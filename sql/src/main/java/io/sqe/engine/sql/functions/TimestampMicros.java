package io.sqe.engine.sql.functions;

import java.lang.reflect.Method;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.util.TimestampString;

/**
 * The run-time side of SQE's microsecond timestamps.
 *
 * <p>Calcite's row-at-a-time runtime holds TIMESTAMP values as a {@code long}, and its functions
 * read that long as milliseconds. SQE keeps microseconds in it instead, as Iceberg stores them,
 * so that comparisons, sorting, grouping, joins, MIN/MAX and plain reads are exact. The planner
 * ({@code io.sqe.engine.plan.MicrosecondTimestamps}) wraps every Calcite function that reads a
 * timestamp as a calendar time in {@link #TO_MILLIS} and {@link #FROM_MILLIS}, and turns
 * timestamp literals into {@link #MICROS} calls.
 *
 * <p>The operators that produce microsecond values are "dynamic" functions, which Calcite never
 * folds into literals at planning time: a timestamp literal can only hold milliseconds.
 */
public final class TimestampMicros {
  /** {@code MICROS(bigint)}: a BIGINT count of microseconds as a timestamp. */
  public static final SqlOperator MICROS = function("SQE_MICROS", "micros", true, long.class);
  /** {@code TO_MILLIS(timestamp)}: a timestamp as Calcite's milliseconds, for its functions. */
  public static final SqlOperator TO_MILLIS = function("SQE_TO_MILLIS", "toMillis", false, long.class);
  /** {@code FROM_MILLIS(timestamp)}: a timestamp computed by Calcite in milliseconds, as microseconds. */
  public static final SqlOperator FROM_MILLIS = function("SQE_FROM_MILLIS", "fromMillis", true, long.class);
  /**
   * {@code FROM_MILLIS_KEEP(millis, micros)}: the result of moving {@code micros} by a calendar
   * amount (computed in milliseconds), with the sub-millisecond digits of {@code micros} kept.
   */
  public static final SqlOperator FROM_MILLIS_KEEP =
      function("SQE_FROM_MILLIS_KEEP", "fromMillisKeep", true, long.class, long.class);
  /**
   * {@code FROM_MILLIS_KEEP_FRACTION(millis, micros)}: a timestamp Calcite converted between
   * TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE (whole seconds: zone offsets are), with the
   * fraction of a second of {@code micros}, which Calcite's conversion drops, put back.
   */
  public static final SqlOperator FROM_MILLIS_KEEP_FRACTION =
      function("SQE_FROM_MILLIS_KEEP_FRACTION", "fromMillisKeepFraction", true, long.class, long.class);
  /** {@code TO_STRING(timestamp)}: ISO text with as many fractional digits as the value has. */
  public static final SqlOperator TO_STRING = function("SQE_TIMESTAMP_TO_STRING", "toText", false, long.class);
  /** {@code FROM_STRING(varchar)}: parses a timestamp with up to microsecond digits. */
  public static final SqlOperator FROM_STRING = function("SQE_TIMESTAMP_FROM_STRING", "fromText", true, String.class);

  /**
   * {@code DIFF_MICROS(a, b)}: the microseconds from timestamp {@code a} to {@code b}. SQE writes
   * {@code TIMESTAMPDIFF(MICROSECOND | MILLISECOND, a, b)} with it: Calcite's counts whole seconds.
   */
  public static final SqlOperator DIFF_MICROS =
      new SqlUserDefinedFunction(
          new SqlIdentifier("SQE_DIFF_MICROS", SqlParserPos.ZERO),
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.BIGINT_NULLABLE,
          InferTypes.FIRST_KNOWN,
          OperandTypes.operandMetadata(
              List.of(SqlTypeFamily.TIMESTAMP, SqlTypeFamily.TIMESTAMP),
              types -> List.of(types.createSqlType(SqlTypeName.TIMESTAMP), types.createSqlType(SqlTypeName.TIMESTAMP)),
              i -> i == 0 ? "start" : "end",
              i -> false),
          ScalarFunctionImpl.create(method("diffMicros", long.class, long.class)));

  /**
   * {@code TRUNC_MILLIS(ts)}: a timestamp with its sub-millisecond digits cleared, which is {@code
   * date_trunc('millisecond', ts)}; Calcite's FLOOR to MILLISECOND is a no-op on its millisecond values.
   */
  public static final SqlOperator TRUNC_MILLIS =
      new SqlUserDefinedFunction(
          new SqlIdentifier("SQE_TRUNC_MILLIS", SqlParserPos.ZERO),
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0_NULLABLE,
          InferTypes.FIRST_KNOWN,
          OperandTypes.operandMetadata(
              List.of(SqlTypeFamily.TIMESTAMP),
              types -> List.of(types.createSqlType(SqlTypeName.TIMESTAMP)),
              i -> "timestamp",
              i -> false),
          ScalarFunctionImpl.create(method("truncMillis", long.class)));

  private static final DateTimeFormatter PARSER =
      new DateTimeFormatterBuilder()
          .appendPattern("uuuu-MM-dd")
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .optionalStart()
          .appendPattern("HH:mm")
          .optionalStart()
          .appendPattern(":ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .optionalEnd()
          .optionalEnd()
          .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
          .toFormatter(Locale.ROOT);

  private TimestampMicros() {}

  private static Method method(String name, Class<?>... parameters) {
    try {
      return TimestampMicros.class.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SqlOperator function(String name, String method, boolean dynamic, Class<?>... parameters) {
    Method m = method(method, parameters);
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name, SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.ARG0,
        InferTypes.FIRST_KNOWN,
        null,
        ScalarFunctionImpl.create(m)) {
      @Override
      public boolean isDynamicFunction() {
        return dynamic;
      }
    };
  }

  public static boolean isOurs(SqlOperator operator) {
    return operator == MICROS
        || operator == TO_MILLIS
        || operator == FROM_MILLIS
        || operator == FROM_MILLIS_KEEP
        || operator == FROM_MILLIS_KEEP_FRACTION
        || operator == TO_STRING
        || operator == FROM_STRING
        || operator == DIFF_MICROS
        || operator == TRUNC_MILLIS;
  }

  /**
   * Whether {@code operator} is one of SQE's functions that a statement calls (through the rewrites
   * of TIMESTAMPDIFF and date_trunc) on its own timestamp values, rather than one the planner wraps
   * around them.
   */
  public static boolean takesUserOperands(SqlOperator operator) {
    return operator == DIFF_MICROS || operator == TRUNC_MILLIS;
  }

  /** The microseconds a constant timestamp expression of a planned query stands for, if it is one. */
  public static Optional<Long> constantMicros(RexNode node) {
    if (!(node instanceof RexCall)) {
      return Optional.empty();
    }
    RexCall call = (RexCall) node;
    if (call.getOperands().size() != 1 || !(call.getOperands().get(0) instanceof RexLiteral)) {
      return Optional.empty();
    }
    RexLiteral literal = (RexLiteral) call.getOperands().get(0);
    if (literal.isNull()) {
      return Optional.empty();
    }
    if (call.getOperator() == MICROS) {
      return Optional.ofNullable(literal.getValueAs(Long.class));
    }
    if (call.getOperator() == FROM_MILLIS) {
      Long millis = literal.getValueAs(Long.class);
      return millis == null ? Optional.empty() : Optional.of(millis * 1000L);
    }
    return Optional.empty();
  }

  /** The exact microseconds of a timestamp literal's text, which may have up to nine digits. */
  public static long micros(TimestampString timestamp) {
    return micros(timestamp.toString());
  }

  /** Parses {@code yyyy-MM-dd[ HH:mm[:ss[.fffffffff]]]} to microseconds since the epoch (UTC). */
  public static long micros(String text) {
    LocalDateTime parsed = LocalDateTime.parse(text.trim(), PARSER);
    Instant instant = parsed.toInstant(ZoneOffset.UTC);
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
  }

  // ---- called from generated code

  @Strict
  public static long micros(long micros) {
    return micros;
  }

  @Strict
  public static long toMillis(long micros) {
    return Math.floorDiv(micros, 1000L);
  }

  @Strict
  public static long fromMillis(long millis) {
    return Math.multiplyExact(millis, 1000L);
  }

  @Strict
  public static long fromMillisKeep(long millis, long originalMicros) {
    return Math.addExact(Math.multiplyExact(millis, 1000L), Math.floorMod(originalMicros, 1000L));
  }

  @Strict
  public static long truncMillis(long micros) {
    return Math.multiplyExact(Math.floorDiv(micros, 1000L), 1000L);
  }

  @Strict
  public static long diffMicros(long start, long end) {
    return Math.subtractExact(end, start);
  }

  @Strict
  public static long fromMillisKeepFraction(long millis, long originalMicros) {
    return Math.addExact(Math.multiplyExact(Math.floorDiv(millis, 1000L), 1_000_000L), Math.floorMod(originalMicros, 1_000_000L));
  }

  @Strict
  public static String toText(long micros) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    int fraction = (int) Math.floorMod(micros, 1_000_000L);
    LocalDateTime time = LocalDateTime.ofEpochSecond(seconds, fraction * 1000, ZoneOffset.UTC);
    StringBuilder text = new StringBuilder(DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss", Locale.ROOT).format(time));
    if (fraction != 0) {
      String digits = String.format(Locale.ROOT, "%06d", fraction);
      int end = digits.length();
      while (end > 1 && digits.charAt(end - 1) == '0') {
        end--;
      }
      text.append('.').append(digits, 0, end);
    }
    return text.toString();
  }

  @Strict
  public static long fromText(String text) {
    try {
      return micros(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("Invalid timestamp: '" + text + "'", e);
    }
  }
}
