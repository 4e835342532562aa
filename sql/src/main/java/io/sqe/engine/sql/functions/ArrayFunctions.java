package io.sqe.engine.sql.functions;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

/**
 * Array functions under the names Trino and PostgreSQL give them, which dbt's cross-database
 * macros write: {@code array_join} (Trino) and {@code array_to_string} (PostgreSQL) join string
 * elements with a delimiter, skipping NULL elements unless a third argument replaces them;
 * {@code array_concat} and {@code array_append}; and {@code slice} (below).
 *
 * <p>All but {@code slice} are Calcite's own library functions (from its Spark, Hive and BigQuery
 * libraries, which SQE does not load whole), so they plan and run as Calcite implements them.
 * Calcite's {@code ARRAY_SLICE} is Hive's (0-based, and empty when the range runs past the end),
 * so Trino's {@code slice} is SQE's own.
 */
public final class ArrayFunctions {
  /**
   * {@code slice(array, start, length)} as in Trino: {@code length} elements from position {@code
   * start} (from 1; a negative start counts from the end), fewer where the array ends first.
   */
  public static final SqlOperator SLICE =
      new SqlUserDefinedFunction(
          new SqlIdentifier("SLICE", SqlParserPos.ZERO),
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0_NULLABLE,
          InferTypes.FIRST_KNOWN,
          OperandTypes.operandMetadata(
              List.of(SqlTypeFamily.ARRAY, SqlTypeFamily.INTEGER, SqlTypeFamily.INTEGER),
              types -> List.of(
                  types.createArrayType(types.createSqlType(SqlTypeName.ANY), -1),
                  types.createSqlType(SqlTypeName.BIGINT),
                  types.createSqlType(SqlTypeName.BIGINT)),
              i -> List.of("array", "start", "length").get(i),
              i -> false),
          ScalarFunctionImpl.create(method("slice", List.class, long.class, long.class)));

  /** The functions to add to the operator table. */
  public static final List<SqlOperator> ALL =
      List.of(
          SLICE,
          SqlLibraryOperators.ARRAY_JOIN,
          SqlLibraryOperators.ARRAY_TO_STRING,
          SqlLibraryOperators.ARRAY_CONCAT,
          SqlLibraryOperators.ARRAY_APPEND);

  private ArrayFunctions() {}

  private static Method method(String name, Class<?>... parameters) {
    try {
      return ArrayFunctions.class.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- called from generated code

  /** Trino's {@code slice}; position 0 and a negative length are errors, as there. */
  @Strict
  public static List<?> slice(List<?> array, long start, long length) {
    if (start == 0) {
      throw new IllegalArgumentException("slice: array positions start at 1, not 0");
    }
    if (length < 0) {
      throw new IllegalArgumentException("slice: the length must not be negative, but is " + length);
    }
    long from = start > 0 ? start - 1 : array.size() + start;
    if (from < 0 || from >= array.size()) {
      return new ArrayList<>();
    }
    long to = Math.min(array.size(), from + length);
    return new ArrayList<>(array.subList((int) from, (int) to));
  }
}
