package io.sqe.engine.sql.functions;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.calcite.adapter.enumerable.NullPolicy;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.impl.AggregateFunctionImpl;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedAggFunction;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.util.Optionality;

/**
 * Builds SQL functions from public static Java methods, as Trino's function library declares its
 * functions: the operands' types come from the parameters (String is VARCHAR, long BIGINT, double
 * DOUBLE, ByteString VARBINARY, List ARRAY, Map MAP), the result is nullable, and a method marked
 * {@code @Strict} gives NULL for a NULL argument without being called. An IllegalArgumentException
 * it throws reaches the client as INVALID_ARGUMENT with its message. A method whose first parameter
 * is a {@link org.apache.calcite.DataContext} gets the execution's (to reach its query's checkpoint
 * and limits); it is then strict whether marked or not, unless marked {@link TakesNulls}.
 */
final class JavaFunctions {
  private JavaFunctions() {}

  /** One function per public static method of {@code owner} named {@code method}, with the result type of its Java type. */
  static List<SqlOperator> scalar(String name, Class<?> owner, String method) {
    return scalar(name, owner, method, null);
  }

  /** As {@link #scalar(String, Class, String)}, with the given result type (made nullable). */
  static List<SqlOperator> scalar(String name, Class<?> owner, String method, SqlReturnTypeInference returns) {
    List<SqlOperator> functions = new ArrayList<>();
    for (Method m : methods(owner, method)) {
      SqlReturnTypeInference result = returns != null
          ? ReturnTypes.cascade(returns, SqlTypeTransforms.FORCE_NULLABLE)
          : ReturnTypes.cascade(ReturnTypes.explicit(f -> sqlType(f, m.getReturnType())), SqlTypeTransforms.FORCE_NULLABLE);
      functions.add(new SqlUserDefinedFunction(
          new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
          SqlKind.OTHER_FUNCTION,
          result,
          InferTypes.FIRST_KNOWN,
          operands(m.getParameterTypes(), ExecutionFunction.takesRoot(m) ? 1 : 0),
          implementation(m)));
    }
    if (functions.isEmpty()) {
      throw new IllegalStateException("No public static method " + owner.getName() + "." + method);
    }
    return functions;
  }

  /**
   * As {@link #scalar(String, Class, String, SqlReturnTypeInference)} for a single method, as a
   * system function: the grammar binds some names (MAP(...)) to built-in operators, whose lookup
   * finds only functions of that category.
   */
  static SqlOperator systemScalar(String name, Class<?> owner, String method, SqlReturnTypeInference returns) {
    Method m = methods(owner, method).get(0);
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.cascade(returns, SqlTypeTransforms.FORCE_NULLABLE),
        InferTypes.FIRST_KNOWN,
        operands(m.getParameterTypes(), 0),
        ScalarFunctionImpl.create(m),
        SqlFunctionCategory.SYSTEM,
        SqlSyntax.FUNCTION) {};
  }

  /**
   * One function for the method named {@code method} with these parameter families (for DATE,
   * TIMESTAMP and interval parameters, which Java types cannot tell apart: DATE is an int of days,
   * TIMESTAMP a long of milliseconds, INTERVAL DAY TO SECOND a long of milliseconds).
   */
  static SqlOperator scalar(String name, Class<?> owner, String method, SqlReturnTypeInference returns, SqlTypeFamily... families) {
    Method m = methods(owner, method).stream()
        .filter(c -> c.getParameterCount() == families.length)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("No " + owner.getName() + "." + method + " of " + families.length + " parameters"));
    List<SqlTypeFamily> operandFamilies = List.of(families);
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.cascade(returns, SqlTypeTransforms.FORCE_NULLABLE),
        InferTypes.FIRST_KNOWN,
        OperandTypes.operandMetadata(
            operandFamilies,
            f -> operandFamilies.stream().map(family -> typeOf(f, family)).toList(),
            i -> "arg" + i,
            i -> false),
        ScalarFunctionImpl.create(m));
  }

  private static org.apache.calcite.schema.Function implementation(Method m) {
    if (!ExecutionFunction.takesRoot(m)) {
      return ScalarFunctionImpl.create(m);
    }
    return ExecutionFunction.of(m, m.isAnnotationPresent(TakesNulls.class) ? NullPolicy.NONE : NullPolicy.STRICT);
  }

  private static RelDataType typeOf(RelDataTypeFactory types, SqlTypeFamily family) {
    return switch (family) {
      case DATE -> types.createSqlType(SqlTypeName.DATE);
      case TIMESTAMP -> types.createSqlType(SqlTypeName.TIMESTAMP, 3);
      case CHARACTER -> types.createSqlType(SqlTypeName.VARCHAR);
      case INTEGER -> types.createSqlType(SqlTypeName.BIGINT);
      case NUMERIC, APPROXIMATE_NUMERIC -> types.createSqlType(SqlTypeName.DOUBLE);
      case INTERVAL_DAY_TIME -> types.createSqlIntervalType(
          new org.apache.calcite.sql.SqlIntervalQualifier(org.apache.calcite.avatica.util.TimeUnit.DAY,
              org.apache.calcite.avatica.util.TimeUnit.SECOND, SqlParserPos.ZERO));
      default -> types.createSqlType(SqlTypeName.ANY);
    };
  }

  /**
   * An aggregate from a class with {@code init()}, {@code add(accumulator, value...)}, {@code
   * merge(a, b)} and {@code result(accumulator)}, as Calcite's user-defined aggregates are written.
   */
  static SqlOperator aggregate(String name, Class<?> implementation, SqlReturnTypeInference returns) {
    AggregateFunctionImpl function = Objects.requireNonNull(AggregateFunctionImpl.create(implementation), implementation.getName());
    Method add = methods(implementation, "add").get(0);
    return new SqlUserDefinedAggFunction(
        new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.cascade(returns, SqlTypeTransforms.FORCE_NULLABLE),
        InferTypes.FIRST_KNOWN,
        operands(add.getParameterTypes(), 1),
        function,
        false,
        false,
        Optionality.FORBIDDEN);
  }

  private static List<Method> methods(Class<?> owner, String method) {
    return Arrays.stream(owner.getMethods())
        .filter(m -> m.getName().equals(method) && m.getDeclaringClass() == owner)
        .toList();
  }

  private static org.apache.calcite.sql.type.SqlOperandMetadata operands(Class<?>[] parameters, int skip) {
    List<SqlTypeFamily> families = new ArrayList<>();
    List<Class<?>> types = new ArrayList<>();
    for (int i = skip; i < parameters.length; i++) {
      families.add(family(parameters[i]));
      types.add(parameters[i]);
    }
    return OperandTypes.operandMetadata(
        families,
        f -> types.stream().map(t -> sqlType(f, t)).toList(),
        i -> "arg" + i,
        i -> false);
  }

  private static SqlTypeFamily family(Class<?> type) {
    if (type == String.class) {
      return SqlTypeFamily.CHARACTER;
    }
    if (type == long.class || type == Long.class || type == int.class || type == Integer.class) {
      return SqlTypeFamily.INTEGER;
    }
    if (type == Number.class) {
      // Any number, passed boxed (Integer, BigDecimal, Double, ...): the method reads its double value.
      return SqlTypeFamily.NUMERIC;
    }
    if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
      return SqlTypeFamily.APPROXIMATE_NUMERIC;
    }
    if (type == boolean.class || type == Boolean.class) {
      return SqlTypeFamily.BOOLEAN;
    }
    if (type == ByteString.class) {
      return SqlTypeFamily.BINARY;
    }
    if (List.class.isAssignableFrom(type)) {
      return SqlTypeFamily.ARRAY;
    }
    if (Map.class.isAssignableFrom(type)) {
      return SqlTypeFamily.MAP;
    }
    return SqlTypeFamily.ANY;
  }

  static RelDataType sqlType(RelDataTypeFactory types, Class<?> type) {
    if (type == String.class) {
      return types.createSqlType(SqlTypeName.VARCHAR);
    }
    if (type == long.class || type == Long.class) {
      return types.createSqlType(SqlTypeName.BIGINT);
    }
    if (type == int.class || type == Integer.class) {
      return types.createSqlType(SqlTypeName.INTEGER);
    }
    if (type == double.class || type == Double.class || type == Number.class) {
      return types.createSqlType(SqlTypeName.DOUBLE);
    }
    if (type == float.class || type == Float.class) {
      return types.createSqlType(SqlTypeName.REAL);
    }
    if (type == boolean.class || type == Boolean.class) {
      return types.createSqlType(SqlTypeName.BOOLEAN);
    }
    if (type == ByteString.class) {
      return types.createSqlType(SqlTypeName.VARBINARY);
    }
    if (List.class.isAssignableFrom(type)) {
      return types.createArrayType(types.createSqlType(SqlTypeName.ANY), -1);
    }
    if (Map.class.isAssignableFrom(type)) {
      return types.createMapType(types.createSqlType(SqlTypeName.ANY), types.createSqlType(SqlTypeName.ANY));
    }
    return types.createSqlType(SqlTypeName.ANY);
  }
}
