package io.sqe.engine.sql.functions;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.linq4j.function.Strict;
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

/**
 * String functions whose Calcite versions differ from PostgreSQL and Trino, which SQE follows:
 * {@code split_part} (below) and {@code left} / {@code right}, whose Calcite versions take only an
 * INTEGER count.
 *
 * <p>{@code split_part(string, delimiter, n)}: Calcite's splits on the delimiter read as a regular
 * expression, so {@code split_part('a|b|c', '|', 3)} is {@code 'b'} there; here, as in PostgreSQL
 * and Trino, the delimiter is plain text.
 */
public final class StringFunctions {
  public static final SqlOperator SPLIT_PART =
      new SqlUserDefinedFunction(
          new SqlIdentifier("SPLIT_PART", SqlParserPos.ZERO),
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.VARCHAR_NULLABLE,
          InferTypes.FIRST_KNOWN,
          OperandTypes.operandMetadata(
              List.of(SqlTypeFamily.CHARACTER, SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER),
              types -> List.of(
                  types.createSqlType(SqlTypeName.VARCHAR),
                  types.createSqlType(SqlTypeName.VARCHAR),
                  types.createSqlType(SqlTypeName.BIGINT)),
              i -> List.of("string", "delimiter", "n").get(i),
              i -> false),
          ScalarFunctionImpl.create(method("splitPart", String.class, String.class, long.class)));

  /** {@code left(string, n)}: Calcite's takes only an INTEGER count, so a BIGINT column fails to compile. */
  public static final SqlOperator LEFT = substringFunction("LEFT", "left");

  /** {@code right(string, n)}, as {@link #LEFT}. */
  public static final SqlOperator RIGHT = substringFunction("RIGHT", "right");

  /** The functions that replace Calcite's of the same name. */
  public static final List<SqlOperator> ALL = List.of(SPLIT_PART, LEFT, RIGHT);

  private StringFunctions() {}

  /** Whether {@code operator} is a library function that one of {@link #ALL} replaces. */
  public static boolean isReplaced(SqlOperator operator) {
    return ALL.stream().anyMatch(o -> o.getName().equalsIgnoreCase(operator.getName()) && o != operator);
  }

  private static SqlOperator substringFunction(String name, String method) {
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name, SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.VARCHAR_NULLABLE,
        InferTypes.FIRST_KNOWN,
        OperandTypes.operandMetadata(
            List.of(SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER),
            types -> List.of(types.createSqlType(SqlTypeName.VARCHAR), types.createSqlType(SqlTypeName.BIGINT)),
            i -> List.of("string", "n").get(i),
            i -> false),
        ScalarFunctionImpl.create(method(method, String.class, long.class)));
  }

  private static Method method(String name, Class<?>... parameters) {
    try {
      return StringFunctions.class.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- called from generated code

  /**
   * Field {@code n} (from 1) of {@code s} split at each {@code delimiter}; a negative {@code n}
   * counts from the end (PostgreSQL 14). Empty past either end. An empty delimiter leaves {@code s}
   * whole, as one field.
   */
  @Strict
  public static String splitPart(String s, String delimiter, long n) {
    if (n == 0) {
      throw new IllegalArgumentException("split_part's field position must not be zero");
    }
    List<String> fields = delimiter.isEmpty() ? List.of(s) : fields(s, delimiter);
    long index = n > 0 ? n - 1 : fields.size() + n;
    return index < 0 || index >= fields.size() ? "" : fields.get((int) index);
  }

  /** The first {@code n} characters of {@code s}; a negative {@code n} drops that many from the end (PostgreSQL). */
  @Strict
  public static String left(String s, long n) {
    long length = n >= 0 ? Math.min(n, s.length()) : Math.max(0, s.length() + n);
    return s.substring(0, (int) length);
  }

  /** The last {@code n} characters of {@code s}; a negative {@code n} drops that many from the start (PostgreSQL). */
  @Strict
  public static String right(String s, long n) {
    long length = n >= 0 ? Math.min(n, s.length()) : Math.max(0, s.length() + n);
    return s.substring(s.length() - (int) length);
  }

  private static List<String> fields(String s, String delimiter) {
    List<String> fields = new ArrayList<>();
    int from = 0;
    for (int at = s.indexOf(delimiter); at >= 0; at = s.indexOf(delimiter, from)) {
      fields.add(s.substring(from, at));
      from = at + delimiter.length();
    }
    fields.add(s.substring(from));
    return fields;
  }
}
