package io.sqe.engine.plan;

import io.sqe.engine.iceberg.ColumnStatistics;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
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
   * Distinct values of column {@code column} of {@code rel} in the table it comes from ({@link
   * ScanColumns#origin}); null when it is computed or comes from something other than an Iceberg
   * table.
   */
  static Double columnDistinctValues(RelNode rel, int column) {
    return ScanColumns.origin(rel, column)
        .map(origin -> ColumnStatistics.distinctValues(origin.scan().icebergTable(), origin.tableColumn()))
        .orElse(null);
  }
}
