package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A SQL type the fuzzer builds expressions of: SQE's scalar types (docs/sql.md), decimals of any
 * precision and scale, and the nested types its tables hold (an array of integers or of strings,
 * a map from strings to integers, and a row of an integer {@code a} and a string {@code b}).
 */
record FuzzType(Kind kind, int precision, int scale, FuzzType element) {
  /** The families of types. */
  enum Kind {
    BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL, REAL, DOUBLE, VARCHAR, VARBINARY, DATE, TIME, TIMESTAMP,
    TIMESTAMPTZ, ARRAY, MAP, ROW
  }

  static final FuzzType BOOLEAN = of(Kind.BOOLEAN);
  static final FuzzType TINYINT = of(Kind.TINYINT);
  static final FuzzType SMALLINT = of(Kind.SMALLINT);
  static final FuzzType INTEGER = of(Kind.INTEGER);
  static final FuzzType BIGINT = of(Kind.BIGINT);
  static final FuzzType DECIMAL_12_2 = decimal(12, 2);
  static final FuzzType DECIMAL_38_10 = decimal(38, 10);
  static final FuzzType REAL = of(Kind.REAL);
  static final FuzzType DOUBLE = of(Kind.DOUBLE);
  static final FuzzType VARCHAR = of(Kind.VARCHAR);
  static final FuzzType VARBINARY = of(Kind.VARBINARY);
  static final FuzzType DATE = of(Kind.DATE);
  static final FuzzType TIME = of(Kind.TIME);
  static final FuzzType TIMESTAMP = of(Kind.TIMESTAMP);
  static final FuzzType TIMESTAMPTZ = of(Kind.TIMESTAMPTZ);
  static final FuzzType INT_ARRAY = new FuzzType(Kind.ARRAY, 0, 0, INTEGER);
  static final FuzzType VARCHAR_ARRAY = new FuzzType(Kind.ARRAY, 0, 0, VARCHAR);
  static final FuzzType MAP = of(Kind.MAP);
  static final FuzzType ROW = of(Kind.ROW);

  /** The scalar types, which CAST converts between. */
  static final List<FuzzType> SCALARS = List.of(
      BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL_12_2, DECIMAL_38_10, REAL, DOUBLE, VARCHAR, VARBINARY, DATE,
      TIME, TIMESTAMP, TIMESTAMPTZ);

  /** Every type the generator builds values of. */
  static final List<FuzzType> ALL = List.of(
      BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL_12_2, DECIMAL_38_10, REAL, DOUBLE, VARCHAR, VARBINARY, DATE,
      TIME, TIMESTAMP, TIMESTAMPTZ, INT_ARRAY, VARCHAR_ARRAY, MAP, ROW);

  FuzzType {
    requireNonNull(kind, "kind is null");
  }

  private static FuzzType of(Kind kind) {
    return new FuzzType(kind, 0, 0, null);
  }

  static FuzzType decimal(int precision, int scale) {
    return new FuzzType(Kind.DECIMAL, precision, scale, null);
  }

  /** The type as CAST and column declarations write it. */
  String sql() {
    return switch (kind) {
      case DECIMAL -> "DECIMAL(" + precision + ", " + scale + ")";
      case TIMESTAMPTZ -> "TIMESTAMP WITH LOCAL TIME ZONE";
      case ARRAY -> "ARRAY(" + element.sql() + ")";
      case MAP -> "MAP(VARCHAR, INTEGER)";
      case ROW -> "ROW(a INTEGER, b VARCHAR)";
      default -> kind.name();
    };
  }

  boolean isInteger() {
    return kind == Kind.TINYINT || kind == Kind.SMALLINT || kind == Kind.INTEGER || kind == Kind.BIGINT;
  }

  boolean isNumeric() {
    return isInteger() || kind == Kind.DECIMAL || kind == Kind.REAL || kind == Kind.DOUBLE;
  }

  boolean isTemporal() {
    return kind == Kind.DATE || kind == Kind.TIME || kind == Kind.TIMESTAMP || kind == Kind.TIMESTAMPTZ;
  }

  boolean isNested() {
    return kind == Kind.ARRAY || kind == Kind.MAP || kind == Kind.ROW;
  }

  /** Whether values of the type can be compared with {@code <} and sorted. */
  boolean isOrdered() {
    return !isNested();
  }
}
