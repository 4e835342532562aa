package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.rules.DateRangeRules;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's rule that turns {@code EXTRACT(YEAR FROM d) = 1995} or {@code FLOOR(ts TO DAY) = ...}
 * into ranges of {@code d} (which scans then prune files by), applied only to dates and timestamps.
 * Calcite's own also takes {@code FLOOR(t TO HOUR)} of a TIME, and then fails an assertion
 * ("Was not expecting value 'HOUR' for enumeration") while planning: an internal error for a
 * valid statement, found by the SQL fuzzer.
 */
final class DateRanges {
  static final RelOptRule RULE =
      DateRangeRules.FilterDateRangeRule.FilterDateRangeRuleConfig.DEFAULT
          .withOperandSupplier(b -> b.operand(Filter.class).predicate(DateRanges::roundsDatesOnly).anyInputs())
          .as(DateRangeRules.FilterDateRangeRule.FilterDateRangeRuleConfig.class)
          .toRule();

  private DateRanges() {}

  /** Whether the filter's condition has EXTRACT, FLOOR or CEIL of time units, all of dates or timestamps. */
  static boolean roundsDatesOnly(Filter filter) {
    List<RexCall> calls = new ArrayList<>();
    filter.getCondition().accept(new RexShuttle() {
      @Override
      public RexNode visitCall(RexCall call) {
        boolean rounding = (call.getKind() == SqlKind.FLOOR || call.getKind() == SqlKind.CEIL) && call.getOperands().size() == 2;
        if (call.getKind() == SqlKind.EXTRACT || rounding) {
          calls.add(call);
        }
        return super.visitCall(call);
      }
    });
    if (calls.isEmpty()) {
      return false;
    }
    for (RexCall call : calls) {
      RexNode operand = call.getOperands().get(call.getKind() == SqlKind.EXTRACT ? 1 : 0);
      SqlTypeName type = operand.getType().getSqlTypeName();
      if (type != SqlTypeName.DATE && type != SqlTypeName.TIMESTAMP && type != SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
        return false;
      }
    }
    return true;
  }
}
