package io.sqe.engine.plan;

import java.lang.reflect.Method;
import java.util.List;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableIntersect;
import org.apache.calcite.adapter.enumerable.EnumerableMinus;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.EnumerableRules;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.Ord;
import org.apache.calcite.linq4j.tree.BlockBuilder;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.convert.ConverterRule;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.logical.LogicalIntersect;
import org.apache.calcite.rel.logical.LogicalMinus;
import org.apache.calcite.util.BuiltInMethod;

/**
 * EXCEPT and INTERSECT (and their ALL forms) as Calcite's enumerable operators, with one change in
 * how their inputs are generated.
 *
 * <p>Calcite's versions ask every input after the first for the row format the first chose. When
 * the first input has one column (a scalar row), that request reaches multi-column operators below
 * the other inputs as "custom" rows, which SQE's type factory does not generate (its rows are
 * arrays), and the query fails to compile ("Unable to implement EnumerableCalc over
 * EnumerableMinus"). Here each input is generated as it prefers and converted to the first one's
 * format afterwards.
 */
final class SetOperations {
  private SetOperations() {}

  /** Replaces Calcite's EXCEPT and INTERSECT rules in {@code planner} with SQE's. */
  static void register(RelOptPlanner planner) {
    planner.removeRule(EnumerableRules.ENUMERABLE_MINUS_RULE);
    planner.removeRule(EnumerableRules.ENUMERABLE_INTERSECT_RULE);
    planner.addRule(SetOpRule.of(LogicalMinus.class, "SqeMinusRule", Minus::new));
    planner.addRule(SetOpRule.of(LogicalIntersect.class, "SqeIntersectRule", Intersect::new));
  }

  /** EXCEPT [ALL]. */
  static final class Minus extends EnumerableMinus {
    Minus(RelOptCluster cluster, RelTraitSet traits, List<RelNode> inputs, boolean all) {
      super(cluster, traits, inputs, all);
    }

    @Override
    public Minus copy(RelTraitSet traits, List<RelNode> inputs, boolean all) {
      return new Minus(getCluster(), traits, inputs, all);
    }

    @Override
    public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
      return SetOperations.implement(this, implementor, pref, BuiltInMethod.EXCEPT.method);
    }
  }

  /** INTERSECT [ALL]. */
  static final class Intersect extends EnumerableIntersect {
    Intersect(RelOptCluster cluster, RelTraitSet traits, List<RelNode> inputs, boolean all) {
      super(cluster, traits, inputs, all);
    }

    @Override
    public Intersect copy(RelTraitSet traits, List<RelNode> inputs, boolean all) {
      return new Intersect(getCluster(), traits, inputs, all);
    }

    @Override
    public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
      return SetOperations.implement(this, implementor, pref, BuiltInMethod.INTERSECT.method);
    }
  }

  private static <T extends SetOp & EnumerableRel> EnumerableRel.Result implement(
      T rel, EnumerableRelImplementor implementor, EnumerableRel.Prefer pref, Method method) {
    BlockBuilder builder = new BlockBuilder();
    Expression combined = null;
    PhysType first = null;
    for (Ord<RelNode> input : Ord.zip(rel.getInputs())) {
      EnumerableRel.Result result = implementor.visitChild(rel, input.i, (EnumerableRel) input.e, pref);
      Expression child = builder.append("child" + input.i, result.block);
      if (first == null) {
        first = result.physType;
        combined = child;
        continue;
      }
      if (result.format != first.getFormat()) {
        child = builder.append("converted" + input.i, result.physType.convertTo(child, first.getFormat()));
      }
      combined = Expressions.call(
          combined, method, Expressions.list(child).appendIfNotNull(first.comparer()).append(Expressions.constant(rel.all)));
    }
    builder.add(combined);
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), rel.getRowType(), first.getFormat());
    return implementor.result(physType, builder.toBlock());
  }

  /** Turns a logical set operation of {@code type} into the operator {@code node} makes. */
  private static final class SetOpRule extends ConverterRule {
    /** The constructor shape of {@link Minus} and {@link Intersect}. */
    interface Node {
      RelNode create(RelOptCluster cluster, RelTraitSet traits, List<RelNode> inputs, boolean all);
    }

    private final Node node;

    static RelOptRule of(Class<? extends SetOp> type, String name, Node node) {
      return Config.INSTANCE
          .withConversion(type, Convention.NONE, EnumerableConvention.INSTANCE, name)
          .withRuleFactory(config -> new SetOpRule(config, node))
          .toRule();
    }

    private SetOpRule(Config config, Node node) {
      super(config);
      this.node = node;
    }

    @Override
    public RelNode convert(RelNode rel) {
      SetOp op = (SetOp) rel;
      return node.create(
          rel.getCluster(),
          rel.getTraitSet().replace(EnumerableConvention.INSTANCE),
          convertList(op.getInputs(), EnumerableConvention.INSTANCE),
          op.all);
    }
  }
}
