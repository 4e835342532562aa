package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.TranslatableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/** An Iceberg table as Calcite sees it while planning one statement. */
public final class IcebergTable extends AbstractTable implements TranslatableTable {
  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  private final Table table;
  private final Schema schema;

  public IcebergTable(LakehouseCatalog catalog, TableIdentifier id, Table table) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.id = requireNonNull(id, "id is null");
    this.table = requireNonNull(table, "table is null");
    this.schema = table.schema();
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

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return CalciteTypeMapping.toCalcite(typeFactory, schema);
  }

  @Override
  public Statistic getStatistic() {
    return Statistics.of(rowCount(), List.of());
  }

  /** Rows in the current snapshot, from its summary; 0 for a table that has no snapshot. */
  public double rowCount() {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return 0;
    }
    Map<String, String> summary = snapshot.summary();
    String total = summary == null ? null : summary.get(SnapshotSummary.TOTAL_RECORDS_PROP);
    if (total == null) {
      return 1000;
    }
    try {
      return Double.parseDouble(total);
    } catch (NumberFormatException e) {
      return 1000;
    }
  }

  @Override
  public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    return IcebergTableScan.create(context.getCluster(), relOptTable, this);
  }
}
