package io.sqe.engine.plan.physical;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.iceberg.DynamicFilters;
import io.sqe.engine.iceberg.IcebergTableScan;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataType;

/**
 * Reads an Iceberg table as record batches: the columns, pushed filter, LIKE predicates and limit
 * of the {@link IcebergTableScan} it replaces, with the Parquet decoder's vectors gathered into the
 * batches ({@link IcebergTableScan#batchPlan}).
 */
public final class SqeTableScan extends TableScan implements SqeRel {
  private final IcebergTableScan scan;
  private final BatchPlan plan;
  /** The dynamic filter this scan reads, for EXPLAIN; null for none. */
  private final String dynamicFilter;

  private SqeTableScan(RelTraitSet traits, IcebergTableScan scan, BatchPlan plan, String dynamicFilter) {
    super(scan.getCluster(), traits, List.of(), scan.getTable());
    this.scan = scan;
    this.plan = requireNonNull(plan, "plan is null");
    this.dynamicFilter = dynamicFilter;
  }

  /** The columnar form of {@code scan}, or null when it has none. */
  static SqeTableScan of(IcebergTableScan scan) {
    BatchPlan plan = scan.batchPlan(CalciteTypeMapping.toArrowSchema(scan.getRowType()));
    return plan == null ? null : new SqeTableScan(scan.getTraitSet().replace(CONVENTION), scan, plan, null);
  }

  /** This scan reading too the keys a join publishes in {@code slot} for column {@code column}; null when it cannot. */
  SqeTableScan withDynamicFilter(int column, DynamicFilters.Slot slot) {
    BatchPlan filtered = scan.batchPlan(batchSchema(), column, slot);
    return filtered == null ? null : new SqeTableScan(getTraitSet(), scan, filtered, slot + " on " + getRowType().getFieldNames().get(column));
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeTableScan(traitSet, scan, plan, dynamicFilter);
  }

  @Override
  public RelDataType deriveRowType() {
    return scan.getRowType();
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return scan.explainTerms(pw).itemIf("dynamicFilter", dynamicFilter, dynamicFilter != null);
  }

  @Override
  public BatchPlan implement() {
    return plan;
  }
}
