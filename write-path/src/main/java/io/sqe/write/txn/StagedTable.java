package io.sqe.write.txn;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.write.files.DataFileWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's writes in a transaction: an Iceberg transaction on the table (or on its creation)
 * that the statements' operations commit into, and the data files they wrote, so that a rollback
 * can delete them. Guarded by the {@link IcebergTransaction} that holds it.
 */
final class StagedTable {
  private static final Logger LOG = LoggerFactory.getLogger(StagedTable.class);

  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  private final boolean creates;
  private final BaseTransaction transaction;
  private final List<String> dataFiles = new ArrayList<>();
  private final List<String> statements = new ArrayList<>();
  /**
   * Whether the commit may re-apply the staged operations on top of commits made meanwhile: true
   * while every operation that validates what it read read the committed table, never staged
   * state, since Iceberg validates from the snapshot an operation read and a staged snapshot
   * would hide the concurrent commits from it.
   */
  private boolean rebaseSafe = true;
  private TableMetadata readableMetadata;
  private Table readable;

  StagedTable(LakehouseCatalog catalog, TableIdentifier id, boolean creates, org.apache.iceberg.Transaction transaction) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.id = requireNonNull(id, "id is null");
    this.creates = creates;
    if (!(requireNonNull(transaction, "transaction is null") instanceof BaseTransaction)) {
      throw new IllegalArgumentException("Catalog " + catalog.name() + " returned an unsupported transaction: " + transaction.getClass());
    }
    this.transaction = (BaseTransaction) transaction;
  }

  LakehouseCatalog catalog() {
    return catalog;
  }

  TableIdentifier id() {
    return id;
  }

  String displayName() {
    return catalog.name() + "." + id;
  }

  /** Whether the transaction creates or replaces the table rather than changing it. */
  boolean creates() {
    return creates;
  }

  org.apache.iceberg.Transaction transaction() {
    return transaction;
  }

  /** Whether committing would change the table. */
  boolean changed() {
    return creates || transaction.currentMetadata() != transaction.startMetadata();
  }

  /** The table with everything staged so far, for reading and for writing data files. */
  Table table() {
    TableMetadata current = transaction.currentMetadata();
    if (readable == null || readableMetadata != current) {
      readable = new BaseTable(transaction.underlyingOps().temp(current), displayName());
      readableMetadata = current;
    }
    return readable;
  }

  IcebergTable readTable() {
    return IcebergTable.pinnedTo(catalog, id, table());
  }

  /** Notes an operation about to be staged; call before committing it into the transaction. */
  void beforeOperation(boolean validatesReads) {
    if (validatesReads && changed()) {
      rebaseSafe = false;
    }
  }

  /** Notes an operation staged by {@code statement}, which wrote {@code files}. */
  void staged(String statement, Set<String> files) {
    dataFiles.addAll(files);
    statements.add(statement);
  }

  List<String> statements() {
    return List.copyOf(statements);
  }

  /** What {@link #resetTo} returns to. */
  Mark mark() {
    return new Mark(transaction.currentMetadata(), dataFiles.size(), statements.size());
  }

  /** Discards what was staged since {@code mark}. */
  void resetTo(Mark mark) {
    TableMetadata current = transaction.currentMetadata();
    if (current == mark.metadata) {
      return;
    }
    deleteStagedFiles(current, mark.metadata, dataFiles.subList(mark.dataFiles, dataFiles.size()));
    dataFiles.subList(mark.dataFiles, dataFiles.size()).clear();
    statements.subList(mark.statements, statements.size()).clear();
    // The transaction's own operations accept any metadata that replaces the current one.
    ((HasTableOperations) transaction.table()).operations().commit(current, mark.metadata);
    // The discarded operations stay in the Iceberg transaction, which re-applies them on a rebase.
    rebaseSafe = false;
  }

  /** Deletes the files of every staged operation, best effort. */
  void discard() {
    deleteStagedFiles(transaction.currentMetadata(), transaction.startMetadata(), dataFiles);
    dataFiles.clear();
  }

  /** Commits this table's staged changes on their own. */
  void commit() {
    if (creates || rebaseSafe) {
      transaction.commitTransaction();
    } else {
      // Compare-and-swap against the metadata the transaction started from: any commit made to the
      // table since fails this one, as the validations of the staged operations cannot see it.
      transaction.underlyingOps().commit(transaction.startMetadata(), transaction.currentMetadata());
    }
  }

  /** This table's part of a multi-table commit: its changes, required to apply to the metadata it started from. */
  TableCommit tableCommit() {
    return TableCommit.create(id, transaction.startMetadata(), transaction.currentMetadata());
  }

  /** Deletes data files, and the manifests and manifest lists of snapshots in {@code from} but not in {@code to}. */
  private void deleteStagedFiles(TableMetadata from, TableMetadata to, List<String> files) {
    Set<Long> kept = new HashSet<>();
    if (to != null) {
      to.snapshots().forEach(s -> kept.add(s.snapshotId()));
    }
    Set<Long> discarded = new HashSet<>();
    for (Snapshot snapshot : from.snapshots()) {
      if (!kept.contains(snapshot.snapshotId())) {
        discarded.add(snapshot.snapshotId());
      }
    }
    Table table = table();
    List<String> paths = new ArrayList<>(files);
    for (Snapshot snapshot : from.snapshots()) {
      if (!discarded.contains(snapshot.snapshotId())) {
        continue;
      }
      try {
        for (ManifestFile manifest : snapshot.allManifests(table.io())) {
          if (manifest.snapshotId() != null && discarded.contains(manifest.snapshotId())) {
            paths.add(manifest.path());
          }
        }
      } catch (RuntimeException e) {
        LOG.warn("Cannot list the manifests of staged snapshot {} of {}", snapshot.snapshotId(), displayName(), e);
      }
      if (snapshot.manifestListLocation() != null) {
        paths.add(snapshot.manifestListLocation());
      }
    }
    DataFileWriter.deleteFiles(table, paths);
  }

  /** The staged state at a savepoint. */
  static final class Mark {
    private final TableMetadata metadata;
    private final int dataFiles;
    private final int statements;

    private Mark(TableMetadata metadata, int dataFiles, int statements) {
      this.metadata = metadata;
      this.dataFiles = dataFiles;
      this.statements = statements;
    }
  }
}
