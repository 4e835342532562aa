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

/** Lets a scan stop after OFFSET + FETCH rows when nothing between it and the limit drops rows. */
@Value.Enclosing
public final class LimitIntoScanRule extends RelRule<LimitIntoScanRule.Config> {
  LimitIntoScanRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Sort sort = call.rel(0);
    IcebergTableScan scan = call.rel(1);
    // A filtered scan returns rows its filter does not match (the Filter above drops them), so a
    // limit inside it would count rows that never reach the Sort.
    if (sort.fetch == null || !sort.getCollation().getFieldCollations().isEmpty() || scan.limit() != null || scan.hasFilter()) {
      return;
    }
    if (!(sort.fetch instanceof RexLiteral) || (sort.offset != null && !(sort.offset instanceof RexLiteral))) {
      return;
    }
    long limit = RexLiteral.longValue(sort.fetch);
    if (sort.offset != null) {
      limit += RexLiteral.longValue(sort.offset);
    }
    call.transformTo(sort.copy(sort.getTraitSet(), List.of(scan.withLimit(limit))));
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = false)
  public interface Config extends RelRule.Config {
    Config DEFAULT =
        ImmutableLimitIntoScanRule.Config.builder()
            .build()
            .withOperandSupplier(
                b0 -> b0.operand(Sort.class).oneInput(b1 -> b1.operand(IcebergTableScan.class).noInputs()))
            .as(Config.class);

    @Override
    default LimitIntoScanRule toRule() {
      return new LimitIntoScanRule(this);
    }
  }
}
