package io.sqe.engine.sql.functions;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.enumerable.CallImplementor;
import org.apache.calcite.adapter.enumerable.EnumUtils;
import org.apache.calcite.adapter.enumerable.NullPolicy;
import org.apache.calcite.adapter.enumerable.RexImpTable;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;

/**
 * A function that generated code calls as a public static method, chosen by the call's operand
 * count (or a variable-arity method, whose last parameter takes the operands from there on); a
 * method whose first parameter is a {@link DataContext} gets the execution's, through which it
 * reaches its query (its {@link io.sqe.engine.exec.Checkpoint}) and limits. A NULL operand makes the
 * result NULL without a call, unless the function takes NULL operands. Such functions are never named in SQL: the planner puts them in place
 * of Calcite's operators in the plan it compiles (see {@code OperatorImplementations}), so they have
 * no operand checking or type inference of their own.
 */
final class ExecutionFunction implements ScalarFunction, ImplementableFunction {
  private final List<Method> methods;
  private final CallImplementor implementor;

  private ExecutionFunction(List<Method> methods, NullPolicy nullPolicy) {
    this.methods = List.copyOf(methods);
    this.implementor =
        RexImpTable.createImplementor(
            (translator, call, operands) -> {
              Method method = method(operands.size());
              Class<?>[] types = method.getParameterTypes();
              int first = takesRoot(method) ? 1 : 0;
              int fixed = method.isVarArgs() ? types.length - 1 - first : operands.size();
              List<Expression> arguments = new ArrayList<>();
              if (first == 1) {
                arguments.add(translator.getRoot());
              }
              for (int i = 0; i < fixed; i++) {
                arguments.add(EnumUtils.convert(operands.get(i), types[i + first]));
              }
              if (method.isVarArgs()) {
                Class<?> element = types[types.length - 1].getComponentType();
                List<Expression> rest = new ArrayList<>();
                for (int i = fixed; i < operands.size(); i++) {
                  rest.add(EnumUtils.convert(operands.get(i), element));
                }
                arguments.add(Expressions.newArrayInit(element, rest));
              }
              return Expressions.call(method, arguments);
            },
            nullPolicy,
            false);
  }

  /**
   * An operator named {@code name} implemented by the public static methods of {@code owner}
   * called {@code method} that take a {@link DataContext} first, one per operand count.
   */
  static SqlOperator operator(String name, Class<?> owner, String method) {
    return operator(name, owner, method, NullPolicy.STRICT, m -> takesRoot(m));
  }

  /**
   * As {@link #operator(String, Class, String)}, for a function that takes NULL operands (its
   * methods are called with them) and may have a variable number of them (a method whose last
   * parameter is an array gets the operands from there on in one).
   */
  static SqlOperator operatorTakingNulls(String name, Class<?> owner, String method) {
    return operator(name, owner, method, NullPolicy.NONE, m -> takesRoot(m));
  }

  /**
   * An operator named {@code name} implemented by the public static methods of {@code owner}
   * called {@code method} that return {@code type}, one per operand count.
   */
  static SqlOperator operator(String name, Class<?> owner, String method, Class<?> type) {
    return operator(name, owner, method, NullPolicy.STRICT, m -> m.getReturnType() == type);
  }

  /**
   * The implementation of a single method, for a function declared elsewhere with its own operand
   * checking (see {@link JavaFunctions}); a {@link DataContext} first parameter gets the execution's.
   */
  static ExecutionFunction of(Method method, NullPolicy nullPolicy) {
    return new ExecutionFunction(List.of(method), nullPolicy);
  }

  private static SqlOperator operator(String name, Class<?> owner, String method, NullPolicy nullPolicy, Predicate<Method> chosen) {
    List<Method> overloads = new ArrayList<>();
    for (Method m : owner.getMethods()) {
      if (m.getName().equals(method) && Modifier.isStatic(m.getModifiers()) && chosen.test(m)) {
        overloads.add(m);
      }
    }
    if (overloads.isEmpty()) {
      throw new IllegalStateException("No method " + owner.getSimpleName() + "." + method + " for " + name);
    }
    return new SqlUserDefinedFunction(
        new SqlIdentifier(name, SqlParserPos.ZERO),
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.ARG0,
        InferTypes.FIRST_KNOWN,
        null,
        new ExecutionFunction(overloads, nullPolicy));
  }

  static boolean takesRoot(Method method) {
    return method.getParameterCount() > 0 && method.getParameterTypes()[0] == DataContext.class;
  }

  private Method method(int operands) {
    for (Method method : methods) {
      if (method.getParameterCount() == operands + (takesRoot(method) ? 1 : 0)) {
        return method;
      }
    }
    for (Method method : methods) {
      if (method.isVarArgs() && method.getParameterCount() - 1 <= operands + (takesRoot(method) ? 1 : 0)) {
        return method;
      }
    }
    throw new IllegalStateException(methods.get(0).getName() + " takes no " + operands + " operands");
  }

  @Override
  public CallImplementor getImplementor() {
    return implementor;
  }

  @Override
  public RelDataType getReturnType(RelDataTypeFactory typeFactory) {
    return typeFactory.createJavaType(requireNonNull(methods.get(0).getReturnType()));
  }

  @Override
  public List<FunctionParameter> getParameters() {
    return List.of();
  }
}
