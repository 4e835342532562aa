package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.MeasuredOperator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.rel.RelNode;

/**
 * A node of SQE's own physical plan: an operator that passes Arrow record batches, named in
 * EXPLAIN as {@code Sqe...}. Calcite optimizes the plan in its Enumerable convention; {@link
 * ColumnarLowering} then replaces the part of the plan these operators implement.
 */
public interface SqeRel extends RelNode {
  Convention CONVENTION = new Convention.Impl("SQE", SqeRel.class);

  /** The operator tree of this node and its inputs, to open once per execution. */
  BatchPlan implement();

  /**
   * The operator tree of {@code node}, a {@code SqeRel}, whose operators count their figures under
   * the node's id (see {@link io.sqe.engine.exec.profile.ProfiledPlan}); inputs are implemented
   * through this, so every operator of a plan is measured.
   */
  static BatchPlan implement(RelNode node) {
    return MeasuredOperator.measured(node.getId(), ((SqeRel) node).implement());
  }

  /** The Arrow schema of this node's batches: its row type's columns, as results carry them. */
  default Schema batchSchema() {
    return CalciteTypeMapping.toArrowSchema(getRowType());
  }
}
