package io.sqe.engine.plan.offload;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Rewrites a plan so Trino gives its decimal quotients and averages the scale SQE's plan types
 * them with. Trino types {@code a / b} of decimals with scale {@code max(scale(a), scale(b))} and
 * {@code avg(x)} with the scale of {@code x}, where SQE (as Calcite, SQL Server) keeps at least six
 * fractional digits: Trino would round {@code avg(l_discount)} to 0.05 where SQE says 0.050081.
 * Casting the dividend, and the average's argument, to a decimal of the result's scale makes
 * Trino's result type the plan's, so its digits are the ones a local run gives.
 */
final class TrinoScales extends RelHomogeneousShuttle {
  private static final int MAX_DECIMAL = 38;

  @Override
  public RelNode visit(RelNode other) {
    RelNode visited = super.visit(other).accept(new Quotients(other.getCluster().getRexBuilder()));
    return visited instanceof Aggregate aggregate ? averages(aggregate) : visited;
  }

  /** The aggregate with each AVG of a decimal taken of its argument cast to the average's type. */
  private static RelNode averages(Aggregate aggregate) {
    RelNode input = aggregate.getInput();
    RexBuilder rex = aggregate.getCluster().getRexBuilder();
    List<RexNode> columns = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (RelDataTypeField field : input.getRowType().getFieldList()) {
      columns.add(rex.makeInputRef(input, field.getIndex()));
      names.add(field.getName());
    }
    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCall call : aggregate.getAggCallList()) {
      if (call.getAggregation().getKind() == SqlKind.AVG && call.getArgList().size() == 1) {
        RexNode argument = columns.get(call.getArgList().get(0));
        RelDataType scaled = decimalOfScale(rex.getTypeFactory(), call.getType(), argument.getType());
        if (scaled != null) {
          columns.add(rex.makeAbstractCast(scaled, argument));
          names.add("avg_argument_" + calls.size());
          calls.add(call.withArgList(List.of(columns.size() - 1)));
          continue;
        }
      }
      calls.add(call);
    }
    if (columns.size() == input.getRowType().getFieldCount()) {
      return aggregate;
    }
    RelNode cast = LogicalProject.create(input, List.of(), columns, names, Set.of());
    return aggregate.copy(aggregate.getTraitSet(), cast, aggregate.getGroupSet(), aggregate.getGroupSets(), calls);
  }

  /**
   * DECIMAL(38, s) where {@code result} is a decimal of scale s that an operand of type {@code
   * operand} would not give Trino's result, else null.
   */
  private static RelDataType decimalOfScale(RelDataTypeFactory types, RelDataType result, RelDataType operand) {
    if (result.getSqlTypeName() != SqlTypeName.DECIMAL || !SqlTypeUtil.isExactNumeric(operand)) {
      return null;
    }
    if (operand.getSqlTypeName() == SqlTypeName.DECIMAL && operand.getScale() == result.getScale()) {
      return null;
    }
    return types.createTypeWithNullability(
        types.createSqlType(SqlTypeName.DECIMAL, MAX_DECIMAL, result.getScale()), operand.isNullable());
  }

  /** The scale Trino gives a quotient of these operands, or -1 when they are not both exact. */
  private static int trinoScale(RelDataType dividend, RelDataType divisor) {
    if (!SqlTypeUtil.isExactNumeric(dividend) || !SqlTypeUtil.isExactNumeric(divisor)) {
      return -1;
    }
    return Math.max(scale(dividend), scale(divisor));
  }

  private static int scale(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.DECIMAL ? type.getScale() : 0;
  }

  /** Casts the dividend of each decimal quotient, and rewrites the plans of sub-queries too. */
  private final class Quotients extends RexShuttle {
    private final RexBuilder rex;

    Quotients(RexBuilder rex) {
      this.rex = rex;
    }

    @Override
    public RexNode visitCall(RexCall call) {
      RexNode visited = super.visitCall(call);
      if (!(visited instanceof RexCall quotient) || quotient.getKind() != SqlKind.DIVIDE || quotient.getOperands().size() != 2) {
        return visited;
      }
      RexNode dividend = quotient.getOperands().get(0);
      RexNode divisor = quotient.getOperands().get(1);
      if (trinoScale(dividend.getType(), divisor.getType()) == quotient.getType().getScale()
          || !SqlTypeUtil.isExactNumeric(divisor.getType())) {
        return visited;
      }
      RelDataType scaled = decimalOfScale(rex.getTypeFactory(), quotient.getType(), dividend.getType());
      if (scaled == null) {
        return visited;
      }
      return rex.makeCall(quotient.getType(), quotient.getOperator(), List.of(rex.makeAbstractCast(scaled, dividend), divisor));
    }

    @Override
    public RexNode visitSubQuery(RexSubQuery subQuery) {
      RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
      RelNode rel = visited.rel.accept(TrinoScales.this);
      return rel == visited.rel ? visited : visited.clone(rel);
    }
  }
}
