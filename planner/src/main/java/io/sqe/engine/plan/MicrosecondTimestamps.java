package io.sqe.engine.plan;

import io.sqe.engine.sql.functions.TimestampMicros;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexWindow;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.TimestampString;

/**
 * Rewrites a freshly converted plan so that every TIMESTAMP value in it is a count of
 * microseconds (see {@link TimestampMicros}): literals become exact microsecond constants, and
 * every Calcite function that reads or computes calendar time gets its timestamp operands in
 * milliseconds and its timestamp result back in microseconds. Operators that only compare or carry
 * values (comparisons, CASE, COALESCE, row and collection constructors, MIN/MAX and the like) see
 * the microseconds directly, so they are exact.
 */
final class MicrosecondTimestamps {
  /** Operators that never read a timestamp as calendar time, only compare or pass it on. */
  private static final Set<SqlKind> CARRIERS =
      EnumSet.of(
          SqlKind.EQUALS,
          SqlKind.NOT_EQUALS,
          SqlKind.LESS_THAN,
          SqlKind.LESS_THAN_OR_EQUAL,
          SqlKind.GREATER_THAN,
          SqlKind.GREATER_THAN_OR_EQUAL,
          SqlKind.IS_DISTINCT_FROM,
          SqlKind.IS_NOT_DISTINCT_FROM,
          SqlKind.IS_NULL,
          SqlKind.IS_NOT_NULL,
          SqlKind.CASE,
          SqlKind.COALESCE,
          SqlKind.NULLIF,
          SqlKind.ROW,
          SqlKind.ARRAY_VALUE_CONSTRUCTOR,
          SqlKind.MAP_VALUE_CONSTRUCTOR,
          SqlKind.ITEM,
          SqlKind.GREATEST,
          SqlKind.LEAST,
          SqlKind.AND,
          SqlKind.OR,
          SqlKind.NOT);

  /** Calendar arithmetic whose result keeps the sub-millisecond digits of its timestamp operand. */
  private static final Set<SqlKind> SHIFTS = EnumSet.of(SqlKind.PLUS, SqlKind.MINUS, SqlKind.TIMESTAMP_ADD);

  private final RexBuilder rexBuilder;
  private final RelDataTypeFactory typeFactory;

  private MicrosecondTimestamps(RexBuilder rexBuilder) {
    this.rexBuilder = rexBuilder;
    this.typeFactory = rexBuilder.getTypeFactory();
  }

  static RelNode rewrite(RelNode root) {
    return new MicrosecondTimestamps(root.getCluster().getRexBuilder()).rel(root);
  }

  private RelNode rel(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode converted = rel(input);
      changed |= converted != input;
      inputs.add(converted);
    }
    RelNode current = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    if (current instanceof LogicalValues) {
      return values((LogicalValues) current);
    }
    return current.accept(new Expressions());
  }

  private static boolean isTimestamp(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    return name == SqlTypeName.TIMESTAMP || name == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
  }

  private RexNode call(SqlOperator operator, RelDataType type, RexNode... operands) {
    return rexBuilder.makeCall(type, operator, List.of(operands));
  }

  /** A timestamp literal as an exact microsecond constant of the literal's type. */
  private RexNode literal(RexLiteral literal) {
    long micros = TimestampMicros.micros(literal.getValueAs(TimestampString.class));
    RelDataType bigint = typeFactory.createSqlType(SqlTypeName.BIGINT);
    return call(TimestampMicros.MICROS, literal.getType(), rexBuilder.makeLiteral(micros, bigint));
  }

  /** VALUES rows cannot hold calls: carry timestamps as BIGINT microseconds and convert above. */
  private RelNode values(LogicalValues values) {
    List<RelDataTypeField> fields = values.getRowType().getFieldList();
    if (fields.stream().noneMatch(f -> isTimestamp(f.getType()))) {
      return values;
    }
    RelDataTypeFactory.Builder rowType = typeFactory.builder();
    for (RelDataTypeField f : fields) {
      rowType.add(
          f.getName(),
          isTimestamp(f.getType())
              ? typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BIGINT), f.getType().isNullable())
              : f.getType());
    }
    List<List<RexLiteral>> tuples = new ArrayList<>();
    for (List<RexLiteral> tuple : values.getTuples()) {
      List<RexLiteral> row = new ArrayList<>();
      for (int i = 0; i < tuple.size(); i++) {
        RexLiteral value = tuple.get(i);
        if (isTimestamp(fields.get(i).getType())) {
          RelDataType bigint = typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.BIGINT), true);
          row.add(value.isNull()
              ? (RexLiteral) rexBuilder.makeNullLiteral(bigint)
              : (RexLiteral) rexBuilder.makeLiteral(TimestampMicros.micros(value.getValueAs(TimestampString.class)), bigint));
        } else {
          row.add(value);
        }
      }
      tuples.add(row);
    }
    LogicalValues carried = LogicalValues.create(values.getCluster(), rowType.build(), com.google.common.collect.ImmutableList.copyOf(
        tuples.stream().map(com.google.common.collect.ImmutableList::copyOf).toList()));
    List<RexNode> projects = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      RexNode ref = rexBuilder.makeInputRef(carried, i);
      projects.add(isTimestamp(fields.get(i).getType()) ? call(TimestampMicros.MICROS, fields.get(i).getType(), ref) : ref);
    }
    return LogicalProject.create(carried, List.of(), projects, values.getRowType().getFieldNames(), java.util.Set.of());
  }

  /** Rewrites the expressions of one relational node. */
  private final class Expressions extends RexShuttle {
    @Override
    public RexNode visitLiteral(RexLiteral literal) {
      if (inTimestampWindow && SqlTypeFamily.DATETIME_INTERVAL.contains(literal.getType()) && !literal.isNull()) {
        // A RANGE frame offset over microsecond keys: an interval of N ms spans N * 1000 of them.
        BigDecimal millis = literal.getValueAs(BigDecimal.class);
        return rexBuilder.makeIntervalLiteral(
            millis.multiply(BigDecimal.valueOf(1000)), literal.getType().getIntervalQualifier());
      }
      return isTimestamp(literal.getType()) && !literal.isNull() ? literal(literal) : literal;
    }

    @Override
    public RexNode visitSubQuery(RexSubQuery subQuery) {
      RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
      return visited.clone(rel(visited.rel));
    }

    /** Set while visiting a window ordered by a timestamp, whose RANGE offsets need scaling. */
    private boolean inTimestampWindow;

    @Override
    public RexWindow visitWindow(RexWindow window) {
      boolean outer = inTimestampWindow;
      inTimestampWindow = !window.isRows() && window.orderKeys.stream().anyMatch(k -> isTimestamp(k.left.getType()));
      try {
        return super.visitWindow(window);
      } finally {
        inTimestampWindow = outer;
      }
    }

    @Override
    public RexNode visitCall(RexCall call) {
      if (call.getKind() == SqlKind.SEARCH && isTimestamp(call.getOperands().get(0).getType())) {
        return RexUtil.expandSearch(rexBuilder, null, call).accept(this);
      }
      if (TimestampMicros.takesUserOperands(call.getOperator())) {
        // SQE's own functions over the statement's timestamps: those must be microseconds too.
        return call.clone(call.getType(), visitList(call.getOperands(), new boolean[1]));
      }
      if (TimestampMicros.isOurs(call.getOperator())) {
        return call;
      }
      if (call.getKind() == SqlKind.CAST) {
        RexNode cast = cast(call);
        if (cast != null) {
          return cast;
        }
      }
      List<RexNode> operands = visitList(call.getOperands(), new boolean[1]);
      if (CARRIERS.contains(call.getKind())
          || (call.getKind() == SqlKind.CAST
              && isTimestamp(call.getType())
              && isTimestamp(call.getOperands().get(0).getType())
              && call.getType().getSqlTypeName() == call.getOperands().get(0).getType().getSqlTypeName())) {
        return call.clone(call.getType(), operands);
      }
      boolean readsTimestamp = false;
      RexNode timestampOperand = null;
      List<RexNode> inMillis = new ArrayList<>();
      for (RexNode operand : operands) {
        if (isTimestamp(operand.getType())) {
          readsTimestamp = true;
          timestampOperand = timestampOperand == null ? operand : timestampOperand;
          inMillis.add(call(TimestampMicros.TO_MILLIS, operand.getType(), operand));
        } else {
          inMillis.add(operand);
        }
      }
      if (!readsTimestamp && !isTimestamp(call.getType())) {
        return call.clone(call.getType(), operands);
      }
      RexNode computed = call.clone(call.getType(), inMillis);
      if (!isTimestamp(call.getType())) {
        return computed;
      }
      if (timestampOperand != null && SHIFTS.contains(call.getKind())) {
        return call(TimestampMicros.FROM_MILLIS_KEEP, call.getType(), computed, timestampOperand);
      }
      return call(TimestampMicros.FROM_MILLIS, call.getType(), computed);
    }

    /**
     * A cast of microseconds {@code operand} between TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE,
     * which Calcite computes in whole seconds for the session's zone; the fraction is kept.
     */
    private RexNode zoneShift(RelDataType to, RexNode operand) {
      RexNode millis = call(TimestampMicros.TO_MILLIS, operand.getType(), operand);
      RexNode shifted = rexBuilder.makeCast(to, millis, false, false);
      return call(TimestampMicros.FROM_MILLIS_KEEP_FRACTION, to, shifted, operand);
    }

    /** Exact casts between text and timestamps; null for casts handled the general way. */
    private RexNode cast(RexCall call) {
      RexNode operand = call.getOperands().get(0);
      RelDataType to = call.getType();
      RelDataType from = operand.getType();
      boolean fromText = SqlTypeFamily.CHARACTER.contains(from);
      if (isTimestamp(to) && isTimestamp(from) && to.getSqlTypeName() != from.getSqlTypeName()) {
        return zoneShift(to, operand.accept(this));
      }
      if (to.getSqlTypeName() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE && fromText) {
        // Text is a time in the session's zone: read it as a TIMESTAMP, then shift it.
        RelDataType local = typeFactory.createTypeWithNullability(
            typeFactory.createSqlType(SqlTypeName.TIMESTAMP, to.getPrecision()), to.isNullable());
        RexNode asLocal = rexBuilder.makeCast(local, operand, false, false);
        return zoneShift(to, asLocal instanceof RexCall ? cast((RexCall) asLocal) : asLocal.accept(this));
      }
      if (to.getSqlTypeName() == SqlTypeName.TIMESTAMP && fromText) {
        if (operand instanceof RexLiteral && !((RexLiteral) operand).isNull()) {
          long micros = TimestampMicros.micros(((RexLiteral) operand).getValueAs(String.class));
          RelDataType bigint = typeFactory.createSqlType(SqlTypeName.BIGINT);
          return call(TimestampMicros.MICROS, to, rexBuilder.makeLiteral(micros, bigint));
        }
        return call(TimestampMicros.FROM_STRING, to, operand.accept(this));
      }
      if (from.getSqlTypeName() == SqlTypeName.TIMESTAMP && SqlTypeFamily.CHARACTER.contains(to)) {
        return rexBuilder.makeCast(to, call(TimestampMicros.TO_STRING, typeFactory.createTypeWithNullability(
            typeFactory.createSqlType(SqlTypeName.VARCHAR), from.isNullable()), operand.accept(this)));
      }
      return null;
    }
  }
}
