package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;

/**
 * The bytes one scan of a plan reads, estimated before it runs from its snapshot's data files as
 * {@link SnapshotFiles} holds them (read from the manifests once, then cached): the files left
 * after partition and min/max pruning with the scan's filter, and of each file the sizes of the
 * columns the scan reads ({@code column_sizes}), or the file's size in proportion to those columns
 * where the sizes are missing. No data file is opened.
 */
public final class ScanBytes {
  private final IcebergTable table;
  private final Expression filter;
  /** The table columns the scan reads: those it returns and those its filter tests. */
  private final Set<Integer> fieldIds;
  /**
   * The last estimate and the snapshot it was made in: a cached plan's scan is estimated again only
   * once its table has moved on (a cache hit cost 0.23 ms more per TPC-H query without it).
   */
  private volatile Estimate last;

  private record Estimate(long snapshotId, long bytes) {}

  private ScanBytes(IcebergTable table, Expression filter, Set<Integer> fieldIds) {
    this.table = requireNonNull(table, "table is null");
    this.filter = requireNonNull(filter, "filter is null");
    this.fieldIds = Set.copyOf(fieldIds);
  }

  /** What {@code scan} reads, as its pushed filter and projection say. */
  public static ScanBytes of(IcebergTableScan scan) {
    IcebergTable table = scan.icebergTable();
    List<Types.NestedField> columns = table.columns();
    Set<Integer> ids = new LinkedHashSet<>();
    for (int index : scan.projection()) {
      if (!table.isMetadataColumn(index)) {
        ids.add(columns.get(index).fieldId());
      }
    }
    ids.addAll(Binder.boundReferences(table.schema().asStruct(), List.of(scan.filter()), true));
    return new ScanBytes(table, scan.filter(), ids);
  }

  /**
   * The estimated bytes, in the snapshot the scan would read if it ran now (a time-travel or write
   * target's pinned one, else the table's current one); 0 for a table with no snapshot.
   */
  public long estimate(Runnable checkCancelled) {
    Table current = table.pinned() ? table.table() : table.catalog().loadTable(table.id()).orElse(null);
    Long snapshotId = current == null ? null : table.pinned() ? table.pinnedSnapshotId() : currentSnapshotId(current);
    Snapshot snapshot = snapshotId == null ? null : current.snapshot(snapshotId);
    if (snapshot == null || fieldIds.isEmpty()) {
      // A scan of no columns answers from the files' row counts.
      return 0;
    }
    Estimate known = last;
    if (known != null && known.snapshotId() == snapshotId) {
      return known.bytes();
    }
    long bytes = estimate(current, snapshot, checkCancelled);
    last = new Estimate(snapshotId, bytes);
    return bytes;
  }

  private long estimate(Table current, Snapshot snapshot, Runnable checkCancelled) {
    // The filter names columns as the plan's schema did, which a rename since may have changed.
    Schema planned = table.schema();
    int columns = planned.columns().size();
    List<FileScanTask> files =
        SnapshotFiles.plan(current, snapshot, FilterNames.translate(filter, planned, current.schema()), checkCancelled);
    if (files == null) {
      // Not planned from the cache (a snapshot with delete files, or the cache is off): without
      // reading manifests, the snapshot's total size in proportion to the columns read.
      return share(summaryBytes(snapshot), columns);
    }
    long bytes = 0;
    for (FileScanTask task : files) {
      bytes += fileBytes(task.file(), columns);
    }
    return bytes;
  }

  private static Long currentSnapshotId(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    return snapshot == null ? null : snapshot.snapshotId();
  }

  /** The bytes of {@code file} the scan reads: its read columns' sizes, else its size in their proportion. */
  private long fileBytes(DataFile file, int columns) {
    Map<Integer, Long> sizes = file.columnSizes();
    if (sizes != null) {
      long bytes = 0;
      boolean complete = true;
      for (int id : fieldIds) {
        Long size = sizes.get(id);
        if (size == null) {
          // A nested column's sizes are its leaves', and a writer may keep none.
          complete = false;
          break;
        }
        bytes += size;
      }
      if (complete) {
        return bytes;
      }
    }
    return share(file.fileSizeInBytes(), columns);
  }

  private long share(long bytes, int columns) {
    return columns == 0 ? bytes : (long) ((double) bytes * Math.min(fieldIds.size(), columns) / columns);
  }

  private static long summaryBytes(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    String total = summary == null ? null : summary.get(SnapshotSummary.TOTAL_FILE_SIZE_PROP);
    try {
      return total == null ? 0 : Long.parseLong(total);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
