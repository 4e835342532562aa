package io.sqe.engine.plan;

import io.sqe.engine.iceberg.ColumnStatistics;
import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.List;
import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexUtil;

/**
 * The planner's metadata with better row counts for equi-joins, which drive the join order and
 * which input of a hash join is built. Calcite estimates any equi-join at 15 % of the cross
 * product of its inputs, whatever the keys; here an equi-join yields {@code left * right /
 * max(distinct(left keys), distinct(right keys))}, the textbook estimate, with a key column's
 * distinct values taken from the Iceberg column bounds of the table it comes from (see {@link
 * ColumnStatistics}) and never more than the rows of its side. A key with no estimate counts as
 * unique on its side. Outer joins keep at least the rows of their preserved side; semi- and
 * anti-joins and joins without an equality keep Calcite's estimates.
 */
final class JoinCardinality extends RelMetadataQuery {
  JoinCardinality() {
    super();
  }

  @Override
  public Double getRowCount(RelNode rel) {
    // Every planner, join ordering included, asks for row counts at each step: a cancelled
    // statement's planning stops here when nothing else checks.
    PlanningThreads.checkCancelled();
    if (rel instanceof Join) {
      Double rows = joinRowCount((Join) rel);
      if (rows != null) {
        return rows;
      }
    }
    return super.getRowCount(rel);
  }

  private Double joinRowCount(Join join) {
    switch (join.getJoinType()) {
      case INNER:
      case LEFT:
      case RIGHT:
      case FULL:
        break;
      default:
        return null;
    }
    JoinInfo info = join.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      return null;
    }
    Double left = getRowCount(join.getLeft());
    Double right = getRowCount(join.getRight());
    if (left == null || right == null || left.isInfinite() || right.isInfinite()) {
      return null;
    }
    double leftDistinct = keyDistinctValues(join.getLeft(), info.leftKeys, left);
    double rightDistinct = keyDistinctValues(join.getRight(), info.rightKeys, right);
    double rows = left * right / Math.max(1, Math.max(leftDistinct, rightDistinct));
    if (!info.isEqui()) {
      RexNode rest = RexUtil.composeConjunction(join.getCluster().getRexBuilder(), info.nonEquiConditions);
      rows *= RelMdUtil.guessSelectivity(rest);
    }
    switch (join.getJoinType()) {
      case LEFT:
        rows = Math.max(rows, left);
        break;
      case RIGHT:
        rows = Math.max(rows, right);
        break;
      case FULL:
        rows = Math.max(rows, Math.max(left, right));
        break;
      default:
        break;
    }
    return Math.max(rows, 1);
  }

  /** Distinct combinations of {@code keys} in {@code input}'s rows: at most its rows. */
  private static double keyDistinctValues(RelNode input, List<Integer> keys, double rows) {
    double product = 1;
    for (int key : keys) {
      Double distinct = columnDistinctValues(input, key);
      if (distinct == null) {
        return rows;
      }
      product *= Math.min(distinct, rows);
      if (product >= rows) {
        return rows;
      }
    }
    return Math.max(1, Math.min(product, rows));
  }

  /**
   * Distinct values of column {@code column} of {@code rel} in the table it comes from, following
   * it down through projections, filters, joins, aggregate keys and sorts; null when it is computed
   * or comes from something other than an Iceberg table.
   */
  static Double columnDistinctValues(RelNode rel, int column) {
    for (int depth = 0; depth < 64; depth++) {
      if (rel instanceof RelSubset) {
        RelSubset subset = (RelSubset) rel;
        RelNode next = subset.getBest() != null ? subset.getBest() : subset.getOriginal();
        if (next == null) {
          return null;
        }
        rel = next;
      } else if (rel instanceof HepRelVertex) {
        rel = ((HepRelVertex) rel).getCurrentRel();
      } else if (rel instanceof IcebergTableScan) {
        IcebergTableScan scan = (IcebergTableScan) rel;
        return ColumnStatistics.distinctValues(scan.icebergTable(), scan.projection().get(column));
      } else if (rel instanceof Project) {
        RexNode expression = ((Project) rel).getProjects().get(column);
        if (!(expression instanceof RexInputRef)) {
          return null;
        }
        column = ((RexInputRef) expression).getIndex();
        rel = ((Project) rel).getInput();
      } else if (rel instanceof Calc) {
        RexProgram program = ((Calc) rel).getProgram();
        RexNode expression = program.expandLocalRef(program.getProjectList().get(column));
        if (!(expression instanceof RexInputRef)) {
          return null;
        }
        column = ((RexInputRef) expression).getIndex();
        rel = ((Calc) rel).getInput();
      } else if (rel instanceof Filter || rel instanceof Sort) {
        rel = rel.getInput(0);
      } else if (rel instanceof Join) {
        Join join = (Join) rel;
        int leftCount = join.getLeft().getRowType().getFieldCount();
        if (column < leftCount) {
          rel = join.getLeft();
        } else if (join.getJoinType().projectsRight()) {
          column -= leftCount;
          rel = join.getRight();
        } else {
          return null;
        }
      } else if (rel instanceof Aggregate) {
        Aggregate aggregate = (Aggregate) rel;
        if (column >= aggregate.getGroupCount() || aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
          return null;
        }
        column = aggregate.getGroupSet().nth(column);
        rel = aggregate.getInput();
      } else {
        return null;
      }
    }
    return null;
  }
}
