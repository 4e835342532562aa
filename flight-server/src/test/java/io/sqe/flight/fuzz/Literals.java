package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Random;

/**
 * SQL literals of every {@link FuzzType}, drawn mostly from the edges of each type's range and
 * encoding: MIN and MAX, values just past them, NaN and infinities, the empty string, text beyond
 * the Basic Multilingual Plane, right-to-left and combining text, quotes, escapes, U&amp;''
 * literals, control characters and very long strings.
 */
final class Literals {
  private static final List<String> INTEGERS = List.of(
      "0", "1", "-1", "2", "7", "10", "42", "-42", "100", "127", "-128", "128", "255", "32767", "-32768", "65535",
      "2147483647", "-2147483648", "2147483648", "-2147483649", "4294967296", "9223372036854775807",
      "-9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
      "99999999999999999999999999999999999999", "000123", "1000000");
  private static final List<String> DECIMALS = List.of(
      "0.0", "0.5", "-0.5", "1.25", "-123.45", "3.14159", "0.01", "99999999999.99", "-99999999999.99",
      "100000000000.00", "0.000000000000000000000000000000000001", "12345678901234567890.123456789012345678",
      "99999999999999999999999999999999999999.0", "9999999999999999999999999999.9999999999", "1.", ".5",
      "-0.000", "123456789012345678901234567890123456789.5");
  private static final List<String> DOUBLES = List.of(
      "0E0", "1.5E0", "-2.5E0", "1E308", "1.7976931348623157E308", "-1.7976931348623157E308", "1E-308",
      "4.9E-324", "2.2250738585072014E-308", "1E309", "1E-400", "3.4028235E38", "1.4E-45", "-0.0E0", "6.02E23",
      "CAST('NaN' AS DOUBLE)", "CAST('Infinity' AS DOUBLE)", "CAST('-Infinity' AS DOUBLE)", "CAST('-0' AS DOUBLE)");
  private static final List<String> REALS = List.of(
      "CAST(0 AS REAL)", "CAST(1.5 AS REAL)", "CAST(3.4028235E38 AS REAL)", "CAST(-3.4028235E38 AS REAL)",
      "CAST(1.4E-45 AS REAL)", "CAST(1E39 AS REAL)", "CAST('NaN' AS REAL)", "CAST('Infinity' AS REAL)",
      "CAST('-Infinity' AS REAL)", "CAST(-0.0E0 AS REAL)", "CAST(16777217 AS REAL)");
  private static final List<String> STRINGS = List.of(
      "", "a", "A", "abc", "it's", "O'Brien \"quoted\" \\ backslash", " padded ", "x", "Zz", "%", "_", "%_%",
      "a%b_c", "\\", "\\%", "\u00e9t\u00e9", "e\u0301", "\u00df", "\ufb01", "\u0130stanbul", "\u03a3\u03c3\u03c2",
      "\ud83d\ude00", "\ud834\udd1e", "a\ud83d\ude00b\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67",
      "\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627", "\u202eevil\u202c", "\u200b", "\ufeffbom",
      "line\nbreak", "tab\there", "cr\rlf\r\n", "\u0085\u2028\u2029", "\u0007bell", "\u4e2d\u6587", "\uffff",
      "2024-02-29", "12:34:56", "2024-01-01 00:00:00", "2024-01-01 10:00:00 +05:30", "1e308", "NaN", "Infinity",
      "-0", " 42 ", "42", "9223372036854775808", "0x1F", "true", "FALSE", "null", "NULL", "[1,2]", "{\"a\":1}",
      "a,b,,c", "|", "Europe/Paris", "day", "YYYY-MM-DD", "HH24:MI:SS", "(a+)+b", "[", "^.*$", "\\d+", "*",
      "\u0000", "a\u0000b");
  private static final List<String> UNICODE_ESCAPES = List.of(
      "U&'\\00e9t\\00e9'", "U&'\\+01F600'", "U&'\\0041\\0042'", "U&'!00e9' UESCAPE '!'", "U&'\\\\'", "U&'\\D83D'",
      "U&'\\+110000'", "U&'\\0000'", "U&'\\zzzz'", "u&'\\05e9'");
  private static final List<String> BINARIES = List.of(
      "X''", "X'00'", "X'FF'", "X'DEADBEEF'", "X'00FF00FF'", "X'F09F9880'", "X'C328'", "CAST('abc' AS VARBINARY)",
      "X'0'", "X'GG'");
  private static final List<String> DATES = List.of(
      "DATE '2024-02-29'", "DATE '1970-01-01'", "DATE '0001-01-01'", "DATE '9999-12-31'", "DATE '1582-10-10'",
      "DATE '1582-10-04'", "DATE '1900-02-28'", "DATE '2000-02-29'", "DATE '1969-12-31'", "DATE '2023-02-29'",
      "DATE '2024-13-01'", "DATE '10000-01-01'", "DATE '0000-01-01'", "DATE '-0001-01-01'", "CURRENT_DATE",
      "DATE '2038-01-19'");
  private static final List<String> TIMES = List.of(
      "TIME '00:00:00'", "TIME '23:59:59'", "TIME '23:59:59.999'", "TIME '12:34:56.789'", "TIME '12:00:00.123456'",
      "TIME '24:00:00'", "TIME '23:60:00'", "TIME '01:02:03'");
  private static final List<String> TIMESTAMPS = List.of(
      "TIMESTAMP '2024-02-29 23:59:59.999999'", "TIMESTAMP '1970-01-01 00:00:00'", "TIMESTAMP '0001-01-01 00:00:00'",
      "TIMESTAMP '9999-12-31 23:59:59.999999'", "TIMESTAMP '1969-12-31 23:59:59.999999'",
      "TIMESTAMP '2024-03-31 02:30:00'", "TIMESTAMP '1582-10-10 12:00:00'", "TIMESTAMP '2262-04-11 23:47:16.854775'",
      "TIMESTAMP '1677-09-21 00:12:43.145224'", "TIMESTAMP '2024-01-01 00:00:00.1234567'",
      "TIMESTAMP '2024-02-30 00:00:00'", "TIMESTAMP '2024-01-01 25:00:00'", "LOCALTIMESTAMP");
  private static final List<String> TIMESTAMPTZS = List.of(
      "TIMESTAMP WITH LOCAL TIME ZONE '2024-01-01 00:00:00'", "TIMESTAMP WITH LOCAL TIME ZONE '1970-01-01 00:00:00.000001'",
      "CAST('2024-01-01 10:00:00 +05:30' AS TIMESTAMP WITH LOCAL TIME ZONE)",
      "CAST('2024-03-31 02:30:00 Europe/Paris' AS TIMESTAMP WITH LOCAL TIME ZONE)",
      "CAST(TIMESTAMP '9999-12-31 23:59:59.999999' AS TIMESTAMP WITH LOCAL TIME ZONE)",
      "CAST(TIMESTAMP '0001-01-01 00:00:00' AS TIMESTAMP WITH LOCAL TIME ZONE)", "CURRENT_TIMESTAMP");
  private static final List<String> INTERVALS = List.of(
      "INTERVAL '1' DAY", "INTERVAL '-3' MONTH", "INTERVAL '1' YEAR", "INTERVAL '90' MINUTE", "INTERVAL '1.5' SECOND",
      "INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '1-6' YEAR TO MONTH", "INTERVAL '999999999' DAY",
      "INTERVAL '99' YEAR", "INTERVAL '2147483647' SECOND", "INTERVAL '0.000001' SECOND", "INTERVAL '-1 02:03:04' DAY TO SECOND",
      "INTERVAL '10000' YEAR(5)");

  private final Random random;

  Literals(Random random) {
    this.random = requireNonNull(random, "random is null");
  }

  /** A literal (or a constant expression made of literals) of {@code type}. */
  String of(FuzzType type) {
    if (random.nextInt(20) == 0) {
      return "CAST(NULL AS " + type.sql() + ")";
    }
    return switch (type.kind()) {
      case BOOLEAN -> pick(List.of("TRUE", "FALSE", "UNKNOWN", "NOT TRUE"));
      case TINYINT -> "CAST(" + pick(List.of("0", "1", "-1", "127", "-128", "100", "-100", "128")) + " AS TINYINT)";
      case SMALLINT -> "CAST(" + pick(List.of("0", "1", "-1", "32767", "-32768", "1000", "32768")) + " AS SMALLINT)";
      case INTEGER -> integer();
      case BIGINT -> random.nextBoolean()
          ? "CAST(" + integer() + " AS BIGINT)"
          : pick(List.of("9223372036854775807", "-9223372036854775807", "4294967296", "-4294967296", "1099511627776"));
      case DECIMAL -> type.equals(FuzzType.DECIMAL_12_2) || type.precision() == 0
          ? pick(DECIMALS)
          : "CAST(" + pick(DECIMALS) + " AS " + type.sql() + ")";
      case REAL -> pick(REALS);
      case DOUBLE -> pick(DOUBLES);
      case VARCHAR -> string();
      case VARBINARY -> pick(BINARIES);
      case DATE -> pick(DATES);
      case TIME -> pick(TIMES);
      case TIMESTAMP -> pick(TIMESTAMPS);
      case TIMESTAMPTZ -> pick(TIMESTAMPTZS);
      case ARRAY -> array(type.element());
      case MAP -> "MAP[" + quote(pick(STRINGS)) + ", " + integer() + ", " + quote(pick(STRINGS)) + ", "
          + (random.nextBoolean() ? "CAST(NULL AS INTEGER)" : integer()) + "]";
      case ROW -> "ROW(" + integer() + ", " + string() + ")";
    };
  }

  /** An interval literal, for date and time arithmetic. */
  String interval() {
    return pick(INTERVALS);
  }

  /** A string literal from the edge cases, or random code points, or a very long one. */
  String string() {
    int choice = random.nextInt(100);
    if (choice < 70) {
      return quote(pick(STRINGS));
    }
    if (choice < 80) {
      return pick(UNICODE_ESCAPES);
    }
    if (choice < 93) {
      return quote(randomText(1 + random.nextInt(12)));
    }
    // Very long literals: the parser, the literal's charset check, LIKE and the result stream.
    String unit = pick(List.of("x", "\ud83d\ude00", "ab%", "\u05d0"));
    return quote(unit.repeat(1_000 + random.nextInt(20_000)));
  }

  /** A LIKE pattern: literal text, wildcards and the escape character, sometimes backtracking-heavy. */
  String likePattern() {
    if (random.nextInt(10) == 0) {
      return quote("%a".repeat(1 + random.nextInt(30)) + "%b");
    }
    StringBuilder pattern = new StringBuilder();
    int length = random.nextInt(8);
    for (int i = 0; i < length; i++) {
      pattern.append(pick(List.of("%", "_", "a", "b", "\u00e9", "\ud83d\ude00", "\\", "!", "x", "A", " ", "'")));
    }
    return quote(pattern.toString());
  }

  /** A regular expression, valid or not, sometimes with nested quantifiers. */
  String regex() {
    return quote(pick(List.of(
        "a", "^a", "b$", ".*", "[a-z]+", "[[:alpha:]]", "\\d+", "(a|b)*c", "(a+)+$", "(x+x+)+y", "[", "(", "a{2,1}",
        "\\", "\ud83d\ude00+", "(?i)A", "\\p{L}+", "^$", "(?<n>a)\\k<n>", ".{1000}")));
  }

  private String integer() {
    int choice = random.nextInt(10);
    if (choice < 7) {
      return pick(INTEGERS);
    }
    return Integer.toString(random.nextInt(41) - 20);
  }

  private String array(FuzzType element) {
    if (random.nextInt(8) == 0) {
      return "SLICE(ARRAY[CAST(NULL AS " + element.sql() + ")], 1, 0)";
    }
    int size = 1 + random.nextInt(4);
    StringBuilder sql = new StringBuilder("ARRAY[");
    for (int i = 0; i < size; i++) {
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(random.nextInt(6) == 0 ? "NULL" : of(element));
    }
    return sql.append(']').toString();
  }

  private String randomText(int length) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < length; i++) {
      int range = random.nextInt(4);
      int codePoint = switch (range) {
        case 0 -> 0x20 + random.nextInt(0x5f);
        case 1 -> random.nextInt(0x20);
        case 2 -> 0xa0 + random.nextInt(0xd7ff - 0xa0);
        default -> 0x10000 + random.nextInt(0x10ffff - 0x10000);
      };
      text.appendCodePoint(codePoint);
    }
    return text.toString();
  }

  static String quote(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
