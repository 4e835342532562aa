package io.sqe.infoschema;

import io.sqe.catalog.types.TrinoType;
import java.sql.Types;

/**
 * What JDBC's metadata says of a Trino type, as Trino's {@code system.jdbc} tables say it: the
 * {@code java.sql.Types} code, the column size (digits of a number, characters of a bounded
 * string), the decimal digits (a decimal's scale, a time's fraction digits) and the radix.
 */
final class JdbcTypes {
  private JdbcTypes() {}

  static long dataType(TrinoType type) {
    switch (type.rawType()) {
      case "boolean":
        return Types.BOOLEAN;
      case "tinyint":
        return Types.TINYINT;
      case "smallint":
        return Types.SMALLINT;
      case "integer":
        return Types.INTEGER;
      case "bigint":
        return Types.BIGINT;
      case "real":
        return Types.REAL;
      case "double":
        return Types.DOUBLE;
      case "decimal":
        return Types.DECIMAL;
      case "varchar":
        return Types.VARCHAR;
      case "varbinary":
        return Types.VARBINARY;
      case "date":
        return Types.DATE;
      case "time":
        return Types.TIME;
      case "timestamp":
        return Types.TIMESTAMP;
      case "timestamp with time zone":
        return Types.TIMESTAMP_WITH_TIMEZONE;
      case "array":
        return Types.ARRAY;
      default:
        return Types.JAVA_OBJECT;
    }
  }

  /** Digits of a number, characters of a bounded string or of a date or time's text; null for others. */
  static Long columnSize(TrinoType type) {
    switch (type.rawType()) {
      case "tinyint":
        return 3L;
      case "smallint":
        return 5L;
      case "integer":
        return 10L;
      case "bigint":
        return 19L;
      case "real":
        return 24L;
      case "double":
        return 53L;
      case "decimal":
        return (Long) type.arguments().get(0);
      case "varchar": {
        long length = (Long) type.arguments().get(0);
        return length == TrinoType.UNBOUNDED_LENGTH ? null : length;
      }
      case "varbinary":
        return (long) Integer.MAX_VALUE;
      case "date":
        // +5881580-07-11, the last day an int of days holds
        return 14L;
      case "time":
        return 8 + fraction(type);
      case "timestamp":
        return 19 + fraction(type);
      case "timestamp with time zone":
        return 19 + fraction(type) + 7;
      default:
        return null;
    }
  }

  /** A decimal's scale, a time's fraction digits, 0 for whole numbers; null for others. */
  static Long decimalDigits(TrinoType type) {
    switch (type.rawType()) {
      case "tinyint":
      case "smallint":
      case "integer":
      case "bigint":
        return 0L;
      case "decimal":
        return (Long) type.arguments().get(1);
      case "time":
      case "timestamp":
      case "timestamp with time zone":
        return (Long) type.arguments().get(0);
      default:
        return null;
    }
  }

  /** 10 for decimal numbers, 2 for binary floating point; null for others. */
  static Long radix(TrinoType type) {
    switch (type.rawType()) {
      case "tinyint":
      case "smallint":
      case "integer":
      case "bigint":
      case "decimal":
        return 10L;
      case "real":
      case "double":
        return 2L;
      default:
        return null;
    }
  }

  /** The characters a bounded string holds at most; null for others. */
  static Long charOctetLength(TrinoType type) {
    return type.rawType().equals("varchar") ? columnSize(type) : null;
  }

  /** The fraction digits of a time or timestamp and the point before them. */
  private static long fraction(TrinoType type) {
    long precision = (Long) type.arguments().get(0);
    return precision == 0 ? 0 : precision + 1;
  }
}
