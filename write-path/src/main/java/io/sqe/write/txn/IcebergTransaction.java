package io.sqe.write.txn;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.engine.trace.Spans;
import io.sqe.engine.txn.TableTransaction;
import io.sqe.engine.txn.Transaction;
import io.sqe.write.files.DataFileWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * A transaction over Iceberg tables. Each table it writes gets an Iceberg transaction of its own
 * ({@code table.newTransaction()}, or the create/replace transaction of CREATE TABLE ... AS) into
 * which the statements' operations commit; statements of the transaction read the tables with
 * what is staged. COMMIT makes it all visible at once:
 *
 * <ul>
 *   <li>one table: its Iceberg transaction commits. Appends are re-applied on top of whatever was
 *       committed meanwhile; a transaction that also deleted or rewrote rows commits only if the
 *       table has not changed since the transaction first wrote it (first committer wins).
 *   <li>several tables: one multi-table commit of the Iceberg REST catalog, each table required to
 *       be as the transaction found it. Other catalogs cannot do this, so a transaction in them
 *       refuses to write a second table.
 * </ul>
 *
 * A failed commit, ROLLBACK, and the end of the session discard everything and delete the files
 * the transaction wrote, best effort.
 */
public final class IcebergTransaction implements TableTransaction {
  private enum State {
    OPEN,
    COMMITTED,
    ROLLED_BACK
  }

  private final String id = UUID.randomUUID().toString();
  private final String owner;
  private final Map<String, StagedTable> tables = new LinkedHashMap<>();
  private final List<Savepoint> savepoints = new ArrayList<>();
  private volatile State state = State.OPEN;
  private volatile long version;

  private IcebergTransaction(String owner) {
    this.owner = requireNonNull(owner, "owner is null");
  }

  public static Transaction begin(Principal owner) {
    return new IcebergTransaction(owner.user());
  }

  /** The transaction a session's statements join, if it has one. */
  public static Optional<IcebergTransaction> of(Session session) {
    return session.openTransaction().map(t -> {
      if (!(t instanceof IcebergTransaction)) {
        throw new IllegalStateException("Not a transaction of the write path: " + t.getClass().getName());
      }
      return (IcebergTransaction) t;
    });
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String owner() {
    return owner;
  }

  @Override
  public boolean isOpen() {
    return state == State.OPEN;
  }

  @Override
  public long version() {
    return version;
  }

  @Override
  public synchronized List<IcebergTable> tables() {
    List<IcebergTable> result = new ArrayList<>();
    for (StagedTable table : tables.values()) {
      result.add(table.readTable());
    }
    return result;
  }

  /** The table with what this transaction staged, if it wrote the table (or is creating it). */
  synchronized Optional<Table> staged(LakehouseCatalog catalog, TableIdentifier table) {
    return Optional.ofNullable(tables.get(key(catalog, table))).map(StagedTable::table);
  }

  /** The name of a table this transaction creates, matched as SQL matches names, if it does. */
  public synchronized Optional<TableIdentifier> createdTable(LakehouseCatalog catalog, TableIdentifier name) {
    for (StagedTable table : tables.values()) {
      if (table.creates() && table.catalog() == catalog && sameName(table.id(), name)) {
        return Optional.of(table.id());
      }
    }
    return Optional.empty();
  }

  private static boolean sameName(TableIdentifier a, TableIdentifier b) {
    return a.namespace().equals(b.namespace()) && a.name().equalsIgnoreCase(b.name());
  }

  /** Stages writes to an existing table: the first one opens an Iceberg transaction on it. */
  synchronized StagedTable stage(LakehouseCatalog catalog, TableIdentifier table, Supplier<Table> loadFresh) {
    checkOpen();
    StagedTable staged = tables.get(key(catalog, table));
    if (staged == null) {
      dropUnchanged();
      checkCanAdd(catalog, table, false);
      staged = new StagedTable(catalog, table, false, loadFresh.get().newTransaction());
      tables.put(key(catalog, table), staged);
    }
    return staged;
  }

  /** Stages the creation (or replacement) of a table, which must be the transaction's first write to it. */
  synchronized StagedTable stageCreate(
      LakehouseCatalog catalog, TableIdentifier table, Supplier<org.apache.iceberg.Transaction> open) {
    checkOpen();
    if (tables.containsKey(key(catalog, table))) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "This transaction already wrote " + catalog.name() + "." + table + "; creating or replacing it must be the"
              + " transaction's first write to it");
    }
    dropUnchanged();
    checkCanAdd(catalog, table, true);
    StagedTable staged = new StagedTable(catalog, table, true, open.get());
    tables.put(key(catalog, table), staged);
    return staged;
  }

  /**
   * Commits {@code update} (null: none) into the table's Iceberg transaction: it becomes part of
   * what this transaction reads and later commits. On failure the update's files are deleted.
   */
  synchronized void apply(StagedTable table, SnapshotUpdate<?> update, Set<String> files, String statement, String queryId) {
    Table written = table.table();
    if (state != State.OPEN) {
      DataFileWriter.deleteFiles(written, files);
      checkOpen();
    }
    if (update != null) {
      table.beforeOperation(!(update instanceof AppendFiles));
      Commits.commit(update::commit, () -> DataFileWriter.deleteFiles(written, files), statement, Commits.QUERY_ID_PROPERTY + "=" + queryId);
    }
    table.staged(statement, files);
    version++;
  }

  /**
   * Forgets tables whose statements all failed: they hold no writes, and must not keep another
   * table out of a catalog that commits one table per transaction.
   */
  private void dropUnchanged() {
    tables.values().removeIf(t -> !t.changed());
  }

  /** Whether {@code table} may join: several tables only in one catalog that commits them together. */
  private void checkCanAdd(LakehouseCatalog catalog, TableIdentifier table, boolean creates) {
    if (tables.isEmpty()) {
      return;
    }
    String name = catalog.name() + "." + table;
    StagedTable first = tables.values().iterator().next();
    if (first.catalog() != catalog) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "A transaction writes tables of one catalog: it already writes " + first.displayName() + ", so it cannot write " + name);
    }
    if (!(catalog.iceberg() instanceof RESTCatalog)) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "Catalog " + catalog.name() + " cannot commit several tables atomically (only Iceberg REST catalogs can), and this"
              + " transaction already writes " + first.displayName() + ". COMMIT before writing " + name);
    }
    for (StagedTable staged : tables.values()) {
      if (creates || staged.creates()) {
        throw new SqeException(
            ErrorCode.FAILED_PRECONDITION,
            "A transaction that creates or replaces a table writes no other table: the REST catalog commits several tables"
                + " together only when they exist. It already writes " + staged.displayName() + ", so it cannot write " + name);
      }
    }
  }

  @Override
  public void commit() {
    List<StagedTable> changed;
    synchronized (this) {
      checkOpen();
      changed = new ArrayList<>();
      for (StagedTable table : tables.values()) {
        if (table.changed()) {
          changed.add(table);
        }
      }
      // A span of the COMMIT statement's trace, naming the tables it commits.
      try (Spans.Scoped span = changed.isEmpty() ? null : Spans.open("sqe.commit")) {
        if (span != null) {
          span.span().setAttribute("sqe.table", String.join(", ", changed.stream().map(StagedTable::displayName).toList()));
        }
        try {
          if (changed.size() == 1) {
            Commits.commit(changed.get(0)::commit, this::discardAll, description(changed), marker());
          } else if (changed.size() > 1) {
            RESTCatalog catalog = (RESTCatalog) changed.get(0).catalog().iceberg();
            List<TableCommit> commits = new ArrayList<>();
            changed.forEach(t -> commits.add(t.tableCommit()));
            Commits.commit(() -> catalog.commitTransaction(commits), this::discardAll, description(changed), marker());
          }
        } catch (RuntimeException | Error e) {
          if (span != null) {
            span.failed(e);
          }
          throw e;
        }
        state = State.COMMITTED;
      } catch (RuntimeException | Error e) {
        state = State.ROLLED_BACK;
        throw e;
      } finally {
        version++;
        savepoints.clear();
        tables.values().forEach(t -> t.catalog().invalidate(t.id()));
      }
    }
  }

  @Override
  public synchronized void rollback() {
    if (state != State.OPEN) {
      return;
    }
    state = State.ROLLED_BACK;
    version++;
    discardAll();
    savepoints.clear();
  }

  private void discardAll() {
    tables.values().forEach(StagedTable::discard);
  }

  private String description(List<StagedTable> changed) {
    List<String> statements = new ArrayList<>();
    changed.forEach(t -> statements.addAll(t.statements()));
    return "transaction " + id + " (" + (statements.isEmpty() ? "no statements" : String.join(", ", statements)) + ")";
  }

  private String marker() {
    return Commits.TRANSACTION_ID_PROPERTY + "=" + id;
  }

  /** Savepoints are known by their ids; the name is the client's. */
  @Override
  public synchronized String savepoint(String name) {
    checkOpen();
    Map<String, StagedTable.Mark> marks = new LinkedHashMap<>();
    tables.forEach((key, table) -> marks.put(key, table.mark()));
    Savepoint savepoint = new Savepoint(UUID.randomUUID().toString(), marks);
    savepoints.add(savepoint);
    return savepoint.id;
  }

  @Override
  public synchronized void releaseSavepoint(String savepointId) {
    checkOpen();
    int index = savepointIndex(savepointId);
    savepoints.subList(index, savepoints.size()).clear();
  }

  @Override
  public synchronized void rollbackToSavepoint(String savepointId) {
    checkOpen();
    int index = savepointIndex(savepointId);
    Map<String, StagedTable.Mark> marks = savepoints.get(index).marks;
    for (var it = tables.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, StagedTable> entry = it.next();
      StagedTable.Mark mark = marks.get(entry.getKey());
      if (mark == null) {
        entry.getValue().discard();
        it.remove();
      } else {
        entry.getValue().resetTo(mark);
      }
    }
    savepoints.subList(index, savepoints.size()).clear();
    version++;
  }

  private int savepointIndex(String savepointId) {
    for (int i = 0; i < savepoints.size(); i++) {
      if (savepoints.get(i).id.equals(savepointId)) {
        return i;
      }
    }
    throw new SqeException(ErrorCode.NOT_FOUND, "Transaction " + id + " has no savepoint " + savepointId + "; it was released, rolled back to, or never made");
  }

  private void checkOpen() {
    if (state != State.OPEN) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "Transaction " + id + " has " + (state == State.COMMITTED ? "committed" : "rolled back") + "; begin a new one");
    }
  }

  private static String key(LakehouseCatalog catalog, TableIdentifier table) {
    return catalog.name() + "\u0000" + table;
  }

  /** A savepoint: where each table's staging stood; tables not in it were written after it. */
  private static final class Savepoint {
    private final String id;
    private final Map<String, StagedTable.Mark> marks;

    Savepoint(String id, Map<String, StagedTable.Mark> marks) {
      this.id = id;
      this.marks = marks;
    }
  }
}
