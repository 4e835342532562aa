package io.sqe.engine.iceberg;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
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

  /**
   * The largest value of a column in the snapshot a scan reads, from the upper bounds Iceberg keeps
   * for each data file; {@code value} is null when no row has a non-NULL value.
   */
  public record Maximum(Type type, Object value) {}

  /**
   * The exact largest value of the table column at {@code index} of the scan columns of {@code
   * table}, in the snapshot its scans read, when the files' bounds tell it: a column of integers,
   * dates, times, timestamps or decimals (whose bounds Iceberg keeps whole, where it cuts text),
   * every data file with a non-NULL value having an upper bound, and no delete file (which could
   * remove the row that holds it). Empty otherwise, and for a scan of appended rows only.
   */
  public static Optional<Maximum> maximum(IcebergTable table, int index) {
    List<Types.NestedField> columns = table.columns();
    if (index < 0 || index >= columns.size() || table.isMetadataColumn(index) || table.appendedAfter() != null) {
      return Optional.empty();
    }
    Types.NestedField column = columns.get(index);
    switch (column.type().typeId()) {
      case INTEGER, LONG, DATE, TIME, TIMESTAMP, DECIMAL -> { }
      default -> {
        return Optional.empty();
      }
    }
    Long snapshotId = table.pinnedSnapshotId();
    if (snapshotId == null) {
      return Optional.of(new Maximum(column.type(), null));
    }
    Snapshot snapshot = table.table().snapshot(snapshotId);
    List<FileScanTask> files =
        snapshot == null ? null : SnapshotFiles.plan(table.table(), snapshot, Expressions.alwaysTrue(), () -> {});
    if (files == null) {
      return Optional.empty();
    }
    int id = column.fieldId();
    Comparator<Object> order = Comparators.forType(column.type().asPrimitiveType());
    Object max = null;
    for (FileScanTask task : files) {
      DataFile file = task.file();
      Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
      Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
      if (file.recordCount() == 0 || values != null && nulls != null && values.longValue() == nulls.longValue()) {
        continue;
      }
      ByteBuffer upper = file.upperBounds() == null ? null : file.upperBounds().get(id);
      if (upper == null) {
        return Optional.empty();
      }
      Object high;
      try {
        high = Conversions.fromByteBuffer(column.type(), upper);
      } catch (RuntimeException e) {
        // A bound written for the column's type before a promotion (int to long, say).
        return Optional.empty();
      }
      if (max == null || order.compare(high, max) > 0) {
        max = high;
      }
    }
    return Optional.of(new Maximum(column.type(), max));
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
