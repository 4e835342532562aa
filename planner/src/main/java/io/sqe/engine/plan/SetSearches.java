package io.sqe.engine.plan;

import com.google.common.collect.BoundType;
import com.google.common.collect.Range;
import com.google.common.collect.RangeSet;
import com.google.common.collect.TreeRangeSet;
import io.sqe.engine.exec.TupleSet;
import io.sqe.engine.exec.ValueSet;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.LinkedHashMap;
import org.apache.calcite.adapter.enumerable.NullPolicy;
import org.apache.calcite.adapter.enumerable.RexImpTable;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.ImplementableFunction;
import org.apache.calcite.schema.ScalarFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.util.BuiltInMethod;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;

/**
 * Tests of large sets ({@code x IN (...)} with many values, Calcite's {@code SEARCH} of a Sarg of
 * more than {@link ValueSet#MIN_RANGES} ranges) in the finished plan become one lookup in a {@link
 * ValueSet}, which the compiled code reads from its data context. Calcite's code generator expands
 * a SEARCH into one comparison per value: 100,000 of them do not fit a Java method, and each row
 * would be compared with all of them. The set is built once while planning and kept with the plan.
 *
 * <p>Integers and dates are kept as sorted ranges of longs (a binary search per row); decimals,
 * doubles and strings as Guava's range set of their run-time values. A Sarg over other types
 * (timestamps, booleans, fixed-length strings) is left to Calcite.
 *
 * <p>Likewise an OR of more than {@link ValueSet#MIN_RANGES} conjunctions of equalities over the
 * same expressions, {@code (a = 1 AND b = 'x') OR (a = 2 AND b = 'y') OR ...} (500 of them outgrew
 * a Java method), becomes one lookup in a {@link TupleSet} of the listed rows.
 */
final class SetSearches {
  /** {@code IN_SET(x, 'key')}: whether x is in the set the data context holds under key; NULL for NULL. */
  static final SqlOperator IN_SET =
      new SqlUserDefinedFunction(
          new SqlIdentifier("$IN_SET", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, ReturnTypes.BOOLEAN_NULLABLE, null, null, new InSet());

  /**
   * {@code IN_TUPLES(a, b, ..., 'key')}: whether the row of values is among those of the tuple set
   * the data context holds under key, with an OR's NULL rule (see {@link TupleSet}).
   */
  static final SqlOperator IN_TUPLES =
      new SqlUserDefinedFunction(
          new SqlIdentifier("$IN_TUPLES", SqlParserPos.ZERO), SqlKind.OTHER_FUNCTION, ReturnTypes.BOOLEAN_NULLABLE, null, null, new InTuples());

  private static final String KEY_PREFIX = "sqe.valueSet.";

  private SetSearches() {}

  /**
   * The plan with its large searches made set lookups, their sets put in {@code parameters} (the
   * objects the compiled code reads from its data context).
   */
  static RelNode rewrite(RelNode plan, Map<String, Object> parameters) {
    return new Rewrite(plan.getCluster().getRexBuilder(), parameters).rel(plan);
  }

  private static final class Rewrite extends RexShuttle {
    private final RexBuilder rexBuilder;
    private final Map<String, Object> parameters;
    private final Map<RelNode, RelNode> done = new IdentityHashMap<>();
    private boolean changed;

    Rewrite(RexBuilder rexBuilder, Map<String, Object> parameters) {
      this.rexBuilder = rexBuilder;
      this.parameters = parameters;
    }

    /** A node used twice in the plan (a shared sub-plan) is rewritten once, and stays shared. */
    RelNode rel(RelNode rel) {
      RelNode result = done.get(rel);
      if (result == null) {
        result = rewriteRel(rel);
        done.put(rel, result);
      }
      return result;
    }

    private RelNode rewriteRel(RelNode rel) {
      List<RelNode> inputs = new ArrayList<>();
      boolean inputsChanged = false;
      for (RelNode input : rel.getInputs()) {
        RelNode rewritten = rel(input);
        inputsChanged |= rewritten != input;
        inputs.add(rewritten);
      }
      RelNode current = inputsChanged ? rel.copy(rel.getTraitSet(), inputs) : rel;
      if (current instanceof Calc) {
        return program((Calc) current);
      }
      if (current instanceof Join || current instanceof Filter || current instanceof Project) {
        return current.accept(this);
      }
      return current;
    }

    private RelNode program(Calc calc) {
      RexProgram program = calc.getProgram();
      changed = false;
      List<RexNode> projects = new ArrayList<>();
      for (RexNode project : program.getProjectList()) {
        projects.add(program.expandLocalRef((org.apache.calcite.rex.RexLocalRef) project).accept(this));
      }
      RexNode condition = program.getCondition() == null ? null : program.expandLocalRef(program.getCondition()).accept(this);
      if (!changed) {
        return calc;
      }
      RexProgram rewritten = RexProgram.create(program.getInputRowType(), projects, condition, program.getOutputRowType(), rexBuilder);
      return calc.copy(calc.getTraitSet(), calc.getInput(), rewritten);
    }

    @Override
    public RexNode visitCall(RexCall call) {
      if (call.getKind() == SqlKind.OR && call.getOperands().size() > ValueSet.MIN_RANGES) {
        Optional<RexNode> tuples = tupleLookup(call);
        if (tuples.isPresent()) {
          changed = true;
          return tuples.get();
        }
      }
      if (call.getKind() != SqlKind.SEARCH || !ValueSet.isLarge(call)) {
        return super.visitCall(call);
      }
      RexNode ref = call.getOperands().get(0);
      Sarg<?> sarg = ((RexLiteral) call.getOperands().get(1)).getValueAs(Sarg.class);
      Optional<ValueSet> set = valueSet(sarg, ref.getType());
      if (set.isEmpty()) {
        return super.visitCall(call);
      }
      changed = true;
      String key = KEY_PREFIX + parameters.size();
      parameters.put(key, set.get());
      RexNode value = ref.accept(this);
      RelDataType type = call.getType();
      RexNode lookup = rexBuilder.makeCall(type, IN_SET, List.of(value, rexBuilder.makeLiteral(key)));
      // As Calcite expands a Sarg (RexUtil.sargRef): a NULL is in the set, out of it, or unknown.
      if (sarg.nullAs == RexUnknownAs.TRUE) {
        return rexBuilder.makeCall(type, SqlStdOperatorTable.OR, List.of(rexBuilder.makeCall(SqlStdOperatorTable.IS_NULL, value), lookup));
      }
      if (sarg.nullAs == RexUnknownAs.FALSE) {
        return rexBuilder.makeCall(
            type, SqlStdOperatorTable.AND, List.of(rexBuilder.makeCall(SqlStdOperatorTable.IS_NOT_NULL, value), lookup));
      }
      return lookup;
    }

    /**
     * {@code (a = 1 AND b = 'x') OR (a = 2 AND b = 'y') OR ...} as one lookup, when every
     * disjunct is a conjunction of equalities between the same two or more (deterministic)
     * expressions and literals.
     */
    private Optional<RexNode> tupleLookup(RexCall or) {
      List<RexNode> columns = null;
      List<Object[]> rows = new ArrayList<>();
      for (RexNode disjunct : or.getOperands()) {
        Map<RexNode, RexLiteral> values = new LinkedHashMap<>();
        for (RexNode conjunct : RelOptUtil.conjunctions(disjunct)) {
          if (conjunct.getKind() != SqlKind.EQUALS) {
            return Optional.empty();
          }
          RexNode a = ((RexCall) conjunct).getOperands().get(0);
          RexNode b = ((RexCall) conjunct).getOperands().get(1);
          RexNode column = a instanceof RexLiteral ? b : a;
          RexNode literal = a instanceof RexLiteral ? a : b;
          if (column instanceof RexLiteral || !(literal instanceof RexLiteral) || ((RexLiteral) literal).isNull()
              || !RexUtil.isDeterministic(column) || values.put(column, (RexLiteral) literal) != null) {
            return Optional.empty();
          }
        }
        if (columns == null) {
          columns = new ArrayList<>(values.keySet());
        } else if (columns.size() != values.size() || !values.keySet().containsAll(columns)) {
          return Optional.empty();
        }
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
          RexNode column = columns.get(i);
          Optional<Object> value = runtimeValue(values.get(column), column.getType());
          if (value.isEmpty()) {
            return Optional.empty();
          }
          row[i] = value.get();
        }
        rows.add(row);
      }
      if (columns == null || columns.size() < 2) {
        return Optional.empty();
      }
      String key = KEY_PREFIX + parameters.size();
      parameters.put(key, new TupleSet(rows));
      List<RexNode> operands = new ArrayList<>();
      for (RexNode column : columns) {
        operands.add(column.accept(this));
      }
      operands.add(rexBuilder.makeLiteral(key));
      return Optional.of(rexBuilder.makeCall(or.getType(), IN_TUPLES, operands));
    }
  }

  /** A literal compared with a column of {@code type}, as the generated code holds the column's values. */
  private static Optional<Object> runtimeValue(RexLiteral literal, RelDataType type) {
    switch (type.getSqlTypeName()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT: {
        BigDecimal value = literal.getValueAs(BigDecimal.class);
        try {
          return value == null ? Optional.empty() : Optional.of(value.longValueExact());
        } catch (ArithmeticException e) {
          // A fraction or a number no long holds: no integer column's value equals it.
          return Optional.empty();
        }
      }
      case DATE:
        return literal.getTypeName() == SqlTypeName.DATE ? Optional.ofNullable(literal.getValueAs(Integer.class)) : Optional.empty();
      case DECIMAL:
        return Optional.ofNullable(literal.getValueAs(BigDecimal.class));
      case DOUBLE:
      case FLOAT:
      case REAL:
        return Optional.ofNullable(literal.getValueAs(Double.class));
      case VARCHAR:
        return SqlTypeUtil.isCharacter(literal.getType()) ? Optional.ofNullable(literal.getValueAs(String.class)) : Optional.empty();
      case BOOLEAN:
        return Optional.ofNullable(literal.getValueAs(Boolean.class));
      default:
        return Optional.empty();
    }
  }

  /** The Sarg's ranges over the run-time values of a column of {@code type}, if SQE handles the type. */
  private static Optional<ValueSet> valueSet(Sarg<?> sarg, RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    switch (name) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
      case DATE:
        return longs(sarg, name == SqlTypeName.DATE);
      case DECIMAL:
      case DOUBLE:
      case FLOAT:
      case REAL:
      case VARCHAR:
        return ranges(sarg, name);
      default:
        return Optional.empty();
    }
  }

  private static Optional<ValueSet> longs(Sarg<?> sarg, boolean dates) {
    List<Range<?>> ranges = new ArrayList<>(sarg.rangeSet.asRanges());
    long[] lows = new long[ranges.size()];
    long[] highs = new long[ranges.size()];
    int count = 0;
    for (Range<?> range : ranges) {
      long low = Long.MIN_VALUE;
      long high = Long.MAX_VALUE;
      if (range.hasLowerBound()) {
        BigDecimal bound = number(range.lowerEndpoint(), dates);
        if (bound == null) {
          return Optional.empty();
        }
        // The least integer in the range: above an open bound, at or above a closed one.
        BigDecimal least = range.lowerBoundType() == BoundType.CLOSED
            ? bound.setScale(0, RoundingMode.CEILING)
            : bound.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE);
        if (least.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
          continue;
        }
        low = least.max(BigDecimal.valueOf(Long.MIN_VALUE)).longValueExact();
      }
      if (range.hasUpperBound()) {
        BigDecimal bound = number(range.upperEndpoint(), dates);
        if (bound == null) {
          return Optional.empty();
        }
        BigDecimal greatest = range.upperBoundType() == BoundType.CLOSED
            ? bound.setScale(0, RoundingMode.FLOOR)
            : bound.setScale(0, RoundingMode.CEILING).subtract(BigDecimal.ONE);
        if (greatest.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
          continue;
        }
        high = greatest.min(BigDecimal.valueOf(Long.MAX_VALUE)).longValueExact();
      }
      if (low <= high) {
        lows[count] = low;
        highs[count] = high;
        count++;
      }
    }
    return Optional.of(ValueSet.ofLongs(java.util.Arrays.copyOf(lows, count), java.util.Arrays.copyOf(highs, count)));
  }

  private static BigDecimal number(Object value, boolean dates) {
    if (dates) {
      return value instanceof DateString ? BigDecimal.valueOf(((DateString) value).getDaysSinceEpoch()) : null;
    }
    return value instanceof BigDecimal ? (BigDecimal) value : null;
  }

  private static Optional<ValueSet> ranges(Sarg<?> sarg, SqlTypeName type) {
    RangeSet<Comparable<?>> values = TreeRangeSet.create();
    for (Range<?> range : sarg.rangeSet.asRanges()) {
      Comparable<?> low = range.hasLowerBound() ? runtimeValue(range.lowerEndpoint(), type) : null;
      Comparable<?> high = range.hasUpperBound() ? runtimeValue(range.upperEndpoint(), type) : null;
      if (range.hasLowerBound() && low == null || range.hasUpperBound() && high == null) {
        return Optional.empty();
      }
      values.add(rebuilt(range, low, high));
    }
    return Optional.of(ValueSet.of(values));
  }

  /** A Sarg's value as the generated code holds it: BigDecimal, Double or String. */
  private static Comparable<?> runtimeValue(Object value, SqlTypeName type) {
    switch (type) {
      case DECIMAL:
        return value instanceof BigDecimal ? (BigDecimal) value : null;
      case DOUBLE:
      case FLOAT:
      case REAL:
        if (!(value instanceof BigDecimal)) {
          return null;
        }
        double d = ((BigDecimal) value).doubleValue();
        return d == 0.0 ? 0.0 : d;
      default:
        return value instanceof NlsString ? ((NlsString) value).getValue() : null;
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Range<Comparable<?>> rebuilt(Range<?> range, Comparable low, Comparable high) {
    if (low != null && high != null) {
      return Range.range(low, range.lowerBoundType(), high, range.upperBoundType());
    }
    if (low != null) {
      return Range.downTo(low, range.lowerBoundType());
    }
    if (high != null) {
      return Range.upTo(high, range.upperBoundType());
    }
    return Range.all();
  }

  /**
   * The implementation of {@link #IN_TUPLES}: {@code ((TupleSet) root.get(key)).contains(new
   * Object[] {a, b, ...})}, which answers NULL itself.
   */
  private static final class InTuples implements ScalarFunction, ImplementableFunction {
    @Override
    public RelDataType getReturnType(RelDataTypeFactory typeFactory) {
      return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BOOLEAN), true);
    }

    @Override
    public List<FunctionParameter> getParameters() {
      return List.of();
    }

    @Override
    public org.apache.calcite.adapter.enumerable.CallImplementor getImplementor() {
      return RexImpTable.createImplementor(
          (translator, call, operands) -> {
            int columns = operands.size() - 1;
            Expression set =
                Expressions.convert_(
                    Expressions.call(translator.getRoot(), BuiltInMethod.DATA_CONTEXT_GET.method, operands.get(columns)),
                    TupleSet.class);
            List<Expression> values = new ArrayList<>();
            for (Expression value : operands.subList(0, columns)) {
              values.add(Expressions.box(value));
            }
            return Expressions.call(set, "contains", Expressions.newArrayInit(Object.class, values));
          },
          NullPolicy.NONE,
          false);
    }
  }

  /**
   * The implementation of {@link #IN_SET}: {@code ((ValueSet) root.get(key)).contains(x)}, NULL
   * when x is NULL.
   */
  private static final class InSet implements ScalarFunction, ImplementableFunction {
    @Override
    public RelDataType getReturnType(RelDataTypeFactory typeFactory) {
      return typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BOOLEAN), true);
    }

    @Override
    public List<FunctionParameter> getParameters() {
      return List.of();
    }

    @Override
    public org.apache.calcite.adapter.enumerable.CallImplementor getImplementor() {
      return RexImpTable.createImplementor(
          (translator, call, operands) -> {
            Expression set =
                Expressions.convert_(
                    Expressions.call(translator.getRoot(), BuiltInMethod.DATA_CONTEXT_GET.method, operands.get(1)), ValueSet.class);
            Expression value = operands.get(0);
            Type valueType = value.getType();
            boolean integral = valueType == long.class || valueType == int.class || valueType == short.class || valueType == byte.class;
            return Expressions.call(set, "contains", Expressions.convert_(value, integral ? long.class : Object.class));
          },
          NullPolicy.STRICT,
          false);
    }
  }
}
