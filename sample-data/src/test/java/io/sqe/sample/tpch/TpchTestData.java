package io.sqe.sample.tpch;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/** Test helpers: an embedded catalog in a directory, and what the generator itself says. */
final class TpchTestData {
  static final String SCHEMA = "tpch";
  static final double SCALE = 0.01;

  private TpchTestData() {}

  static LakehouseCatalog catalog(Path warehouse) {
    return IcebergCatalogFactory.embedded("lake", warehouse, Duration.ZERO);
  }

  static Table table(LakehouseCatalog catalog, String name) {
    return catalog.iceberg().loadTable(TableIdentifier.of(SCHEMA, name));
  }

  /** Rows the generator produces for the whole table, in one part. */
  static long generatorRows(TpchTable<?> table, double scaleFactor) {
    long rows = 0;
    for (Object ignored : table.createGenerator(scaleFactor, 1, 1)) {
      rows++;
    }
    return rows;
  }

  /** The data files of the table's current snapshot. */
  static List<DataFile> dataFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Local paths of the data files of the table's current snapshot. */
  static List<String> dataFilePaths(Table table) {
    return dataFiles(table).stream().map(file -> localPath(file.location())).toList();
  }

  static String localPath(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)).toString() : location;
  }
}
