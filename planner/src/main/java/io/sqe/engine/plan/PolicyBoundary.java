package io.sqe.engine.plan;

import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.convert.ConverterRule;

/**
 * Where an access policy's row filter and masks end and the statement's own operators begin. No
 * planner rule knows this node, so none moves a filter, projection or join condition of the
 * statement below it: a predicate of the statement never sees a row the policy hides (it could
 * otherwise fail on one, say by dividing by zero, and reveal that the row exists).
 */
public final class PolicyBoundary extends SingleRel {
  static final ConverterRule ENUMERABLE_RULE =
      ConverterRule.Config.INSTANCE
          .withConversion(PolicyBoundary.class, Convention.NONE, EnumerableConvention.INSTANCE, "PolicyBoundaryRule")
          .withRuleFactory(EnumerableRule::new)
          .toRule(EnumerableRule.class);

  private PolicyBoundary(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
    super(cluster, traits, input);
  }

  static PolicyBoundary over(RelNode input) {
    return new PolicyBoundary(input.getCluster(), input.getTraitSet().replace(Convention.NONE), input);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new PolicyBoundary(getCluster(), traitSet, sole(inputs));
  }

  /**
   * {@code rel} without its boundaries, for an engine that runs the whole statement as SQL: there
   * the row filter and masks sit in a derived table, which that engine's optimizer keeps below the
   * statement's predicates only as far as its own rules allow.
   */
  static RelNode strip(RelNode rel) {
    return rel.accept(new org.apache.calcite.rel.RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        RelNode visited = super.visit(other);
        return visited instanceof PolicyBoundary ? ((PolicyBoundary) visited).getInput() : visited;
      }
    });
  }

  /** The boundary in a compiled plan: it passes its input's rows through. */
  public static final class Enumerable extends SingleRel implements EnumerableRel {
    Enumerable(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
      super(cluster, traits, input);
    }

    @Override
    public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
      return new Enumerable(getCluster(), traitSet, sole(inputs));
    }

    @Override
    public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
      return implementor.visitChild(this, 0, (EnumerableRel) getInput(), pref);
    }
  }

  private static final class EnumerableRule extends ConverterRule {
    EnumerableRule(Config config) {
      super(config);
    }

    @Override
    public RelNode convert(RelNode rel) {
      RelNode input = convert(((PolicyBoundary) rel).getInput(), rel.getTraitSet().replace(EnumerableConvention.INSTANCE));
      return new Enumerable(rel.getCluster(), rel.getTraitSet().replace(EnumerableConvention.INSTANCE), input);
    }
  }
}
