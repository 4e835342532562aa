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
import org.apache.calcite.util.mapping.MappingType;
import org.apache.calcite.util.mapping.Mappings;
import org.apache.iceberg.expressions.Expression;
import org.immutables.value.Value;

/** Narrows a scan to the columns a Project above it reads. */
@Value.Enclosing
public final class ProjectIntoScanRule extends RelRule<ProjectIntoScanRule.Config> {
  ProjectIntoScanRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Project project = call.rel(0);
    IcebergTableScan scan = call.rel(1);
    ImmutableBitSet used = RelOptUtil.InputFinder.bits(project.getProjects(), null);
    int fieldCount = scan.getRowType().getFieldCount();
    if (used.cardinality() == fieldCount) {
      return;
    }
    List<Integer> narrowed = new ArrayList<>();
    for (int i : used) {
      narrowed.add(scan.projection().get(i));
    }
    IcebergTableScan newScan = scan.withProjection(ImmutableIntList.copyOf(narrowed));
    Mappings.TargetMapping mapping =
        Mappings.create(MappingType.INVERSE_SURJECTION, fieldCount, used.cardinality());
    int target = 0;
    for (int source : used) {
      mapping.set(source, target++);
    }
    RexPermuteInputsShuttle shuttle = RexPermuteInputsShuttle.of(mapping);
    List<RexNode> projects = new ArrayList<>();
    for (RexNode expr : project.getProjects()) {
      projects.add(expr.accept(shuttle));
    }
    RelBuilder builder = call.builder();
    call.transformTo(builder.push(newScan).project(projects, project.getRowType().getFieldNames()).build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = false)
  public interface Config extends RelRule.Config {
    Config DEFAULT =
        ImmutableProjectIntoScanRule.Config.builder()
            .build()
            .withOperandSupplier(
                b0 -> b0.operand(Project.class).oneInput(b1 -> b1.operand(IcebergTableScan.class).noInputs()))
            .as(Config.class);

    @Override
    default ProjectIntoScanRule toRule() {
      return new ProjectIntoScanRule(this);
    }
  }
}
