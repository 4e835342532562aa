package io.sqe.write.ddl;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** What DDL needs to know about a table's rows before it may declare a column NOT NULL. */
final class TableContents {
  private TableContents() {}

  /** Whether the current snapshot has no rows. */
  static boolean isEmpty(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot == null) {
      return true;
    }
    Map<String, String> summary = snapshot.summary();
    String total = summary == null ? null : summary.get(SnapshotSummary.TOTAL_RECORDS_PROP);
    if (total != null && summary.get(SnapshotSummary.TOTAL_DELETE_FILES_PROP) == null) {
      return Long.parseLong(total) == 0;
    }
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      return !tasks.iterator().hasNext();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the current snapshot has a row where the field at {@code path} is NULL while its
   * parent struct is not (a required field in an optional struct may be NULL with its parent).
   * Column metrics answer for top-level columns when every file has them; otherwise the column
   * is read.
   *
   * @param path the field's full name, through structs only
   */
  static boolean hasNulls(Table table, String path) {
    if (table.currentSnapshot() == null) {
      return false;
    }
    Types.NestedField field = table.schema().findField(path);
    if (!path.contains(".")) {
      Boolean fromMetrics = nullsFromMetrics(table, field.fieldId());
      if (fromMetrics != null) {
        return fromMetrics;
      }
    }
    List<String> segments = List.of(path.split("\\."));
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).select(path).build()) {
      for (Record row : rows) {
        if (isNullUnderPresentParent(row, segments)) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True or false when the files' null counts decide it; null when a file has no count or has delete files. */
  private static Boolean nullsFromMetrics(Table table, int fieldId) {
    boolean decided = true;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        Map<Integer, Long> counts = task.file().nullValueCounts();
        Long nulls = counts == null ? null : counts.get(fieldId);
        if (nulls == null) {
          decided = false;
        } else if (nulls > 0) {
          if (task.deletes().isEmpty()) {
            return true;
          }
          // Deleted rows may be the NULL ones.
          decided = false;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return decided ? Boolean.FALSE : null;
  }

  private static boolean isNullUnderPresentParent(Record row, List<String> segments) {
    Record current = row;
    for (int i = 0; i < segments.size() - 1; i++) {
      Object next = current.getField(segments.get(i));
      if (next == null) {
        return false;
      }
      current = (Record) next;
    }
    return current.getField(segments.get(segments.size() - 1)) == null;
  }
}
