package io.sqe.engine.iceberg;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Estimates of the number of distinct values of a table's columns, for the planner's join
 * cardinalities, from the column bounds that Iceberg keeps for every data file: for a column of
 * integers or dates, at most {@code max - min + 1} values, and at most one per row. Other columns
 * have no estimate. Computed once per table snapshot (the files' bounds never change) and kept in
 * a small bounded cache.
 */
public final class ColumnStatistics {
  private static final Cache<String, ColumnStatistics> CACHE = Caffeine.newBuilder().maximumSize(256).build();

  /** Distinct values by field id, for the columns that have an estimate. */
  private final Map<Integer, Double> distinctValues;

  private ColumnStatistics(Map<Integer, Double> distinctValues) {
    this.distinctValues = distinctValues;
  }

  /**
   * The estimated number of distinct values of the table column at {@code index} of the scan
   * columns of {@code table}, in the snapshot its scans read; null when there is no estimate.
   */
  public static Double distinctValues(IcebergTable table, int index) {
    List<Types.NestedField> columns = table.columns();
    if (index < 0 || index >= columns.size() || table.isMetadataColumn(index)) {
      return null;
    }
    Types.NestedField column = columns.get(index);
    if (!isIntegral(column.type())) {
      return null;
    }
    Long snapshotId = table.pinnedSnapshotId();
    if (snapshotId == null) {
      return null;
    }
    Table icebergTable = table.table();
    String key = icebergTable.location() + "@" + snapshotId;
    ColumnStatistics statistics = CACHE.get(key, k -> loadOrNone(icebergTable, snapshotId));
    return statistics.distinctValues.get(column.fieldId());
  }

  private static boolean isIntegral(Type type) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
      case DATE:
        return true;
      default:
        return false;
    }
  }

  /** The statistics of a snapshot; none when its manifests cannot be read (planning goes on without). */
  private static ColumnStatistics loadOrNone(Table table, long snapshotId) {
    try {
      return load(table, snapshotId);
    } catch (RuntimeException e) {
      return new ColumnStatistics(Map.of());
    }
  }

  private static ColumnStatistics load(Table table, long snapshotId) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      return new ColumnStatistics(Map.of());
    }
    Map<Integer, Type> integral = new HashMap<>();
    for (Types.NestedField field : table.schema().columns()) {
      if (isIntegral(field.type())) {
        integral.put(field.fieldId(), field.type());
      }
    }
    Map<Integer, Long> min = new HashMap<>();
    Map<Integer, Long> max = new HashMap<>();
    Map<Integer, Boolean> complete = new HashMap<>();
    long rows = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        rows += file.recordCount();
        Map<Integer, ByteBuffer> lower = file.lowerBounds();
        Map<Integer, ByteBuffer> upper = file.upperBounds();
        for (Map.Entry<Integer, Type> column : integral.entrySet()) {
          int id = column.getKey();
          ByteBuffer lo = lower == null ? null : lower.get(id);
          ByteBuffer hi = upper == null ? null : upper.get(id);
          if (lo == null || hi == null) {
            complete.put(id, false);
            continue;
          }
          long low = ((Number) Conversions.fromByteBuffer(column.getValue(), lo)).longValue();
          long high = ((Number) Conversions.fromByteBuffer(column.getValue(), hi)).longValue();
          min.merge(id, low, Math::min);
          max.merge(id, high, Math::max);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<Integer, Double> distinct = new HashMap<>();
    for (Integer id : integral.keySet()) {
      if (complete.getOrDefault(id, true) && min.containsKey(id)) {
        double range = (double) max.get(id) - (double) min.get(id) + 1;
        distinct.put(id, Math.max(1, Math.min(range, rows)));
      }
    }
    return new ColumnStatistics(distinct);
  }
}
