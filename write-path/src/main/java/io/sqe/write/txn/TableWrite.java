package io.sqe.write.txn;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Session;
import io.sqe.engine.trace.Spans;
import io.sqe.write.files.DataFileWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * Where one statement's changes to one table go: committed to the catalog when the statement ends,
 * or staged in the session's transaction. Statements write their data files into {@link #table()}
 * and hand their operation to {@link #commit}, the same either way.
 */
public final class TableWrite {
  private static final int APPEND_ATTEMPTS = 8;

  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  private final String queryId;
  private final Table table;
  /** The create or replace transaction of a statement that commits on its own; else null. */
  private final Transaction creation;
  /** The session's transaction and the table's staging in it; else null. */
  private final IcebergTransaction transaction;
  private final StagedTable staged;
  /** Properties the statement adds to the summary of the snapshot it commits. */
  private final Map<String, String> summary = new HashMap<>();

  private TableWrite(
      LakehouseCatalog catalog,
      TableIdentifier id,
      String queryId,
      Table table,
      Transaction creation,
      IcebergTransaction transaction,
      StagedTable staged) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.id = requireNonNull(id, "id is null");
    this.queryId = requireNonNull(queryId, "queryId is null");
    this.table = requireNonNull(table, "table is null");
    this.creation = creation;
    this.transaction = transaction;
    this.staged = staged;
  }

  /**
   * A write to an existing table.
   *
   * @param loadFresh loads the table as the catalog has it now (a write starts from the latest snapshot)
   */
  public static TableWrite existing(Session session, LakehouseCatalog catalog, TableIdentifier id, Supplier<Table> loadFresh, String queryId) {
    Optional<IcebergTransaction> transaction = IcebergTransaction.of(session);
    if (transaction.isEmpty()) {
      return new TableWrite(catalog, id, queryId, loadFresh.get(), null, null, null);
    }
    StagedTable staged = transaction.get().stage(catalog, id, loadFresh);
    return new TableWrite(catalog, id, queryId, staged.table(), null, transaction.get(), staged);
  }

  /**
   * A write that creates or replaces a table.
   *
   * @param open opens the catalog's create (or create-or-replace) transaction
   */
  public static TableWrite create(Session session, LakehouseCatalog catalog, TableIdentifier id, Supplier<Transaction> open, String queryId) {
    Optional<IcebergTransaction> transaction = IcebergTransaction.of(session);
    if (transaction.isEmpty()) {
      Transaction creation = open.get();
      return new TableWrite(catalog, id, queryId, creation.table(), creation, null, null);
    }
    StagedTable staged = transaction.get().stageCreate(catalog, id, open);
    return new TableWrite(catalog, id, queryId, staged.table(), null, transaction.get(), staged);
  }

  /**
   * The table as a statement of this session reads it, staging nothing: what the session's
   * transaction staged for it, else the table as the catalog has it now. For planning a write.
   */
  public static Table current(Session session, LakehouseCatalog catalog, TableIdentifier id, Supplier<Table> loadFresh) {
    return IcebergTransaction.of(session).flatMap(t -> t.staged(catalog, id)).orElseGet(loadFresh);
  }

  /** Whether the table exists for this session: in the catalog, or created by its transaction. */
  public static boolean exists(Session session, LakehouseCatalog catalog, TableIdentifier id) {
    return IcebergTransaction.of(session).flatMap(t -> t.createdTable(catalog, id)).isPresent()
        || catalog.iceberg().tableExists(id);
  }

  /** The table to read and to write data files into: with what is staged, in a transaction. */
  public Table table() {
    return table;
  }

  public AppendFiles newAppend() {
    return marked(creation != null ? creation.newAppend() : staged != null ? staged.transaction().newAppend() : table.newAppend());
  }

  public OverwriteFiles newOverwrite() {
    return marked(creation != null ? creation.newOverwrite() : staged != null ? staged.transaction().newOverwrite() : table.newOverwrite());
  }

  /** Adds {@code properties} to the summary of the snapshot this write commits. */
  public void summarize(Map<String, String> properties) {
    summary.putAll(properties);
  }

  private <T extends SnapshotUpdate<T>> T marked(T update) {
    summary.forEach(update::set);
    update.set(Commits.QUERY_ID_PROPERTY, queryId);
    if (transaction != null) {
      update.set(Commits.TRANSACTION_ID_PROPERTY, transaction.id());
    }
    return update;
  }

  /**
   * Commits (or stages) an append of {@code files}; with none, only what the write does anyway. A
   * creation (CTAS, CREATE OR REPLACE ... AS) always commits a snapshot, empty if need be: its
   * summary records the statement's lineage, and a replace with no snapshot would leave the table
   * none, so that a materialized view refreshed to no rows could never be found fresh.
   */
  public void commitAppend(List<DataFile> files, Set<String> written, String what) {
    if (transaction == null && creation == null && !files.isEmpty()) {
      traced(() -> appendWithRetries(files), written, what);
      return;
    }
    AppendFiles append = null;
    if (!files.isEmpty() || creation != null) {
      append = newAppend();
      files.forEach(append::appendFile);
    }
    commit(append, written, what);
  }

  /**
   * Appends never conflict, so they must land however busy the table is. Iceberg retries a commit
   * a few times ({@code commit.retry.num-retries}, 4 by default); several servers appending to one
   * table at once can use those up, so the whole append is tried again, on a fresh view of the
   * table, with a growing wait.
   */
  private void appendWithRetries(List<DataFile> files) {
    for (int attempt = 1; ; attempt++) {
      AppendFiles append = newAppend();
      files.forEach(append::appendFile);
      try {
        append.commit();
        return;
      } catch (CommitFailedException e) {
        if (attempt >= APPEND_ATTEMPTS) {
          throw e;
        }
        try {
          Thread.sleep(Math.min(5_000L, 100L << attempt) + ThreadLocalRandom.current().nextLong(100));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * Commits {@code update} (null: none; a creation still commits), or stages it in the
   * transaction. On failure the statement's files are deleted and the error says what happened.
   *
   * @param written the data files the statement wrote
   * @param what the statement and its table, as messages name them: {@code "DELETE from lake.s.t"}
   */
  public void commit(SnapshotUpdate<?> update, Set<String> written, String what) {
    if (transaction != null) {
      transaction.apply(staged, update, written, what, queryId);
      return;
    }
    traced(
        () -> {
          if (update != null) {
            update.commit();
          }
          if (creation != null) {
            creation.commitTransaction();
          }
        },
        written,
        what);
  }

  /**
   * Commits through {@link Commits#commit} in a span of the statement's trace, {@code
   * sqe.commit}, which names the table and the snapshot committed; the catalog's part of the
   * commit is in it.
   */
  private void traced(Runnable commit, Set<String> written, String what) {
    try (Spans.Scoped span = Spans.open("sqe.commit")) {
      span.span().setAttribute("sqe.table", catalog.name() + "." + id);
      try {
        Commits.commit(commit, () -> DataFileWriter.deleteFiles(table, written), what, Commits.QUERY_ID_PROPERTY + "=" + queryId);
      } catch (RuntimeException | Error e) {
        span.failed(e);
        throw e;
      } finally {
        catalog.invalidate(id);
      }
      if (span.span().isRecording()) {
        span.span().setAttribute("sqe.snapshot_id", committedSnapshot());
      }
    }
  }

  /** The id of the snapshot the table is at after a commit, -1 when it has none or cannot be read; only a trace needs it. */
  private long committedSnapshot() {
    try {
      Snapshot snapshot = table.currentSnapshot();
      return snapshot == null ? -1 : snapshot.snapshotId();
    } catch (RuntimeException e) {
      // The commit has landed: a failure to refresh the table's metadata must not fail it.
      return -1;
    }
  }
}
