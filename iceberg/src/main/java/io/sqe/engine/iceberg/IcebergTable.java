package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * An Iceberg table as Calcite sees it while planning one statement.
 *
 * <p>A query reads the table's current snapshot when it runs. The write path instead plans its
 * statements over a {@linkplain #forRowLevelWrite row-level write target}: pinned to the snapshot
 * the statement read, with each row's data file and position in it as two extra columns, and
 * remembering the filters its scans were given (the statement's conflict detection filter).
 */
public final class IcebergTable extends AbstractTable implements TranslatableTable {
  /** Name of the extra column that holds a row's data file, when it is not a table column's name. */
  public static final String FILE_COLUMN = "$file";
  /** Name of the extra column that holds a row's position in its data file. */
  public static final String POSITION_COLUMN = "$pos";

  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  private final Table table;
  private final Schema schema;
  private final RowLevelWrite write;
  /** Whether scans read {@link #table} as it is, rather than the table loaded again when they run. */
  private final boolean pinned;
  /** The snapshot a time-travel read is pinned to; null otherwise. */
  private final Long version;
  /**
   * With {@link #version}: scans read only the rows appended after this snapshot up to that one
   * (see {@link #appendedBetween}); null otherwise.
   */
  private final Long appendedAfter;

  public IcebergTable(LakehouseCatalog catalog, TableIdentifier id, Table table) {
    this(catalog, id, table, table.schema(), null, false, null, null);
  }

  private IcebergTable(
      LakehouseCatalog catalog,
      TableIdentifier id,
      Table table,
      Schema schema,
      RowLevelWrite write,
      boolean pinned,
      Long version,
      Long appendedAfter) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.id = requireNonNull(id, "id is null");
    this.table = requireNonNull(table, "table is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.write = write;
    this.pinned = pinned;
    this.version = version;
    this.appendedAfter = appendedAfter;
  }

  /**
   * The table as it was at one snapshot (time travel): scans read that snapshot of {@code table},
   * and its columns are {@code schema}, the table's schema at that snapshot.
   */
  public static IcebergTable atSnapshot(LakehouseCatalog catalog, TableIdentifier id, Table table, long snapshotId, Schema schema) {
    return new IcebergTable(catalog, id, table, schema, null, true, snapshotId, null);
  }

  /**
   * Only the rows that the snapshots after {@code fromExclusive} up to {@code toSnapshotId} appended
   * (Iceberg's incremental append scan): what an incremental refresh of a materialized view reads
   * of a source that only had appends since its last refresh. Its columns are the table's current
   * schema's, which the caller checked is the one both snapshots were written with.
   */
  public static IcebergTable appendedBetween(
      LakehouseCatalog catalog, TableIdentifier id, Table table, long fromExclusive, long toSnapshotId) {
    return new IcebergTable(catalog, id, table, table.schema(), null, true, toSnapshotId, fromExclusive);
  }

  /**
   * A table that scans read as {@code table} has it, never loading it again from the catalog:
   * how statements in a transaction read the state it staged, which the catalog does not have.
   */
  public static IcebergTable pinnedTo(LakehouseCatalog catalog, TableIdentifier id, Table table) {
    return new IcebergTable(catalog, id, table, table.schema(), null, true, null, null);
  }

  /**
   * The table as the target of an UPDATE, DELETE or MERGE: it reads {@code table}'s current
   * snapshot (nothing when it has none) however the table changes meanwhile, and has two more
   * columns after the table's, {@link #fileColumnName()} and {@link #positionColumnName()}.
   */
  public static IcebergTable forRowLevelWrite(LakehouseCatalog catalog, TableIdentifier id, Table table) {
    Snapshot snapshot = table.currentSnapshot();
    Schema schema = table.schema();
    return new IcebergTable(
        catalog,
        id,
        table,
        schema,
        new RowLevelWrite(
            snapshot == null ? null : snapshot.snapshotId(),
            unique(schema, FILE_COLUMN),
            unique(schema, POSITION_COLUMN)),
        true,
        null,
        null);
  }

  private static String unique(Schema schema, String name) {
    String candidate = name;
    for (int i = 2; schema.caseInsensitiveFindField(candidate) != null; i++) {
      candidate = name + i;
    }
    return candidate;
  }

  public LakehouseCatalog catalog() {
    return catalog;
  }

  public TableIdentifier id() {
    return id;
  }

  public Table table() {
    return table;
  }

  public Schema schema() {
    return schema;
  }

  /**
   * The snapshot a scan of this table planned now reads: a time-travel read's, a write target's,
   * or else the current one; empty when the table has none.
   */
  public java.util.OptionalLong plannedSnapshotId() {
    if (version != null) {
      return java.util.OptionalLong.of(version);
    }
    if (write != null) {
      return write.snapshotId == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(write.snapshotId);
    }
    Snapshot current = table.currentSnapshot();
    return current == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(current.snapshotId());
  }

  /** Whether this is a row-level write target (see {@link #forRowLevelWrite}). */
  public boolean isWriteTarget() {
    return write != null;
  }

  /** The snapshot a write target reads; null when the table had none. */
  public Long snapshotId() {
    checkWriteTarget();
    return write.snapshotId;
  }

  /** The name of a write target's column that holds each row's data file path. */
  public String fileColumnName() {
    checkWriteTarget();
    return write.fileColumn;
  }

  /** The name of a write target's column that holds each row's position in its data file. */
  public String positionColumnName() {
    checkWriteTarget();
    return write.positionColumn;
  }

  /**
   * The rows of a write target that the compiled statement reads: the OR of the filters pushed
   * into each of its scans, so {@code true} when some scan reads every row. Known once the
   * statement is planned; {@code false} if no scan of the table survived planning.
   */
  public Expression scannedRows() {
    checkWriteTarget();
    Expression result = Expressions.alwaysFalse();
    for (Expression filter : write.scanFilters) {
      result = Expressions.or(result, filter);
    }
    return result;
  }

  private void checkWriteTarget() {
    if (write == null) {
      throw new IllegalStateException("Table " + id + " is not a write target");
    }
  }

  /** The columns scans of this table can return: the table's, then a write target's two. */
  List<Types.NestedField> columns() {
    if (write == null) {
      return schema.columns();
    }
    List<Types.NestedField> columns = new ArrayList<>(schema.columns());
    columns.add(MetadataColumns.FILE_PATH);
    columns.add(MetadataColumns.ROW_POSITION);
    return columns;
  }

  /** Whether the scan column at {@code index} of {@link #columns()} is a data file's or position. */
  boolean isMetadataColumn(int index) {
    return index >= schema.columns().size();
  }

  /** Whether scans read {@link #table()} at a fixed snapshot rather than the current one when they run. */
  boolean pinned() {
    return pinned;
  }

  /** The snapshot pinned scans read; null when there is none. */
  Long pinnedSnapshotId() {
    if (write != null) {
      return write.snapshotId;
    }
    if (version != null) {
      return version;
    }
    Snapshot snapshot = table.currentSnapshot();
    return snapshot == null ? null : snapshot.snapshotId();
  }

  /** The snapshot after which a scan reads only the appended rows (see {@link #appendedBetween}); null when it reads a whole snapshot. */
  Long appendedAfter() {
    return appendedAfter;
  }

  /** Called when a scan of this table is planned, with the filter pushed into it. */
  void scanned(Expression filter) {
    if (write != null) {
      write.scanFilters.add(filter);
    }
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataType columns = CalciteTypeMapping.toCalcite(typeFactory, schema);
    if (write == null) {
      return columns;
    }
    List<RelDataType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (RelDataTypeField field : columns.getFieldList()) {
      types.add(field.getType());
      names.add(field.getName());
    }
    types.add(typeFactory.createSqlType(SqlTypeName.VARCHAR));
    names.add(write.fileColumn);
    types.add(typeFactory.createSqlType(SqlTypeName.BIGINT));
    names.add(write.positionColumn);
    return typeFactory.createStructType(StructKind.FULLY_QUALIFIED, types, names);
  }

  @Override
  public Statistic getStatistic() {
    return Statistics.of(rowCount(), List.of());
  }

  /** Rows in the snapshot scans read, from its summary; 0 for a table that has no snapshot. */
  public double rowCount() {
    Long pinnedId = write != null ? write.snapshotId : version;
    Snapshot snapshot = write == null && version == null
        ? table.currentSnapshot()
        : pinnedId == null ? null : table.snapshot(pinnedId);
    if (snapshot == null) {
      return 0;
    }
    Map<String, String> summary = snapshot.summary();
    double rows = totalRecords(summary);
    if (appendedAfter != null && rows >= 0) {
      Snapshot from = table.snapshot(appendedAfter);
      double before = from == null ? -1 : totalRecords(from.summary());
      return before < 0 ? rows : Math.max(0, rows - before);
    }
    return rows < 0 ? 1000 : rows;
  }

  /** The rows a snapshot's summary says the table holds; -1 when it does not say. */
  private static double totalRecords(Map<String, String> summary) {
    String total = summary == null ? null : summary.get(SnapshotSummary.TOTAL_RECORDS_PROP);
    if (total == null) {
      return -1;
    }
    try {
      return Double.parseDouble(total);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    return IcebergTableScan.create(context.getCluster(), relOptTable, this);
  }

  /** What a write target adds to a table. */
  private static final class RowLevelWrite {
    private final Long snapshotId;
    private final String fileColumn;
    private final String positionColumn;
    private final List<Expression> scanFilters = new CopyOnWriteArrayList<>();

    RowLevelWrite(Long snapshotId, String fileColumn, String positionColumn) {
      this.snapshotId = snapshotId;
      this.fileColumn = fileColumn;
      this.positionColumn = positionColumn;
    }
  }
}
