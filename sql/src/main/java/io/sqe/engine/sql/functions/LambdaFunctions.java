package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.function.Function2;
import org.apache.calcite.linq4j.function.Predicate1;
import org.apache.calcite.linq4j.function.Predicate2;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLambda;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.FunctionSqlType;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandMetadata;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlLambdaScope;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.sql.validate.SqlValidator;

/**
 * Trino's functions that take lambda expressions ({@code transform(a, x -> x * 2)}): the lambda's
 * parameters get their types from the other arguments (an array's elements, a map's keys and
 * values, reduce's state), and Calcite compiles the lambda into a Java function the method applies.
 */
public final class LambdaFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = List.of(
      function("transform", 2, (t, args) -> List.of(List.of(element(t, args.get(0)))),
          b -> b.getTypeFactory().createArrayType(lambdaResult(b, 1), -1)),
      function("filter", 2, (t, args) -> List.of(List.of(element(t, args.get(0)))), b -> b.getOperandType(0)),
      function("any_match", 2, (t, args) -> List.of(List.of(element(t, args.get(0)))), LambdaFunctions::nullableBoolean),
      function("all_match", 2, (t, args) -> List.of(List.of(element(t, args.get(0)))), LambdaFunctions::nullableBoolean),
      function("none_match", 2, (t, args) -> List.of(List.of(element(t, args.get(0)))), LambdaFunctions::nullableBoolean),
      function("reduce", 4, (t, args) -> List.of(List.of(args.get(1), element(t, args.get(0))), List.of(args.get(1))),
          b -> lambdaResult(b, 3)),
      function("zip_with", 3, (t, args) -> List.of(List.of(element(t, args.get(0)), element(t, args.get(1)))),
          b -> b.getTypeFactory().createArrayType(
              b.getTypeFactory().createTypeWithNullability(lambdaResult(b, 2), true), -1)),
      function("array_sort", 2, (t, args) -> List.of(List.of(element(t, args.get(0)), element(t, args.get(0)))),
          b -> b.getOperandType(0)),
      function("map_filter", 2, (t, args) -> List.of(List.of(args.get(0).getKeyType(), t.createTypeWithNullability(args.get(0).getValueType(), true))),
          b -> b.getOperandType(0)),
      function("transform_keys", 2, (t, args) -> List.of(List.of(args.get(0).getKeyType(), t.createTypeWithNullability(args.get(0).getValueType(), true))),
          b -> b.getTypeFactory().createMapType(lambdaResult(b, 1), b.getOperandType(0).getValueType())),
      function("transform_values", 2, (t, args) -> List.of(List.of(args.get(0).getKeyType(), t.createTypeWithNullability(args.get(0).getValueType(), true))),
          b -> b.getTypeFactory().createMapType(b.getOperandType(0).getKeyType(), lambdaResult(b, 1))));

  /**
   * {@code sqe_try(() -> expression)}: how a compiled plan computes {@link ConditionalFunctions#TRY},
   * whose expression becomes a lambda so that it runs inside the call that catches its error. Not
   * in the operator table: SQL names {@code try}.
   */
  public static final SqlOperator TRY_EVALUATION = function("sqe_try", 1, (t, args) -> List.of(List.of()),
      b -> b.getTypeFactory().createTypeWithNullability(lambdaResult(b, 0), true));

  private LambdaFunctions() {}

  /** An array's element type, nullable: zip_with pads with NULLs, and the lambda must take them. */
  private static RelDataType element(RelDataTypeFactory types, RelDataType array) {
    RelDataType component = array.getComponentType();
    if (component == null) {
      throw new IllegalArgumentException("Expected an array, not " + array);
    }
    return types.createTypeWithNullability(component, true);
  }

  private static RelDataType nullableBoolean(SqlOperatorBinding b) {
    return b.getTypeFactory().createTypeWithNullability(b.getTypeFactory().createSqlType(SqlTypeName.BOOLEAN), true);
  }

  private static RelDataType lambdaResult(SqlOperatorBinding b, int operand) {
    RelDataType type = b.getOperandType(operand);
    return type instanceof FunctionSqlType f ? f.getReturnType() : type;
  }

  private static SqlOperator function(
      String name,
      int operands,
      BiFunction<RelDataTypeFactory, List<RelDataType>, List<List<RelDataType>>> lambdaParameters,
      Function<SqlOperatorBinding, RelDataType> returns) {
    Method method = Arrays.stream(LambdaFunctions.class.getMethods())
        .filter(m -> m.getName().equals(MathFunctions.camel(name)))
        .findFirst()
        .orElseThrow();
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        returns::apply,
        InferTypes.FIRST_KNOWN,
        new LambdaOperands(operands, lambdaParameters),
        ScalarFunctionImpl.create(method));
  }

  /**
   * Checks the call's operands: the non-lambda ones first, then each lambda (the trailing operands),
   * validated again with its parameters typed from the others.
   */
  private static final class LambdaOperands implements SqlOperandMetadata {
    private final int operands;
    private final BiFunction<RelDataTypeFactory, List<RelDataType>, List<List<RelDataType>>> lambdaParameters;

    LambdaOperands(int operands, BiFunction<RelDataTypeFactory, List<RelDataType>, List<List<RelDataType>>> lambdaParameters) {
      this.operands = operands;
      this.lambdaParameters = lambdaParameters;
    }

    @Override
    public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
      SqlValidator validator = binding.getValidator();
      SqlCall call = binding.getCall();
      List<RelDataType> types = new ArrayList<>();
      int firstLambda = operands;
      for (int i = 0; i < operands; i++) {
        SqlNode operand = call.operand(i);
        if (operand instanceof SqlLambda) {
          firstLambda = Math.min(firstLambda, i);
          types.add(null);
        } else {
          types.add(validator.deriveType(binding.getScope(), operand));
        }
      }
      List<List<RelDataType>> parameters;
      try {
        parameters = lambdaParameters.apply(binding.getTypeFactory(), types);
      } catch (IllegalArgumentException | NullPointerException e) {
        if (throwOnFailure) {
          throw binding.newValidationSignatureError();
        }
        return false;
      }
      for (int l = 0; l < parameters.size(); l++) {
        SqlNode operand = call.operand(firstLambda + l);
        List<RelDataType> parameterTypes = parameters.get(l);
        if (!(operand instanceof SqlLambda lambda) || lambda.getParameters().size() != parameterTypes.size()) {
          if (throwOnFailure) {
            throw binding.newValidationSignatureError();
          }
          return false;
        }
        SqlLambdaScope scope = (SqlLambdaScope) validator.getLambdaScope(lambda);
        for (int p = 0; p < parameterTypes.size(); p++) {
          scope.getParameterTypes().put(lambda.getParameters().get(p).toString(), parameterTypes.get(p));
        }
        lambda.accept(new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlIdentifier id) {
            validator.removeValidatedNodeType(id);
            return null;
          }

          @Override
          public Void visit(SqlCall c) {
            validator.removeValidatedNodeType(c);
            return super.visit(c);
          }
        });
        validator.validateLambda(lambda);
      }
      return true;
    }

    @Override
    public SqlOperandCountRange getOperandCountRange() {
      return SqlOperandCountRanges.of(operands);
    }

    @Override
    public String getAllowedSignatures(SqlOperator op, String opName) {
      return opName + "(...)";
    }

    @Override
    public List<RelDataType> paramTypes(RelDataTypeFactory types) {
      List<RelDataType> list = new ArrayList<>();
      for (int i = 0; i < operands; i++) {
        list.add(types.createSqlType(SqlTypeName.ANY));
      }
      return list;
    }

    @Override
    public List<String> paramNames() {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < operands; i++) {
        names.add("arg" + i);
      }
      return names;
    }
  }

  /**
   * Applies a compiled lambda: Calcite makes a lambda whose body cannot be NULL a predicate
   * (primitive boolean) when it is a condition, a function otherwise.
   */
  @SuppressWarnings("unchecked")
  private static Object apply(Object lambda, Object x) {
    return lambda instanceof Predicate1<?> p ? (Object) ((Predicate1<Object>) p).apply(x) : ((Function1<Object, Object>) lambda).apply(x);
  }

  @SuppressWarnings("unchecked")
  private static Object apply(Object lambda, Object x, Object y) {
    return lambda instanceof Predicate2<?, ?> p
        ? (Object) ((Predicate2<Object, Object>) p).apply(x, y)
        : ((Function2<Object, Object, Object>) lambda).apply(x, y);
  }

  // ---- called from generated code; a NULL array or map gives NULL

  public static List<Object> transform(List<Object> array, Object f) {
    if (array == null) {
      return null;
    }
    List<Object> out = new ArrayList<>(array.size());
    for (Object e : array) {
      out.add(apply(f, e));
    }
    return out;
  }

  public static List<Object> filter(List<Object> array, Object f) {
    if (array == null) {
      return null;
    }
    List<Object> out = new ArrayList<>();
    for (Object e : array) {
      if (Boolean.TRUE.equals(apply(f, e))) {
        out.add(e);
      }
    }
    return out;
  }

  /** true if the predicate holds for some element; NULL if it is NULL for one and false for the others. */
  public static Boolean anyMatch(List<Object> array, Object f) {
    if (array == null) {
      return null;
    }
    boolean sawNull = false;
    for (Object e : array) {
      Object r = apply(f, e);
      if (Boolean.TRUE.equals(r)) {
        return true;
      }
      sawNull |= r == null;
    }
    return sawNull ? null : false;
  }

  public static Boolean allMatch(List<Object> array, Object f) {
    if (array == null) {
      return null;
    }
    boolean sawNull = false;
    for (Object e : array) {
      Object r = apply(f, e);
      if (Boolean.FALSE.equals(r)) {
        return false;
      }
      sawNull |= r == null;
    }
    return sawNull ? null : true;
  }

  public static Boolean noneMatch(List<Object> array, Object f) {
    Boolean any = anyMatch(array, f);
    return any == null ? null : !any;
  }

  public static Object reduce(List<Object> array, Object initial, Object input,
      Object output) {
    if (array == null) {
      return null;
    }
    Object state = initial;
    for (Object e : array) {
      state = apply(input, state, e);
    }
    return apply(output, state);
  }

  /** The shorter array is padded with NULLs. */
  public static List<Object> zipWith(List<Object> x, List<Object> y, Object f) {
    if (x == null || y == null) {
      return null;
    }
    int n = Math.max(x.size(), y.size());
    List<Object> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(apply(f, i < x.size() ? x.get(i) : null, i < y.size() ? y.get(i) : null));
    }
    return out;
  }

  /**
   * Trino's try(expression) as {@link #TRY_EVALUATION} computes it: the value, or NULL when
   * computing it fails for a bad value (division by zero, a cast or a function argument that fails,
   * an overflow).
   */
  @SuppressWarnings("unchecked")
  public static Object sqeTry(Object expression) {
    try {
      return ((Function0<Object>) expression).apply();
    } catch (ArithmeticException | IllegalArgumentException | java.time.DateTimeException | ClassCastException
        | org.apache.calcite.runtime.CalciteException e) {
      return null;
    } catch (SqeException e) {
      // A bad value (an overflow, a result over the size limit) is NULL; a timeout or a cancel is not.
      if (e.code() == ErrorCode.INVALID_ARGUMENT) {
        return null;
      }
      throw e;
    }
  }

  /** The array sorted by a comparator lambda (negative, zero or positive); its NULL is an error, as in Trino. */
  public static List<Object> arraySort(List<Object> array, Object comparator) {
    if (array == null) {
      return null;
    }
    List<Object> out = new ArrayList<>(array);
    out.sort((x, y) -> {
      Object r = apply(comparator, x, y);
      if (r == null) {
        throw new IllegalArgumentException("Lambda comparator must return either -1, 0, or 1");
      }
      return Integer.signum(((Number) r).intValue());
    });
    return out;
  }

  public static Map<Object, Object> mapFilter(Map<Object, Object> map, Object f) {
    if (map == null) {
      return null;
    }
    Map<Object, Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> {
      if (Boolean.TRUE.equals(apply(f, k, v))) {
        out.put(k, v);
      }
    });
    return out;
  }

  public static Map<Object, Object> transformKeys(Map<Object, Object> map, Object f) {
    if (map == null) {
      return null;
    }
    Map<Object, Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> {
      Object key = apply(f, k, v);
      if (key == null) {
        throw new IllegalArgumentException("map key cannot be null");
      }
      if (out.containsKey(key)) {
        throw new IllegalArgumentException("Duplicate map keys (" + key + ") are not allowed");
      }
      out.put(key, v);
    });
    return out;
  }

  public static Map<Object, Object> transformValues(Map<Object, Object> map, Object f) {
    if (map == null) {
      return null;
    }
    Map<Object, Object> out = new LinkedHashMap<>();
    map.forEach((k, v) -> out.put(k, apply(f, k, v)));
    return out;
  }
}
