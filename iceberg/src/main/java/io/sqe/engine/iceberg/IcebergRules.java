package io.sqe.engine.iceberg;

import java.util.List;
import org.apache.calcite.plan.RelOptRule;

/** Planner rules that push projections, filters and limits into {@link IcebergTableScan}. */
public final class IcebergRules {
  private IcebergRules() {}

  public static List<RelOptRule> all() {
    return List.of(
        ProjectIntoScanRule.Config.DEFAULT.toRule(),
        FilterIntoScanRule.Config.DEFAULT.toRule(),
        LimitIntoScanRule.Config.DEFAULT.toRule());
  }
}
