package io.sqe.engine.plan.physical;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.RowSourceBatches;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;

/**
 * A table whose rows are made by Java code rather than read from data files: an Iceberg metadata
 * table or an information_schema table, its rows written into batches ({@link RowSourceBatches}).
 */
public final class SqeRowSource extends TableScan implements SqeRel {
  private final RelDataType rowType;
  /** The conditions handed to the table, over all its columns (for EXPLAIN). */
  private final List<RexNode> filters;
  private final Function<DataContext, Enumerable<?>> rows;

  /**
   * @param rows the table's rows for an execution (whose data context it reads), in Calcite's shape:
   *     a bare value for one column, else an {@code Object[]}
   */
  SqeRowSource(
      RelTraitSet traits, RelNode scan, RelOptTable table, RelDataType rowType, List<RexNode> filters, Function<DataContext, Enumerable<?>> rows) {
    super(scan.getCluster(), traits, List.of(), table);
    this.rowType = requireNonNull(rowType, "rowType is null");
    this.filters = List.copyOf(filters);
    this.rows = requireNonNull(rows, "rows is null");
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeRowSource(traitSet, this, table, rowType, filters, rows);
  }

  @Override
  public RelDataType deriveRowType() {
    return rowType;
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).itemIf("filters", filters, !filters.isEmpty()).item("columns", rowType.getFieldNames());
  }

  @Override
  public BatchPlan implement() {
    Schema schema = batchSchema();
    Function<DataContext, Enumerable<?>> source = rows;
    return (context, allocator) -> new RowSourceBatches(source.apply(context), schema, context, allocator);
  }
}
