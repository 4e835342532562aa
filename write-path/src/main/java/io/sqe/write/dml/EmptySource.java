package io.sqe.write.dml;

import io.sqe.engine.iceberg.ColumnStatistics;
import io.sqe.engine.iceberg.IcebergTableScan;
import io.sqe.engine.plan.ScanColumns;
import java.util.Comparator;
import java.util.Optional;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.iceberg.types.Comparators;

/**
 * Whether a query provably returns no row, told from the column bounds Iceberg keeps for each data
 * file without reading any: a filter every row passes through has a condition {@code c > (SELECT
 * max(d) FROM t)} (or {@code >=}) whose column {@code c} holds values read unchanged from table
 * columns that are all at most {@code t}'s largest {@code d}. That is the source of an incremental
 * model's MERGE with nothing new ({@code WHERE updated_at > (SELECT max(updated_at) FROM {{ this }})}),
 * which otherwise costs a plan and a run of the source to find no row.
 *
 * <p>{@code t}'s largest {@code d} must be exact ({@link ColumnStatistics#maximum}: bounds of
 * integers, dates, times, timestamps or decimals, no delete file) and read straight from the table
 * (no filter, no policy in between); {@code c}'s values are bounded by the largest value of the
 * column they are read from, under the same conditions. Anything else, and any doubt, is "not
 * known to be empty": the statement then runs as it would have.
 */
final class EmptySource {
  private EmptySource() {}

  /**
   * Whether {@code query} (as parsed) has a sub-query compared with something in a condition:
   * the only queries {@link #why} can find empty, so the others need no logical plan for it.
   */
  static boolean mayApply(SqlNode query) {
    boolean[] found = {false};
    query.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlCall call) {
        SqlKind kind = call.getKind();
        if ((kind == SqlKind.GREATER_THAN || kind == SqlKind.GREATER_THAN_OR_EQUAL || kind == SqlKind.LESS_THAN
                || kind == SqlKind.LESS_THAN_OR_EQUAL)
            && call.getOperandList().stream().anyMatch(o -> o instanceof SqlSelect)) {
          found[0] = true;
        }
        return found[0] ? null : super.visit(call);
      }
    });
    return found[0];
  }

  /** Why the logical plan {@code plan} returns no row, or empty when that is not known. */
  static Optional<String> why(RelNode plan) {
    RelNode node = plan;
    while (true) {
      if (node instanceof Filter filter) {
        for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
          Optional<String> why = emptyCondition(filter, conjunct);
          if (why.isPresent()) {
            return why;
          }
        }
        node = filter.getInput();
      } else if (node instanceof Project || node instanceof Sort) {
        node = node.getInput(0);
      } else if (node instanceof Aggregate aggregate && !aggregate.getGroupSet().isEmpty()
          && aggregate.getGroupType() == Aggregate.Group.SIMPLE) {
        // Grouped, an aggregate of no row is no row (without keys, or with a grand total among its
        // grouping sets, it is one row of NULLs and zeros).
        node = aggregate.getInput();
      } else if (node instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
        Optional<String> left = why(join.getLeft());
        return left.isPresent() ? left : why(join.getRight());
      } else {
        return Optional.empty();
      }
    }
  }

  /** Why {@code conjunct} of {@code filter} holds for no row, or empty. */
  private static Optional<String> emptyCondition(Filter filter, RexNode conjunct) {
    if (!(conjunct instanceof RexCall call) || call.getOperands().size() != 2) {
      return Optional.empty();
    }
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    boolean strict;
    RexNode column;
    RexNode maximum;
    switch (call.getKind()) {
      case GREATER_THAN, GREATER_THAN_OR_EQUAL -> {
        column = left;
        maximum = right;
        strict = call.getKind() == SqlKind.GREATER_THAN;
      }
      case LESS_THAN, LESS_THAN_OR_EQUAL -> {
        column = right;
        maximum = left;
        strict = call.getKind() == SqlKind.LESS_THAN;
      }
      default -> {
        return Optional.empty();
      }
    }
    if (!(column instanceof RexInputRef ref) || !(maximum instanceof RexSubQuery sub) || sub.getKind() != SqlKind.SCALAR_QUERY) {
      return Optional.empty();
    }
    Optional<Bound> largest = tableMaximum(sub.rel);
    if (largest.isEmpty()) {
      return Optional.empty();
    }
    Bound max = largest.get();
    if (max.value() == null) {
      // The maximum of no value is NULL, to which no comparison is true.
      return Optional.of("the largest " + max.column() + " is NULL");
    }
    Optional<Bound> upper = upperBound(filter.getInput(), ref.getIndex(), max);
    if (upper.isEmpty()) {
      return Optional.empty();
    }
    if (upper.get().value() == null) {
      return Optional.of(upper.get().column() + " has no value");
    }
    int c = max.order().compare(upper.get().value(), max.value());
    if (strict ? c <= 0 : c < 0) {
      return Optional.of("no " + upper.get().column() + " is " + (strict ? "greater than" : "at least") + " the largest "
          + max.column() + ", by the data files' column bounds");
    }
    return Optional.empty();
  }

  /** A column's largest value ({@code value} null when it has none), with the order of its type. */
  private record Bound(String column, org.apache.iceberg.types.Type type, Object value, Comparator<Object> order) {}

  /** The exact result of {@code rel} when it is {@code SELECT max(d) FROM t}, with nothing between. */
  private static Optional<Bound> tableMaximum(RelNode rel) {
    RelNode node = rel;
    while (node instanceof Project project && project.getProjects().size() == 1 && project.getProjects().get(0) instanceof RexInputRef) {
      node = project.getInput();
    }
    if (!(node instanceof Aggregate aggregate) || !aggregate.getGroupSet().isEmpty() || aggregate.getAggCallList().size() != 1) {
      return Optional.empty();
    }
    AggregateCall max = aggregate.getAggCallList().get(0);
    if (max.getAggregation().getKind() != SqlKind.MAX || max.getArgList().size() != 1 || max.filterArg >= 0) {
      return Optional.empty();
    }
    int index = max.getArgList().get(0);
    node = aggregate.getInput();
    while (node instanceof Project project) {
      if (!(project.getProjects().get(index) instanceof RexInputRef ref)) {
        return Optional.empty();
      }
      index = ref.getIndex();
      node = project.getInput();
    }
    if (!(node instanceof IcebergTableScan scan)) {
      return Optional.empty();
    }
    return column(scan, index);
  }

  /**
   * An upper bound of output column {@code index} of {@code rel}: the largest value of the table
   * column it is read from unchanged ({@link ScanColumns#origin}), of {@code like}'s type; empty
   * when it is computed, or read from anything else (a policy's masks among them).
   */
  private static Optional<Bound> upperBound(RelNode rel, int index, Bound like) {
    return ScanColumns.origin(rel, index)
        .flatMap(origin -> column(origin.scan(), origin.index()))
        .filter(bound -> bound.type().equals(like.type()));
  }

  /** Column {@code index} of an Iceberg table's scan and its largest value, when the files tell it. */
  private static Optional<Bound> column(IcebergTableScan scan, int index) {
    int tableColumn = scan.projection().get(index);
    String column = scan.getTable().getQualifiedName().get(scan.getTable().getQualifiedName().size() - 1) + "."
        + scan.getRowType().getFieldList().get(index).getName();
    return ColumnStatistics.maximum(scan.icebergTable(), tableColumn).map(m -> new Bound(
        column, m.type(), m.value(), Comparators.forType(m.type().asPrimitiveType())));
  }
}
