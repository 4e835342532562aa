package io.sqe.engine.plan.physical;

import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableLimit;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexLocalRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;

/**
 * Replaces a finished Enumerable plan by SQE's columnar operators when they implement every node of
 * it: today a scan of an Iceberg table's columns, a selection of those columns, OFFSET and FETCH,
 * which is what {@code SELECT *}-style exports are. Such a result goes from the Parquet decoder to
 * the client as Arrow batches, with no Java object per value. Any other plan runs on Calcite's
 * Enumerable runtime as before, and EXPLAIN shows which: {@code Sqe...} nodes or {@code
 * Enumerable...} ones.
 *
 * <p>Policies never meet a columnar plan they would not hold in: a column mask is an expression, a
 * row filter a condition, and a policy's boundary a node of its own, none of which is lowered.
 */
public final class ColumnarLowering {
  private ColumnarLowering() {}

  /** The columnar form of {@code rel}, or null when a node of it has none yet. */
  public static SqeRel lower(RelNode rel) {
    if (rel instanceof IcebergTableScan scan) {
      for (int i = 0; i < scan.getRowType().getFieldCount(); i++) {
        if (scan.isMetadataColumn(i)) {
          return null;
        }
      }
      return scan.getRowType().getFieldCount() == 0 ? null : SqeTableScan.of(scan);
    }
    if (rel instanceof EnumerableCalc calc) {
      return project(calc);
    }
    if (rel instanceof EnumerableLimit limit) {
      Long offset = limit.offset == null ? Long.valueOf(0) : literal(limit.offset);
      Long fetch = limit.fetch == null ? Long.valueOf(-1) : literal(limit.fetch);
      SqeRel input = offset == null || fetch == null ? null : lower(limit.getInput());
      return input == null ? null : new SqeLimit(limit.getTraitSet().replace(SqeRel.CONVENTION), input, offset, fetch);
    }
    return null;
  }

  /** A Calc that only picks columns, each at most once, over a plan that lowers. */
  private static SqeRel project(EnumerableCalc calc) {
    RexProgram program = calc.getProgram();
    if (program.getCondition() != null) {
      return null;
    }
    List<RexLocalRef> projects = program.getProjectList();
    int[] columns = new int[projects.size()];
    Set<Integer> seen = new HashSet<>();
    boolean identity = projects.size() == calc.getInput().getRowType().getFieldCount();
    for (int i = 0; i < columns.length; i++) {
      RexNode expression = program.expandLocalRef(projects.get(i));
      if (!(expression instanceof RexInputRef ref) || !seen.add(ref.getIndex())) {
        return null;
      }
      columns[i] = ref.getIndex();
      identity &= columns[i] == i;
    }
    SqeRel input = lower(calc.getInput());
    if (input == null) {
      return null;
    }
    return identity ? input : new SqeProject(calc.getTraitSet().replace(SqeRel.CONVENTION), input, columns, calc.getRowType());
  }

  private static Long literal(RexNode node) {
    if (node instanceof RexLiteral literal) {
      Number value = literal.getValueAs(Long.class);
      return value == null ? null : value.longValue();
    }
    return null;
  }
}
