package io.sqe.flight.fuzz;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables statements run over, in schema {@code fz}: {@code f} holds a column of every type
 * and rows of edge values and NULLs; {@code g} is a small table to join with {@code f} on
 * {@code k = i}; {@code scratch} is {@code f}'s copy, partitioned by a bucket and a day, that DML
 * changes (and {@link #reset} makes again).
 */
final class FuzzTables {
  static final String SCHEMA = "fz";
  static final String SCRATCH = "fz.scratch";

  /** The columns of {@code f} and {@code scratch}, by name. */
  static final Map<String, FuzzType> ALL_TYPES = columns(
      "b", FuzzType.BOOLEAN, "i", FuzzType.INTEGER, "l", FuzzType.BIGINT, "d", FuzzType.DECIMAL_12_2,
      "dl", FuzzType.DECIMAL_38_10, "r", FuzzType.REAL, "x", FuzzType.DOUBLE, "s", FuzzType.VARCHAR,
      "v", FuzzType.VARBINARY, "dt", FuzzType.DATE, "tm", FuzzType.TIME, "ts", FuzzType.TIMESTAMP,
      "tz", FuzzType.TIMESTAMPTZ, "ai", FuzzType.INT_ARRAY, "av", FuzzType.VARCHAR_ARRAY, "m", FuzzType.MAP,
      "st", FuzzType.ROW);

  /** The columns of {@code g}. */
  static final Map<String, FuzzType> SMALL = columns(
      "k", FuzzType.INTEGER, "name", FuzzType.VARCHAR, "w", FuzzType.DOUBLE, "gd", FuzzType.DATE);

  /** A table a FROM clause may name, with its columns. */
  record Table(String name, Map<String, FuzzType> columns) {
    List<Scope.Column> as(String alias) {
      return columns.entrySet().stream().map(e -> new Scope.Column(alias + "." + e.getKey(), e.getValue())).toList();
    }
  }

  static final Table F = new Table("fz.f", ALL_TYPES);
  static final Table G = new Table("fz.g", SMALL);
  static final Table SCRATCH_TABLE = new Table(SCRATCH, ALL_TYPES);

  private FuzzTables() {}

  /** The statements that make the tables; each must succeed. */
  static List<String> create() {
    return List.of(
        "CREATE SCHEMA IF NOT EXISTS fz",
        "CREATE TABLE fz.f " + declaration(ALL_TYPES),
        "INSERT INTO fz.f VALUES " + String.join(", ", ROWS),
        "CREATE TABLE fz.g " + declaration(SMALL),
        "INSERT INTO fz.g VALUES (1, 'one', 1.5E0, DATE '2024-02-29'), (2, 'two', -0.0E0, DATE '1970-01-01'),"
            + " (2, 'deux', CAST('NaN' AS DOUBLE), NULL), (-2147483648, '', CAST('Infinity' AS DOUBLE), DATE '0001-01-01'),"
            + " (NULL, NULL, NULL, NULL), (0, " + text("\ud83d\ude00") + ", 1E308, DATE '9999-12-31'), (7, 'it''s', 4.9E-324, DATE '2000-02-29')");
  }

  /** The statements that make {@code scratch} again from {@code f}. */
  static List<String> reset() {
    return List.of(
        "DROP TABLE IF EXISTS fz.scratch PURGE",
        "CREATE TABLE fz.scratch PARTITIONED BY (bucket(4, i), day(ts)) AS SELECT * FROM fz.f");
  }

  // Rows of f: all NULL, ordinary values, each type's maximum and minimum, NaN and infinities with
  // empty values, Unicode and escapes, duplicates (for grouping), zeros, values just before the
  // epoch, the Julian-Gregorian switch and a daylight-saving gap.
  private static final List<String> ROWS = List.of(
      "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
      "(TRUE, 1, 10, 1.50, 1.5, CAST(1.5 AS REAL), 1.5E0, 'a', X'01', DATE '2024-02-29', TIME '12:34:56',"
          + " TIMESTAMP '2024-02-29 12:34:56.123456', CAST(TIMESTAMP '2024-02-29 12:34:56.123456' AS TIMESTAMP WITH LOCAL TIME ZONE),"
          + " ARRAY[1, 2, 3], ARRAY['a', 'b'], MAP['a', 1], ROW(1, 'a'))",
      "(FALSE, 2147483647, 9223372036854775807, 9999999999.99, 9999999999999999999999999999.9999999999,"
          + " CAST(3.4028235E38 AS REAL), 1.7976931348623157E308, '" + "x".repeat(300) + "', X'FFFFFFFF', DATE '9999-12-31',"
          + " TIME '23:59:59.999', TIMESTAMP '9999-12-31 23:59:59.999999',"
          + " CAST(TIMESTAMP '9999-12-30 23:59:59.999999' AS TIMESTAMP WITH LOCAL TIME ZONE), ARRAY[2147483647, NULL],"
          + " ARRAY['" + "y".repeat(100) + "', NULL], MAP['max', 2147483647, 'null', CAST(NULL AS INTEGER)], ROW(2147483647, 'max'))",
      "(FALSE, -2147483648, CAST('-9223372036854775808' AS BIGINT), -9999999999.99, -9999999999999999999999999999.9999999999,"
          + " CAST(-3.4028235E38 AS REAL), -1.7976931348623157E308, ' ', X'00', DATE '0001-01-01', TIME '00:00:00',"
          + " TIMESTAMP '0001-01-01 00:00:00', CAST(TIMESTAMP '0001-01-02 00:00:00' AS TIMESTAMP WITH LOCAL TIME ZONE),"
          + " ARRAY[-2147483648], ARRAY[''], MAP['min', -2147483648], ROW(-2147483648, ''))",
      "(TRUE, 0, 0, 0.00, 0, CAST('NaN' AS REAL), CAST('NaN' AS DOUBLE), '', X'', DATE '1970-01-01', TIME '00:00:00.001',"
          + " TIMESTAMP '1970-01-01 00:00:00', CAST(TIMESTAMP '1970-01-01 00:00:00' AS TIMESTAMP WITH LOCAL TIME ZONE),"
          + " SLICE(ARRAY[CAST(NULL AS INTEGER)], 1, 0), SLICE(ARRAY[CAST(NULL AS VARCHAR)], 1, 0), MAP['', CAST(NULL AS INTEGER)],"
          + " ROW(CAST(NULL AS INTEGER), CAST(NULL AS VARCHAR)))",
      "(NULL, 5, 5, 5.55, 5.5, CAST('Infinity' AS REAL), CAST('-Infinity' AS DOUBLE), "
          + text("\ud83d\ude00\ud834\udd1e \u05e9\u05dc\u05d5\u05dd e\u0301 \u00df") + ", X'F09F9880', DATE '2000-02-29', TIME '01:02:03',"
          + " TIMESTAMP '2000-02-29 01:02:03.000001', NULL, ARRAY[5, 5], ARRAY[" + text("\ud83d\ude00") + ", " + text("\u05d0")
          + "], MAP[" + text("\ud83d\ude00") + ", 5], ROW(5, " + text("\ud83d\ude00") + "))",
      "(TRUE, -7, -7, -0.07, -7.0000000007, CAST(-0.0E0 AS REAL), -0.0E0, '%_\\''\"x\ny', X'5C25', DATE '1969-12-31',"
          + " TIME '23:59:59', TIMESTAMP '1969-12-31 23:59:59.999999',"
          + " CAST(TIMESTAMP '1969-12-31 23:59:59.999999' AS TIMESTAMP WITH LOCAL TIME ZONE), ARRAY[NULL, -7],"
          + " ARRAY['%', '_'], MAP['%', -7], ROW(-7, '%_'))",
      "(TRUE, 1, 10, 1.50, 1.5, CAST(1.5 AS REAL), 1.5E0, 'a', X'01', DATE '2024-02-29', TIME '12:34:56',"
          + " TIMESTAMP '2024-02-29 12:34:56.123456', CAST(TIMESTAMP '2024-02-29 12:34:56.123456' AS TIMESTAMP WITH LOCAL TIME ZONE),"
          + " ARRAY[1, 2, 3], ARRAY['a', 'b'], MAP['a', 1], ROW(1, 'a'))",
      "(FALSE, 2, 1099511627776, 0.01, 0.0000000001, CAST(1.4E-45 AS REAL), 4.9E-324, 'A', X'0102', DATE '1582-10-15',"
          + " TIME '02:30:00', TIMESTAMP '2024-03-31 02:30:00', CAST(TIMESTAMP '2024-10-27 02:30:00' AS TIMESTAMP WITH LOCAL TIME ZONE),"
          + " ARRAY[2], ARRAY['A', 'a'], MAP['b', 2, 'B', 3], ROW(2, 'A'))",
      "(NULL, 42, NULL, 42.00, NULL, NULL, 42E0, NULL, NULL, DATE '2038-01-19', NULL, TIMESTAMP '2038-01-19 03:14:08', NULL,"
          + " NULL, NULL, NULL, NULL)");

  /**
   * A string expression of {@code value}: characters outside ISO-8859-1 as CHR(code point), since
   * SQE refuses them in literals for now (issue 22, being fixed); the fixture must not wait for it.
   */
  static String text(String value) {
    List<String> parts = new java.util.ArrayList<>();
    StringBuilder plain = new StringBuilder();
    value.codePoints().forEach(cp -> {
      if (cp <= 0xff) {
        plain.appendCodePoint(cp);
        return;
      }
      if (plain.length() > 0) {
        parts.add(Literals.quote(plain.toString()));
        plain.setLength(0);
      }
      parts.add("CHR(" + cp + ")");
    });
    if (plain.length() > 0 || parts.isEmpty()) {
      parts.add(Literals.quote(plain.toString()));
    }
    return parts.size() == 1 ? parts.get(0) : "(" + String.join(" || ", parts) + ")";
  }

  private static String declaration(Map<String, FuzzType> columns) {
    StringBuilder sql = new StringBuilder("(");
    columns.forEach((name, type) -> sql.append(sql.length() > 1 ? ", " : "").append(name).append(' ').append(type.sql()));
    return sql.append(')').toString();
  }

  private static Map<String, FuzzType> columns(Object... pairs) {
    Map<String, FuzzType> columns = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      columns.put((String) pairs[i], (FuzzType) pairs[i + 1]);
    }
    return columns;
  }
}
