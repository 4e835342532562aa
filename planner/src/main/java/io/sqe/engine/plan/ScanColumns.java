package io.sqe.engine.plan;

import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.Optional;
import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;

/**
 * Where a plan's output column is read from unchanged: a column of an Iceberg table's scan,
 * followed down through projections, filters, sorts, joins and aggregate keys. The table's file
 * statistics then tell about the column: its distinct values for join estimates ({@link
 * JoinCardinality}), its largest value for a write's source known empty (write-path {@code
 * EmptySource}).
 */
public final class ScanColumns {
  private ScanColumns() {}

  /** Output column {@code index} of {@code scan}. */
  public record ScanColumn(IcebergTableScan scan, int index) {
    /** The column's position among its table's columns ({@code IcebergTable#columns}). */
    public int tableColumn() {
      return scan.projection().get(index);
    }
  }

  /**
   * The scan column that output column {@code column} of {@code rel} holds unchanged; empty when it
   * is computed (a policy's mask among such), aggregated, or read from anything but an Iceberg
   * table.
   */
  public static Optional<ScanColumn> origin(RelNode rel, int column) {
    for (int depth = 0; depth < 64; depth++) {
      if (rel instanceof RelSubset subset) {
        RelNode next = subset.getBest() != null ? subset.getBest() : subset.getOriginal();
        if (next == null) {
          return Optional.empty();
        }
        rel = next;
      } else if (rel instanceof HepRelVertex vertex) {
        rel = vertex.getCurrentRel();
      } else if (rel instanceof IcebergTableScan scan) {
        return Optional.of(new ScanColumn(scan, column));
      } else if (rel instanceof Project project) {
        if (!(project.getProjects().get(column) instanceof RexInputRef ref)) {
          return Optional.empty();
        }
        column = ref.getIndex();
        rel = project.getInput();
      } else if (rel instanceof Calc calc) {
        RexProgram program = calc.getProgram();
        RexNode expression = program.expandLocalRef(program.getProjectList().get(column));
        if (!(expression instanceof RexInputRef ref)) {
          return Optional.empty();
        }
        column = ref.getIndex();
        rel = calc.getInput();
      } else if (rel instanceof Filter || rel instanceof Sort) {
        rel = rel.getInput(0);
      } else if (rel instanceof Join join) {
        int leftCount = join.getLeft().getRowType().getFieldCount();
        if (column < leftCount) {
          rel = join.getLeft();
        } else if (join.getJoinType().projectsRight()) {
          column -= leftCount;
          rel = join.getRight();
        } else {
          return Optional.empty();
        }
      } else if (rel instanceof Aggregate aggregate) {
        if (column >= aggregate.getGroupCount() || aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
          return Optional.empty();
        }
        column = aggregate.getGroupSet().nth(column);
        rel = aggregate.getInput();
      } else {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
