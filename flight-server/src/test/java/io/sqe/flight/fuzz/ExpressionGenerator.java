package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import io.sqe.flight.fuzz.FuzzType.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Builds SQL expressions of a requested {@link FuzzType} to a bounded depth: literals, columns,
 * arithmetic, comparisons, boolean logic, CASE, COALESCE, NULLIF, CAST and TRY_CAST between
 * types, SQE's function library (scalar, aggregate and window), LIKE with ESCAPE, regular
 * expressions, IN lists, BETWEEN and sub-queries. The type is followed as a family (an INTEGER
 * expression may be a BIGINT in SQL); where an exact type matters the caller casts.
 *
 * <p>One node per statement at most is deliberately of another type than asked for, when the
 * statement was granted it ({@link #allowIllTyped}).
 */
final class ExpressionGenerator {
  /** Makes the sub-queries an expression may hold. */
  interface Subqueries {
    /** A query of one column of {@code type}, possibly correlated with {@code outer}. */
    String column(FuzzType type, Scope outer, int depth);

    /** A query of any columns, possibly correlated with {@code outer}, for EXISTS. */
    String any(Scope outer, int depth);
  }

  private static final List<String> DATE_UNITS = List.of("year", "quarter", "month", "week", "day");
  private static final List<String> TIME_UNITS = List.of("hour", "minute", "second", "millisecond");
  private static final List<String> FORMATS = List.of(
      "'YYYY-MM-DD'", "'YYYY-MM-DD HH24:MI:SS'", "'MM/DD/YYYY'", "'Day, DD Month YYYY'", "'IYYY-IW'", "'HH12:MI AM'",
      "'US'", "'\"quoted\" YYYY'", "''", "'FMDay'", "'Q'", "'J'", "'TZ'", "'yyyy-mm-dd'");

  private final Random random;
  private final Literals literals;
  private final Subqueries subqueries;
  private boolean illTyped;

  ExpressionGenerator(Random random, Literals literals, Subqueries subqueries) {
    this.random = requireNonNull(random, "random is null");
    this.literals = requireNonNull(literals, "literals is null");
    this.subqueries = requireNonNull(subqueries, "subqueries is null");
  }

  /** Lets the next expressions hold one node of a type other than asked for. */
  void allowIllTyped(boolean allowed) {
    illTyped = allowed;
  }

  String predicate(Scope scope, int depth) {
    return expression(FuzzType.BOOLEAN, scope, depth);
  }

  String expression(FuzzType type, Scope scope, int depth) {
    if (illTyped && random.nextInt(6) == 0) {
      illTyped = false;
      type = pick(FuzzType.ALL);
    }
    if (depth <= 0 || random.nextInt(5) == 0) {
      return leaf(type, scope);
    }
    int choice = random.nextInt(100);
    if (choice < 12) {
      return common(type, scope, depth - 1);
    }
    if (choice < 22 && scope.aggregateInput() != null) {
      return aggregate(type, scope, depth - 1);
    }
    if (choice < 27 && scope.windows()) {
      return window(type, scope, depth - 1);
    }
    return switch (type.kind()) {
      case BOOLEAN -> bool(scope, depth - 1);
      case TINYINT, SMALLINT, INTEGER, BIGINT -> integer(type, scope, depth - 1);
      case DECIMAL -> decimal(type, scope, depth - 1);
      case REAL, DOUBLE -> floating(type, scope, depth - 1);
      case VARCHAR -> string(scope, depth - 1);
      case VARBINARY -> binary(scope, depth - 1);
      case DATE -> date(scope, depth - 1);
      case TIME -> time(scope, depth - 1);
      case TIMESTAMP -> timestamp(scope, depth - 1);
      case TIMESTAMPTZ -> timestamptz(scope, depth - 1);
      case ARRAY -> array(type, scope, depth - 1);
      case MAP, ROW -> leaf(type, scope);
    };
  }

  /** A column of the type when there is one, else a literal. */
  String leaf(FuzzType type, Scope scope) {
    List<Scope.Column> columns = scope.ofType(type);
    if (!columns.isEmpty() && random.nextInt(10) < 6) {
      return pick(columns).sql();
    }
    if (!scope.columns().isEmpty() && random.nextInt(12) == 0 && !type.isNested()) {
      // Another type's column, converted.
      return "CAST(" + pick(scope.columns()).sql() + " AS " + type.sql() + ")";
    }
    return literals.of(type);
  }

  private String common(FuzzType type, Scope scope, int depth) {
    switch (random.nextInt(type.isOrdered() ? 11 : 8)) {
      case 0:
        return "CASE WHEN " + predicate(scope, depth) + " THEN " + expression(type, scope, depth)
            + (random.nextBoolean() ? " WHEN " + predicate(scope, depth) + " THEN " + expression(type, scope, depth) : "")
            + (random.nextInt(4) == 0 ? "" : " ELSE " + expression(type, scope, depth)) + " END";
      case 1: {
        FuzzType operand = pick(FuzzType.SCALARS);
        return "CASE " + expression(operand, scope, depth) + " WHEN " + expression(operand, scope, depth) + " THEN "
            + expression(type, scope, depth) + " ELSE " + expression(type, scope, depth) + " END";
      }
      case 2:
        return "COALESCE(" + expression(type, scope, depth) + ", " + expression(type, scope, depth)
            + (random.nextBoolean() ? ", " + expression(type, scope, depth) : "") + ")";
      case 3:
      case 4:
        return cast(type, scope, depth);
      case 5:
        return "(" + subqueries.column(type, scope, depth) + ")";
      case 6:
        return "(" + expression(type, scope, depth) + ")";
      case 7:
        return leaf(type, scope);
      case 8:
        return "NULLIF(" + expression(type, scope, depth) + ", " + expression(type, scope, depth) + ")";
      default:
        return pick(List.of("GREATEST(", "LEAST(")) + expression(type, scope, depth) + ", " + expression(type, scope, depth)
            + (random.nextBoolean() ? ", " + expression(type, scope, depth) : "") + ")";
    }
  }

  /** A conversion into {@code type} from a value of some (mostly other) scalar type. */
  private String cast(FuzzType type, Scope scope, int depth) {
    FuzzType from = random.nextInt(3) == 0 ? FuzzType.VARCHAR : pick(FuzzType.SCALARS);
    String value = expression(from, scope, depth);
    String target = type.kind() == Kind.DECIMAL && random.nextBoolean() ? randomDecimal().sql() : type.sql();
    return switch (random.nextInt(4)) {
      case 0 -> "TRY_CAST(" + value + " AS " + target + ")";
      case 1 -> "(" + value + ")::" + target;
      default -> "CAST(" + value + " AS " + target + ")";
    };
  }

  private FuzzType randomDecimal() {
    int precision = 1 + random.nextInt(38);
    return FuzzType.decimal(precision, random.nextInt(precision + 1));
  }

  private String bool(Scope scope, int depth) {
    FuzzType operand = pick(FuzzType.ALL);
    switch (random.nextInt(20)) {
      case 0:
      case 1:
      case 2: {
        FuzzType ordered = operand.isOrdered() ? operand : FuzzType.INTEGER;
        return "(" + expression(ordered, scope, depth) + " " + pick(List.of("=", "<>", "<", "<=", ">", ">=", "!="))
            + " " + expression(ordered, scope, depth) + ")";
      }
      case 3:
        return "(" + expression(operand, scope, depth) + " IS " + pick(List.of("", "NOT ")) + "DISTINCT FROM "
            + expression(operand, scope, depth) + ")";
      case 4:
      case 5:
        return "(" + predicate(scope, depth) + pick(List.of(" AND ", " OR ")) + predicate(scope, depth) + ")";
      case 6:
        return "NOT (" + predicate(scope, depth) + ")";
      case 7:
        return "(" + expression(operand, scope, depth) + " IS " + pick(List.of("", "NOT ")) + "NULL)";
      case 8:
        return "(" + predicate(scope, depth) + ") IS " + pick(List.of("", "NOT ")) + pick(List.of("TRUE", "FALSE", "UNKNOWN"));
      case 9: {
        FuzzType ordered = operand.isOrdered() ? operand : FuzzType.DOUBLE;
        return "(" + expression(ordered, scope, depth) + pick(List.of(" BETWEEN ", " NOT BETWEEN ", " BETWEEN SYMMETRIC "))
            + expression(ordered, scope, depth) + " AND " + expression(ordered, scope, depth) + ")";
      }
      case 10: {
        FuzzType scalar = operand.isNested() ? FuzzType.VARCHAR : operand;
        StringBuilder in = new StringBuilder("(" + expression(scalar, scope, depth) + pick(List.of(" IN (", " NOT IN (")));
        int size = 1 + random.nextInt(random.nextInt(10) == 0 ? 60 : 5);
        for (int i = 0; i < size; i++) {
          in.append(i == 0 ? "" : ", ").append(i < 3 ? expression(scalar, scope, depth) : literals.of(scalar));
        }
        return in.append("))").toString();
      }
      case 11: {
        FuzzType scalar = operand.isNested() ? FuzzType.INTEGER : operand;
        return "(" + expression(scalar, scope, depth) + pick(List.of(" IN (", " NOT IN (", " = ANY (", " > ALL (", " <> SOME ("))
            + subqueries.column(scalar, scope, depth) + "))";
      }
      case 12:
        return pick(List.of("EXISTS (", "NOT EXISTS (")) + subqueries.any(scope, depth) + ")";
      case 13:
      case 14:
        return "(" + expression(FuzzType.VARCHAR, scope, depth) + pick(List.of(" LIKE ", " NOT LIKE ", " ILIKE ", " NOT ILIKE "))
            + (random.nextInt(4) == 0 ? expression(FuzzType.VARCHAR, scope, depth) : literals.likePattern())
            + (random.nextInt(4) == 0 ? " ESCAPE " + pick(List.of("'\\'", "'!'", "'%'", "''", "'ab'", "'\ud83d\ude00'")) : "")
            + ")";
      case 15:
        return switch (random.nextInt(4)) {
          case 0 -> "(" + expression(FuzzType.VARCHAR, scope, depth) + pick(List.of(" ~ ", " !~ ", " ~* ")) + literals.regex() + ")";
          case 1 -> "REGEXP_LIKE(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + literals.regex() + ")";
          case 2 -> "(" + expression(FuzzType.VARCHAR, scope, depth) + pick(List.of(" SIMILAR TO ", " NOT SIMILAR TO "))
              + literals.regex() + ")";
          default -> "STARTS_WITH(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
        };
      case 16: {
        FuzzType nested = pick(List.of(FuzzType.INT_ARRAY, FuzzType.VARCHAR_ARRAY, FuzzType.ROW, FuzzType.MAP));
        return "(" + expression(nested, scope, depth) + pick(List.of(" = ", " <> ", " IS NOT DISTINCT FROM "))
            + expression(nested, scope, depth) + ")";
      }
      case 17:
        return "(" + expression(FuzzType.BOOLEAN, scope, depth) + pick(List.of(" = ", " < ")) + expression(FuzzType.BOOLEAN, scope, depth) + ")";
      default:
        return leaf(FuzzType.BOOLEAN, scope);
    }
  }

  private String integer(FuzzType type, Scope scope, int depth) {
    switch (random.nextInt(24)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return "(" + expression(type, scope, depth) + " " + pick(List.of("+", "-", "*", "/", "%")) + " "
            + expression(type, scope, depth) + ")";
      case 4:
        return "(- " + expression(type, scope, depth) + ")";
      case 5:
        return pick(List.of("ABS(", "SIGN(", "CEIL(", "FLOOR(")) + expression(type, scope, depth) + ")";
      case 6:
        return "MOD(" + expression(type, scope, depth) + ", " + expression(type, scope, depth) + ")";
      case 7:
        return pick(List.of("CHAR_LENGTH(", "LENGTH(", "OCTET_LENGTH(", "ASCII(")) + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 8:
        return random.nextBoolean()
            ? "POSITION(" + expression(FuzzType.VARCHAR, scope, depth) + " IN " + expression(FuzzType.VARCHAR, scope, depth) + ")"
            : "STRPOS(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 9:
        return "CARDINALITY(" + expression(pick(List.of(FuzzType.INT_ARRAY, FuzzType.VARCHAR_ARRAY)), scope, depth) + ")";
      case 10:
        return expression(FuzzType.INT_ARRAY, scope, depth) + "[" + expression(FuzzType.INTEGER, scope, depth) + "]";
      case 11:
        return mapOrRowField(scope, depth);
      case 12:
        return "EXTRACT(" + pick(List.of("YEAR", "MONTH", "DAY", "QUARTER", "WEEK", "DOW", "DOY", "EPOCH", "CENTURY", "MILLENNIUM"))
            + " FROM " + expression(pick(List.of(FuzzType.DATE, FuzzType.TIMESTAMP)), scope, depth) + ")";
      case 13:
        return "EXTRACT(" + pick(List.of("HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND")) + " FROM "
            + expression(pick(List.of(FuzzType.TIME, FuzzType.TIMESTAMP)), scope, depth) + ")";
      case 14:
        return pick(List.of("YEAR(", "MONTH(", "DAYOFWEEK(", "DAYOFYEAR(", "QUARTER(", "WEEK(")) + expression(FuzzType.DATE, scope, depth) + ")";
      case 15:
        return pick(List.of("DATEDIFF(", "DATE_DIFF(")) + "'" + pick(DATE_UNITS) + "', " + expression(FuzzType.DATE, scope, depth) + ", "
            + expression(FuzzType.DATE, scope, depth) + ")";
      case 16:
        return "TIMESTAMPDIFF(" + pick(List.of("DAY", "HOUR", "MICROSECOND", "MONTH", "YEAR", "SECOND")) + ", "
            + expression(FuzzType.TIMESTAMP, scope, depth) + ", " + expression(FuzzType.TIMESTAMP, scope, depth) + ")";
      case 17:
        return pick(List.of("BITAND(", "BITOR(", "BITXOR(")) + expression(type, scope, depth) + ", " + expression(type, scope, depth) + ")";
      case 18:
        return "ROUND(" + expression(FuzzType.DOUBLE, scope, depth) + ")";
      case 19:
        return "DATE_PART('" + pick(DATE_UNITS) + "', " + expression(FuzzType.TIMESTAMP, scope, depth) + ")";
      default:
        return leaf(type, scope);
    }
  }

  /** An integer read from a map or a row. */
  private String mapOrRowField(Scope scope, int depth) {
    List<Scope.Column> rows = scope.ofType(FuzzType.ROW);
    if (!rows.isEmpty() && random.nextBoolean()) {
      return pick(rows).sql() + ".a";
    }
    return expression(FuzzType.MAP, scope, depth) + "[" + expression(FuzzType.VARCHAR, scope, depth) + "]";
  }

  private String decimal(FuzzType type, Scope scope, int depth) {
    switch (random.nextInt(10)) {
      case 0:
      case 1:
      case 2:
        return "(" + expression(type, scope, depth) + " " + pick(List.of("+", "-", "*", "/", "%")) + " "
            + expression(pick(List.of(type, FuzzType.INTEGER, FuzzType.DECIMAL_38_10)), scope, depth) + ")";
      case 3:
        return pick(List.of("ROUND(", "TRUNCATE(")) + expression(type, scope, depth) + ", " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 4:
        return pick(List.of("ABS(", "CEIL(", "FLOOR(", "(- ")) + expression(type, scope, depth) + ")";
      case 5:
        return "MOD(" + expression(type, scope, depth) + ", " + expression(type, scope, depth) + ")";
      default:
        return leaf(type, scope);
    }
  }

  private String floating(FuzzType type, Scope scope, int depth) {
    FuzzType number = pick(List.of(type, FuzzType.DOUBLE, FuzzType.INTEGER, FuzzType.DECIMAL_12_2));
    switch (random.nextInt(10)) {
      case 0:
      case 1:
        return "(" + expression(type, scope, depth) + " " + pick(List.of("+", "-", "*", "/")) + " " + expression(number, scope, depth) + ")";
      case 2:
      case 3:
        return pick(List.of("SQRT(", "LN(", "LOG10(", "EXP(", "SIN(", "COS(", "TAN(", "ASIN(", "ACOS(", "ATAN(", "COT(",
            "DEGREES(", "RADIANS(", "CBRT(", "SINH(", "COSH(", "TANH(", "ACOSH(", "ATANH(", "COSD(", "CSC(", "SEC("))
            + expression(number, scope, depth) + ")";
      case 4:
        return pick(List.of("POWER(", "ATAN2(", "LOG(")) + expression(number, scope, depth) + ", " + expression(number, scope, depth) + ")";
      case 5:
        return "ROUND(" + expression(type, scope, depth) + ", " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 6:
        return pick(List.of("PI()", "PI"));
      default:
        return leaf(type, scope);
    }
  }

  private String string(Scope scope, int depth) {
    String s = expression(FuzzType.VARCHAR, scope, depth);
    switch (random.nextInt(30)) {
      case 0:
      case 1:
        return "(" + s + " || " + expression(pick(List.of(FuzzType.VARCHAR, FuzzType.VARCHAR, FuzzType.INTEGER, FuzzType.DATE)), scope, depth) + ")";
      case 2:
        return "CONCAT(" + s + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 3:
        return "CONCAT_WS(" + literals.string() + ", " + s + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 4:
        return random.nextBoolean()
            ? "SUBSTRING(" + s + " FROM " + expression(FuzzType.INTEGER, scope, depth)
                + (random.nextBoolean() ? " FOR " + expression(FuzzType.INTEGER, scope, depth) : "") + ")"
            : pick(List.of("SUBSTRING(", "SUBSTR(")) + s + ", " + expression(FuzzType.INTEGER, scope, depth) + ", "
                + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 5:
        return pick(List.of("UPPER(", "LOWER(", "INITCAP(", "LTRIM(", "RTRIM(", "MD5(", "SHA1(", "SHA256(", "SOUNDEX(")) + s + ")";
      case 6:
        return "TRIM(" + pick(List.of("BOTH ", "LEADING ", "TRAILING ", "")) + (random.nextBoolean() ? literals.string() + " " : "")
            + "FROM " + s + ")";
      case 7:
        return "REPLACE(" + s + ", " + expression(FuzzType.VARCHAR, scope, depth) + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 8:
        return pick(List.of("LPAD(", "RPAD(")) + s + ", " + expression(FuzzType.INTEGER, scope, depth)
            + (random.nextBoolean() ? ", " + expression(FuzzType.VARCHAR, scope, depth) : "") + ")";
      case 9:
        return pick(List.of("LEFT(", "RIGHT(")) + s + ", " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 10:
        return "SPLIT_PART(" + s + ", " + expression(FuzzType.VARCHAR, scope, depth) + ", " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 11:
        return "REGEXP_REPLACE(" + s + ", " + literals.regex() + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 12:
        return "REPEAT(" + s + ", " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 13:
        return "TRANSLATE(" + s + ", " + expression(FuzzType.VARCHAR, scope, depth) + ", " + expression(FuzzType.VARCHAR, scope, depth) + ")";
      case 14:
        return "OVERLAY(" + s + " PLACING " + expression(FuzzType.VARCHAR, scope, depth) + " FROM "
            + expression(FuzzType.INTEGER, scope, depth) + (random.nextBoolean() ? " FOR " + expression(FuzzType.INTEGER, scope, depth) : "") + ")";
      case 15:
        return "CHR(" + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 16:
        return "TO_CHAR(" + expression(pick(List.of(FuzzType.TIMESTAMP, FuzzType.DATE, FuzzType.TIMESTAMPTZ)), scope, depth) + ", "
            + pick(FORMATS) + ")";
      case 17:
        return "CAST(" + expression(pick(FuzzType.SCALARS), scope, depth) + " AS VARCHAR)";
      case 18:
        return pick(List.of("ARRAY_JOIN(", "ARRAY_TO_STRING(")) + expression(FuzzType.VARCHAR_ARRAY, scope, depth) + ", "
            + literals.string() + (random.nextBoolean() ? ", " + literals.string() : "") + ")";
      case 19:
        return pick(List.of("CURRENT_USER", "SESSION_USER", "CURRENT_CATALOG", "CURRENT_SCHEMA", "CURRENT_SCHEMA()", "USER"));
      case 20:
        return expression(FuzzType.VARCHAR_ARRAY, scope, depth) + "[" + expression(FuzzType.INTEGER, scope, depth) + "]";
      case 21:
        List<Scope.Column> rows = scope.ofType(FuzzType.ROW);
        return rows.isEmpty() ? s : pick(rows).sql() + ".b";
      default:
        return s;
    }
  }

  private String binary(Scope scope, int depth) {
    return switch (random.nextInt(5)) {
      case 0 -> "(" + expression(FuzzType.VARBINARY, scope, depth) + " || " + expression(FuzzType.VARBINARY, scope, depth) + ")";
      case 1 -> "SUBSTRING(" + expression(FuzzType.VARBINARY, scope, depth) + " FROM " + expression(FuzzType.INTEGER, scope, depth)
          + " FOR " + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 2 -> "CAST(" + expression(FuzzType.VARCHAR, scope, depth) + " AS VARBINARY)";
      default -> leaf(FuzzType.VARBINARY, scope);
    };
  }

  private String date(Scope scope, int depth) {
    return switch (random.nextInt(11)) {
      case 0, 1 -> "(" + expression(FuzzType.DATE, scope, depth) + pick(List.of(" + ", " - ")) + literals.interval() + ")";
      case 2 -> "CAST(" + expression(pick(List.of(FuzzType.TIMESTAMP, FuzzType.VARCHAR, FuzzType.TIMESTAMPTZ)), scope, depth) + " AS DATE)";
      case 3 -> "DATE(" + expression(pick(List.of(FuzzType.TIMESTAMP, FuzzType.VARCHAR)), scope, depth) + ")";
      case 4 -> "TO_DATE(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + pick(FORMATS) + ")";
      case 5 -> "LAST_DAY(" + expression(FuzzType.DATE, scope, depth) + ")";
      case 6 -> "DATE_ADD('" + pick(DATE_UNITS) + "', " + expression(FuzzType.INTEGER, scope, depth) + ", " + expression(FuzzType.DATE, scope, depth) + ")";
      case 7 -> "TIMESTAMPADD(" + pick(List.of("DAY", "MONTH", "YEAR", "WEEK")) + ", " + expression(FuzzType.INTEGER, scope, depth) + ", "
          + expression(FuzzType.DATE, scope, depth) + ")";
      default -> leaf(FuzzType.DATE, scope);
    };
  }

  private String time(Scope scope, int depth) {
    return switch (random.nextInt(5)) {
      case 0 -> "(" + expression(FuzzType.TIME, scope, depth) + pick(List.of(" + ", " - ")) + pick(List.of(
          "INTERVAL '1' HOUR", "INTERVAL '90' MINUTE", "INTERVAL '0.001' SECOND", "INTERVAL '25' HOUR")) + ")";
      case 1 -> "CAST(" + expression(pick(List.of(FuzzType.TIMESTAMP, FuzzType.VARCHAR)), scope, depth) + " AS TIME)";
      case 2 -> "FLOOR(" + expression(FuzzType.TIME, scope, depth) + " TO " + pick(List.of("HOUR", "MINUTE", "SECOND")) + ")";
      default -> leaf(FuzzType.TIME, scope);
    };
  }

  private String timestamp(Scope scope, int depth) {
    return switch (random.nextInt(13)) {
      case 0, 1 -> "(" + expression(FuzzType.TIMESTAMP, scope, depth) + pick(List.of(" + ", " - ")) + literals.interval() + ")";
      case 2 -> "DATE_TRUNC('" + pick(concat(DATE_UNITS, TIME_UNITS)) + "', " + expression(FuzzType.TIMESTAMP, scope, depth) + ")";
      case 3 -> pick(List.of("FLOOR(", "CEIL(")) + expression(FuzzType.TIMESTAMP, scope, depth) + " TO "
          + pick(List.of("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "WEEK")) + ")";
      case 4 -> "TIMESTAMPADD(" + pick(List.of("DAY", "HOUR", "MICROSECOND", "MONTH", "SECOND", "YEAR")) + ", "
          + expression(FuzzType.INTEGER, scope, depth) + ", " + expression(FuzzType.TIMESTAMP, scope, depth) + ")";
      case 5 -> "TO_TIMESTAMP(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + pick(FORMATS) + ")";
      case 6 -> "CAST(" + expression(pick(List.of(FuzzType.DATE, FuzzType.VARCHAR, FuzzType.TIMESTAMPTZ)), scope, depth) + " AS TIMESTAMP)";
      case 7 -> "DATE_ADD('" + pick(concat(DATE_UNITS, TIME_UNITS)) + "', " + expression(FuzzType.INTEGER, scope, depth) + ", "
          + expression(FuzzType.TIMESTAMP, scope, depth) + ")";
      case 8 -> pick(List.of("NOW()", "LOCALTIMESTAMP"));
      default -> leaf(FuzzType.TIMESTAMP, scope);
    };
  }

  private String timestamptz(Scope scope, int depth) {
    return switch (random.nextInt(5)) {
      case 0 -> "CAST(" + expression(pick(List.of(FuzzType.TIMESTAMP, FuzzType.VARCHAR, FuzzType.DATE)), scope, depth)
          + " AS " + pick(List.of("TIMESTAMP WITH LOCAL TIME ZONE", "timestamptz")) + ")";
      case 1 -> "(" + expression(FuzzType.TIMESTAMPTZ, scope, depth) + pick(List.of(" + ", " - ")) + literals.interval() + ")";
      default -> leaf(FuzzType.TIMESTAMPTZ, scope);
    };
  }

  private String array(FuzzType type, Scope scope, int depth) {
    FuzzType element = type.element();
    return switch (random.nextInt(8)) {
      case 0 -> "ARRAY[" + expression(element, scope, depth) + (random.nextBoolean() ? ", " + expression(element, scope, depth) : "") + "]";
      case 1 -> "ARRAY_CONCAT(" + expression(type, scope, depth) + ", " + expression(type, scope, depth) + ")";
      case 2 -> "(" + expression(type, scope, depth) + " || " + expression(type, scope, depth) + ")";
      case 3 -> "ARRAY_APPEND(" + expression(type, scope, depth) + ", " + expression(element, scope, depth) + ")";
      case 4 -> "SLICE(" + expression(type, scope, depth) + ", " + expression(FuzzType.INTEGER, scope, depth) + ", "
          + expression(FuzzType.INTEGER, scope, depth) + ")";
      case 5 -> element.kind() == Kind.VARCHAR
          ? "STRING_TO_ARRAY(" + expression(FuzzType.VARCHAR, scope, depth) + ", " + literals.string() + ")"
          : "ARRAY(" + subqueries.column(element, scope, depth) + ")";
      default -> leaf(type, scope);
    };
  }

  private String aggregate(FuzzType type, Scope scope, int depth) {
    Scope rows = Scope.rows(scope.aggregateInput());
    String call;
    if (type.isNumeric() && random.nextInt(3) > 0) {
      FuzzType argument = pick(List.of(type, FuzzType.INTEGER, FuzzType.DOUBLE, FuzzType.DECIMAL_12_2, FuzzType.BIGINT));
      String distinct = random.nextInt(5) == 0 ? "DISTINCT " : "";
      call = switch (random.nextInt(9)) {
        case 0 -> "COUNT(*)";
        case 1 -> "COUNT(" + distinct + expression(pick(FuzzType.ALL), rows, depth) + ")";
        case 2, 3 -> "SUM(" + distinct + expression(argument, rows, depth) + ")";
        case 4 -> "AVG(" + distinct + expression(argument, rows, depth) + ")";
        case 5 -> pick(List.of("STDDEV_SAMP(", "STDDEV_POP(", "VAR_SAMP(", "VAR_POP(", "STDDEV(", "VARIANCE("))
            + expression(argument, rows, depth) + ")";
        case 6 -> pick(List.of("PERCENTILE_CONT(", "PERCENTILE_DISC(")) + pick(List.of("0.5", "0", "1", "0.99", "1.5", "-0.1"))
            + ") WITHIN GROUP (ORDER BY " + expression(argument, rows, depth) + ")";
        case 7 -> pick(List.of("COVAR_POP(", "COVAR_SAMP(", "REGR_SXX(", "REGR_COUNT(")) + expression(argument, rows, depth) + ", "
            + expression(argument, rows, depth) + ")";
        default -> pick(List.of("MIN(", "MAX(", "ANY_VALUE(")) + expression(type, rows, depth) + ")";
      };
    } else if (type.kind() == Kind.BOOLEAN && random.nextBoolean()) {
      call = pick(List.of("BOOL_AND(", "BOOL_OR(", "EVERY(", "SOME(")) + predicate(rows, depth) + ")";
    } else if (type.kind() == Kind.VARCHAR && random.nextBoolean()) {
      call = random.nextBoolean()
          ? "STRING_AGG(" + expression(FuzzType.VARCHAR, rows, depth) + ", " + literals.string() + ")"
          : "LISTAGG(" + (random.nextBoolean() ? "DISTINCT " : "") + expression(FuzzType.VARCHAR, rows, depth) + ", " + literals.string() + ")";
    } else if (type.kind() == Kind.ARRAY && random.nextBoolean()) {
      call = "ARRAY_AGG(" + expression(type.element(), rows, depth)
          + (random.nextBoolean() ? " ORDER BY " + expression(pick(FuzzType.SCALARS), rows, depth) : "") + ")";
    } else {
      call = pick(List.of("MIN(", "MAX(", "ANY_VALUE(", "MODE(")) + expression(type, rows, depth) + ")";
    }
    if (random.nextInt(6) == 0) {
      call += " FILTER (WHERE " + predicate(rows, depth) + ")";
    }
    return call;
  }

  private String window(FuzzType type, Scope scope, int depth) {
    Scope arguments = new Scope(scope.columns(), scope.aggregateInput(), false);
    String function;
    if (type.isInteger() && random.nextBoolean()) {
      function = pick(List.of("ROW_NUMBER()", "RANK()", "DENSE_RANK()", "COUNT(*)", "NTILE(" + pick(List.of("1", "3", "0", "-1", "1000")) + ")"));
    } else if (type.kind() == Kind.DOUBLE && random.nextBoolean()) {
      function = pick(List.of("CUME_DIST()", "PERCENT_RANK()", "AVG(" + expression(FuzzType.DOUBLE, arguments, depth) + ")"));
    } else if (type.isNumeric() && random.nextBoolean()) {
      function = "SUM(" + expression(type, arguments, depth) + ")";
    } else {
      String value = expression(type, arguments, depth);
      function = switch (random.nextInt(6)) {
        case 0 -> pick(List.of("LAG(", "LEAD(")) + value + (random.nextBoolean() ? ", " + pick(List.of("1", "2", "0", "100")) : "") + ")";
        case 1 -> "FIRST_VALUE(" + value + ")";
        case 2 -> "LAST_VALUE(" + value + ")";
        case 3 -> "NTH_VALUE(" + value + ", " + pick(List.of("1", "2", "5")) + ")";
        default -> pick(List.of("MIN(", "MAX(")) + value + ")";
      };
    }
    StringBuilder over = new StringBuilder(function + " OVER (");
    if (random.nextBoolean()) {
      over.append("PARTITION BY ").append(expression(pick(FuzzType.SCALARS), arguments, depth)).append(' ');
    }
    boolean ordered = random.nextInt(4) > 0;
    if (ordered) {
      over.append("ORDER BY ").append(expression(pick(FuzzType.SCALARS), arguments, depth))
          .append(pick(List.of("", " DESC", " NULLS FIRST", " DESC NULLS LAST")));
      if (random.nextInt(3) == 0) {
        over.append(pick(List.of(
            " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", " ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
            " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", " ROWS 2 PRECEDING", " ROWS BETWEEN 5 FOLLOWING AND 1 PRECEDING")));
      }
    }
    return over.append(')').toString();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
