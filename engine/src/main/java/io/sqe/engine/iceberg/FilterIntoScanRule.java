package io.sqe.engine.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexPermuteInputsShuttle;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.ImmutableIntList;
import org.apache.calcite.util.mapping.Mappings;
import org.apache.iceberg.expressions.Expression;
import org.immutables.value.Value;

/** Gives a scan the part of the Filter above it that Iceberg can use to skip files. */
@Value.Enclosing
public final class FilterIntoScanRule extends RelRule<FilterIntoScanRule.Config> {
  FilterIntoScanRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Filter filter = call.rel(0);
    IcebergTableScan scan = call.rel(1);
    if (scan.hasFilter() || scan.limit() != null) {
      return;
    }
    Optional<Expression> pushed =
        new IcebergFilterConverter(scan).convert(filter.getCondition(), filter.getCluster().getRexBuilder());
    if (pushed.isEmpty()) {
      return;
    }
    // The filter stays, and is where the condition is evaluated per row: the scan uses the
    // expression to skip files and row groups, and does not drop rows (IcebergScan relies on this).
    call.transformTo(filter.copy(filter.getTraitSet(), scan.withFilter(pushed.get()), filter.getCondition()));
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = false)
  public interface Config extends RelRule.Config {
    Config DEFAULT =
        ImmutableFilterIntoScanRule.Config.builder()
            .build()
            .withOperandSupplier(
                b0 -> b0.operand(Filter.class).oneInput(b1 -> b1.operand(IcebergTableScan.class).noInputs()))
            .as(Config.class);

    @Override
    default FilterIntoScanRule toRule() {
      return new FilterIntoScanRule(this);
    }
  }
}
