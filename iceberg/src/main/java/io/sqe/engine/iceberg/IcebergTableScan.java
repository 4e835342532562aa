package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableConvention;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableRelImplementor;
import org.apache.calcite.adapter.enumerable.JavaRowFormat;
import org.apache.calcite.adapter.enumerable.PhysType;
import org.apache.calcite.adapter.enumerable.PhysTypeImpl;
import org.apache.calcite.linq4j.tree.Blocks;
import org.apache.calcite.linq4j.tree.Expression;
import org.apache.calcite.linq4j.tree.Expressions;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptCost;
import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.ImmutableIntList;
import org.apache.iceberg.types.Types;

/**
 * Reads an Iceberg table: the columns it projects, the rows its pushed-down filter may match (for
 * partition and min/max pruning; the filter stays in the plan above), and at most {@code limit}
 * rows.
 */
public final class IcebergTableScan extends TableScan implements EnumerableRel {
  private final IcebergTable icebergTable;
  private final ImmutableIntList projection;
  private final org.apache.iceberg.expressions.Expression filter;
  private final Long limit;
  /** Whether the scan runs as parts of a parallel pipeline, each reading some of its files. */
  private final boolean partitioned;
  /** Conjuncts of the Filter above that the scan evaluates exactly, so that the Filter no longer holds them. */
  private final List<LikePredicate> likes;
  /** The estimated fraction of rows {@link #likes} keep. */
  private final double likeSelectivity;

  private IcebergTableScan(
      RelOptCluster cluster,
      RelTraitSet traitSet,
      RelOptTable table,
      IcebergTable icebergTable,
      ImmutableIntList projection,
      org.apache.iceberg.expressions.Expression filter,
      Long limit) {
    this(cluster, traitSet, table, icebergTable, projection, filter, limit, false, List.of(), 1.0);
  }

  private IcebergTableScan(
      RelOptCluster cluster,
      RelTraitSet traitSet,
      RelOptTable table,
      IcebergTable icebergTable,
      ImmutableIntList projection,
      org.apache.iceberg.expressions.Expression filter,
      Long limit,
      boolean partitioned,
      List<LikePredicate> likes,
      double likeSelectivity) {
    super(cluster, traitSet, List.of(), table);
    this.icebergTable = requireNonNull(icebergTable, "icebergTable is null");
    this.projection = requireNonNull(projection, "projection is null");
    this.filter = requireNonNull(filter, "filter is null");
    this.limit = limit;
    this.partitioned = partitioned;
    this.likes = List.copyOf(likes);
    this.likeSelectivity = likeSelectivity;
  }

  static IcebergTableScan create(RelOptCluster cluster, RelOptTable table, IcebergTable icebergTable) {
    int columns = icebergTable.columns().size();
    return new IcebergTableScan(
        cluster,
        cluster.traitSetOf(EnumerableConvention.INSTANCE),
        table,
        icebergTable,
        ImmutableIntList.identity(columns),
        org.apache.iceberg.expressions.Expressions.alwaysTrue(),
        null);
  }

  public IcebergTable icebergTable() {
    return icebergTable;
  }

  /** The table columns this scan returns, by position in the table schema. */
  public ImmutableIntList projection() {
    return projection;
  }

  public org.apache.iceberg.expressions.Expression filter() {
    return filter;
  }

  public boolean hasFilter() {
    return filter.op() != org.apache.iceberg.expressions.Expression.Operation.TRUE;
  }

  public Long limit() {
    return limit;
  }

  /**
   * The table column behind output field {@code index}; for a write target's data file and
   * position columns, Iceberg's metadata column.
   */
  public Types.NestedField column(int index) {
    return icebergTable.columns().get(projection.get(index));
  }

  /** Whether output field {@code index} is a write target's data file or position column. */
  public boolean isMetadataColumn(int index) {
    return icebergTable.isMetadataColumn(projection.get(index));
  }

  /** This scan reading the table's columns {@code newProjection} (positions in the table), with its filter, LIKEs and limit. */
  public IcebergTableScan withProjection(ImmutableIntList newProjection) {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, newProjection, filter, limit, partitioned, likes, likeSelectivity);
  }

  IcebergTableScan withFilter(org.apache.iceberg.expressions.Expression newFilter) {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, projection, newFilter, limit, partitioned, likes, likeSelectivity);
  }

  /** This scan, also dropping the rows that {@code newLikes} do not keep (about {@code selectivity} of them pass). */
  IcebergTableScan withLikes(List<LikePredicate> newLikes, double selectivity) {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, projection, filter, limit, partitioned, newLikes, selectivity);
  }

  IcebergTableScan withLimit(long newLimit) {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, projection, filter, newLimit, partitioned, likes, likeSelectivity);
  }

  /** The LIKE predicates this scan evaluates exactly (the Filter above does not hold them). */
  List<LikePredicate> likes() {
    return likes;
  }

  double likeSelectivity() {
    return likeSelectivity;
  }

  /** Whether the scan drops rows itself: with {@link #likes}, unlike its pushed filter, which only skips files. */
  public boolean dropsRows() {
    return !likes.isEmpty();
  }

  /** Whether the scan runs as parts of a parallel pipeline (see {@link #partitioned()}). */
  public boolean isPartitioned() {
    return partitioned;
  }

  /**
   * This scan as one part of a parallel pipeline: each part, run with its part's data context
   * ({@link io.sqe.engine.exec.parallel.ScanPart}), reads the files it claims from the files all
   * parts planned once, from one snapshot.
   */
  public IcebergTableScan partitioned() {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, projection, filter, limit, true, likes, likeSelectivity);
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new IcebergTableScan(getCluster(), traitSet, table, icebergTable, projection, filter, limit, partitioned, likes, likeSelectivity);
  }

  @Override
  public RelDataType deriveRowType() {
    RelDataType full = table.getRowType();
    List<RelDataTypeField> fields = full.getFieldList();
    RelDataTypeFactory.Builder builder = getCluster().getTypeFactory().builder();
    for (int i : projection) {
      builder.add(fields.get(i));
    }
    return builder.build();
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    List<String> names = new ArrayList<>();
    List<RelDataTypeField> fields = table.getRowType().getFieldList();
    for (int i : projection) {
      names.add(fields.get(i).getName());
    }
    return super.explainTerms(pw)
        .item("columns", names)
        .itemIf("filter", filter, hasFilter())
        .itemIf("like", likes, !likes.isEmpty())
        .itemIf("limit", limit, limit != null)
        .itemIf("parallel", true, partitioned)
        .itemIf("appendedAfter", icebergTable.appendedAfter(), icebergTable.appendedAfter() != null)
        .itemIf("snapshot", icebergTable.pinnedSnapshotId(), icebergTable.appendedAfter() != null);
  }

  /**
   * The rows of the table that its LIKE predicates keep, or at most the limit. A pushed filter does
   * not change the estimate: the Filter above the scan, which stays in the plan, applies its
   * selectivity once.
   */
  @Override
  public double estimateRowCount(RelMetadataQuery mq) {
    double rows = icebergTable.rowCount() * likeSelectivity;
    if (limit != null) {
      rows = Math.min(rows, limit);
    }
    return Math.max(rows, 1);
  }

  @Override
  public RelOptCost computeSelfCost(RelOptPlanner planner, RelMetadataQuery mq) {
    double rows = estimateRowCount(mq);
    if (hasFilter()) {
      // Cheaper with a filter, which may skip files, so that the plan that pushes it down wins.
      rows *= 0.25;
    }
    int total = Math.max(1, icebergTable.columns().size());
    // Cheaper with fewer columns, so that plans which read less win.
    double width = (projection.size() + 1.0) / (total + 1.0);
    return planner.getCostFactory().makeCost(rows, rows * width, rows * width);
  }

  /** Narrows the scan to the columns a parent uses; called by Calcite's field trimmer. */
  @Override
  public RelNode project(ImmutableBitSet fieldsUsed, Set<RelDataTypeField> extraFields, RelBuilder relBuilder) {
    if (!extraFields.isEmpty()) {
      return super.project(fieldsUsed, extraFields, relBuilder);
    }
    List<Integer> narrowed = new ArrayList<>();
    for (int i : fieldsUsed) {
      narrowed.add(projection.get(i));
    }
    return withProjection(ImmutableIntList.copyOf(narrowed));
  }

  /**
   * This scan's columnar form, producing record batches of {@code schema} (the Arrow types of its
   * row type). A partitioned scan's columnar form runs as the parts of a columnar gather, each reading the splits it claims.
   */
  public io.sqe.engine.exec.batch.BatchPlan batchPlan(org.apache.arrow.vector.types.pojo.Schema schema) {
    IcebergScan scan = new IcebergScan(icebergTable, projection, filter, likes, limit, partitioned, List.of());
    return (context, allocator) -> scan.batches(context, allocator, schema);
  }

  /**
   * As {@link #batchPlan(org.apache.arrow.vector.types.pojo.Schema)}, reading too the keys a
   * columnar join publishes in {@code slot} for column {@code column} ({@link DynamicFilters#canFilter}).
   */
  public io.sqe.engine.exec.batch.BatchPlan batchPlan(org.apache.arrow.vector.types.pojo.Schema schema, int column, DynamicFilters.Slot slot) {
    if (!DynamicFilters.canFilter(this, column)) {
      return null;
    }
    // A split scan too: the parts' shared build side publishes its keys for the whole execution.
    IcebergScan scan =
        new IcebergScan(icebergTable, projection, filter, likes, limit, partitioned, List.of(new DynamicFilters.Target(this, column, slot)));
    return (context, allocator) -> scan.batches(context, allocator, schema);
  }

  /**
   * Tells the table, when it is a write target, which of its rows this scan reads ({@link
   * IcebergTable#scannedRows}); called once for each scan of a finished plan, whichever runtime
   * runs it.
   */
  public void planned() {
    icebergTable.scanned(filter);
  }

  @Override
  public Result implement(EnumerableRelImplementor implementor, Prefer pref) {
    // Calcite's own row shape: a bare value for one column, an empty list for none, else an array.
    PhysType physType = PhysTypeImpl.of(implementor.getTypeFactory(), getRowType(), JavaRowFormat.ARRAY);
    // A join above may have offered its build-side keys for one of this scan's columns.
    IcebergScan scan = new IcebergScan(icebergTable, projection, filter, likes, limit, partitioned, DynamicFilters.claim(this));
    Expression stashed = implementor.stash(scan, IcebergScan.class);
    return implementor.result(
        physType,
        Blocks.toBlock(
            Expressions.call(stashed, "enumerate", implementor.getRootExpression())));
  }
}
