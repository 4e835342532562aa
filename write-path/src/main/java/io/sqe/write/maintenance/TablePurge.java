package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import io.sqe.write.storage.OtherTables;
import io.sqe.write.storage.ReachableFiles;
import io.sqe.write.storage.StorageLocation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file deletion of {@code DROP TABLE ... PURGE}, done by SQE rather than by the catalog (whose
 * purge deletes whatever the table's metadata references): of the files the table references,
 * only those under its location or the directories its path properties name, and none that
 * another table or view of the catalog references. As Iceberg's purge, it leaves data and delete
 * files alone when the table says {@code gc.enabled=false}. The files are chosen before the table
 * is dropped and deleted after.
 */
public final class TablePurge {
  private static final Logger LOG = LoggerFactory.getLogger(TablePurge.class);

  private final FileIO io;
  private final String table;
  private final List<String> files;

  private TablePurge(FileIO io, String table, List<String> files) {
    this.io = requireNonNull(io, "io is null");
    this.table = requireNonNull(table, "table is null");
    this.files = List.copyOf(files);
  }

  /**
   * Chooses the files to delete once {@code table} is dropped.
   *
   * @throws io.sqe.engine.SqeException FAILED_PRECONDITION when another table cannot be read
   */
  public static TablePurge plan(Table table, OtherTables others) {
    requireNonNull(table, "table is null");
    requireNonNull(others, "others is null");
    List<StorageLocation> roots = StorageLocation.rootsOf(table);
    boolean contentFiles = PropertyUtil.propertyAsBoolean(table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT);
    Map<String, String> files = new LinkedHashMap<>();
    ReachableFiles.visit(table, contentFiles, path -> {
      Optional<StorageLocation> at = StorageLocation.parseExisting(path);
      if (at.isPresent() && roots.stream().anyMatch(root -> root.contains(at.get()) && !root.equals(at.get()))) {
        files.put(at.get().key(), path);
      } else {
        LOG.info("{} references {}, outside its own locations; a purge leaves it alone", table.name(), path);
      }
      return true;
    });
    files.keySet().removeAll(others.referenced(files.keySet()));
    return new TablePurge(table.io(), table.name(), List.copyOf(files.values()));
  }

  /** Deletes the chosen files; one that cannot be deleted is logged and left. */
  public void deleteFiles() {
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(files);
      } catch (BulkDeletionFailureException e) {
        LOG.warn("Purging {}: {} of {} files could not be deleted", table, e.numberFailedObjects(), files.size(), e);
      }
      return;
    }
    for (String file : files) {
      try {
        io.deleteFile(file);
      } catch (RuntimeException e) {
        LOG.warn("Purging {}: cannot delete {}", table, file, e);
      }
    }
  }
}
