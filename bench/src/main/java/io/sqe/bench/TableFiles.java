package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The data files of an Iceberg table's current snapshot as local paths, for DuckDB's
 * {@code read_parquet([...])} over the very files SQE scans.
 *
 * @param paths the files' local paths, sorted
 * @param rows the rows the files hold, from Iceberg's metadata
 * @param bytes the files' sizes added up
 */
record TableFiles(List<String> paths, long rows, long bytes) {
  TableFiles {
    paths = List.copyOf(paths);
  }

  /** The files of {@code id}'s current snapshot; a table with delete files is refused. */
  static TableFiles current(LakehouseCatalog catalog, TableIdentifier id) throws IOException {
    requireNonNull(catalog, "catalog is null");
    Table table = catalog.loadTable(id).orElseThrow(() -> new IllegalStateException("Table " + id + " is missing"));
    List<String> paths = new ArrayList<>();
    long rows = 0;
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty()) {
          throw new IllegalStateException("Table " + id + " has delete files, which DuckDB's read_parquet would ignore");
        }
        paths.add(task.file().location().replaceFirst("^file:", ""));
        rows += task.file().recordCount();
        bytes += task.file().fileSizeInBytes();
      }
    }
    paths.sort(null);
    return new TableFiles(paths, rows, bytes);
  }

  /** {@code read_parquet(['a', 'b'])}, the paths quoted for DuckDB's SQL. */
  String readParquet() {
    StringBuilder s = new StringBuilder("read_parquet([");
    for (int i = 0; i < paths.size(); i++) {
      s.append(i == 0 ? "'" : ", '").append(paths.get(i).replace("'", "''")).append('\'');
    }
    return s.append("])").toString();
  }
}
