package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.FilterBatches;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.expr.Predicates;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/** Keeps the rows of its input a condition keeps, evaluated on the batches ({@link FilterBatches}). */
public final class SqeFilter extends SingleRel implements SqeRel {
  private final RexNode condition;
  private final Predicate predicate;

  private SqeFilter(RelTraitSet traits, RelNode input, RexNode condition, Predicate predicate) {
    super(input.getCluster(), traits, input);
    this.condition = condition;
    this.predicate = predicate;
  }

  /** The filter of {@code input}'s rows by {@code condition}, or null when the evaluator cannot run the condition. */
  static SqeFilter of(RelTraitSet traits, SqeRel input, RexNode condition) {
    Predicate predicate = predicate(condition, input.getRowType(), input.getCluster().getRexBuilder());
    return predicate == null ? null : new SqeFilter(traits, input, condition, predicate);
  }

  /**
   * {@code condition} over rows of {@code rowType} as the evaluator runs it ({@link
   * PredicateCompiler}), else its conjuncts the evaluator runs and the others row-wise; null when
   * neither can. A filter's condition, and a join's over a left row's columns then a right row's.
   */
  static Predicate predicate(RexNode condition, RelDataType rowType, RexBuilder rexBuilder) {
    Predicate predicate = PredicateCompiler.compile(condition, rowType);
    return predicate != null ? predicate : withRowwise(condition, rowType, rexBuilder);
  }

  /**
   * The conjuncts the evaluator runs, then the others row-wise ({@link RowwiseCompiler}) on the
   * rows the first kept: AND's order is free in SQL, and this one evaluates row-wise code on the
   * fewest rows (so it raises an error only where the row runtime, in the written order, could).
   */
  private static Predicate withRowwise(RexNode condition, RelDataType rowType, RexBuilder rexBuilder) {
    List<Predicate> compiled = new ArrayList<>();
    List<RexNode> others = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
      Predicate predicate = PredicateCompiler.compile(conjunct, rowType);
      if (predicate == null) {
        others.add(conjunct);
      } else {
        compiled.add(predicate);
      }
    }
    Predicate rowwise = RowwiseCompiler.predicate(RexUtil.composeConjunction(rexBuilder, others), rowType, rexBuilder);
    if (rowwise == null) {
      return null;
    }
    compiled.add(rowwise);
    return compiled.size() == 1 ? rowwise : Predicates.and(compiled);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeFilter(traitSet, sole(inputs), condition, predicate);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("condition", condition);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = SqeRel.implement(input);
    Predicate keep = predicate;
    return (context, allocator) -> new FilterBatches(in.open(context, allocator), keep, context, allocator);
  }
}
