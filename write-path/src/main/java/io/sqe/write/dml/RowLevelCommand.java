package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.DataFileRows;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.txn.TableWrite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IsolationLevel;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;

/**
 * DELETE, UPDATE and MERGE as copy-on-write: the statement's query reads the target as of one
 * snapshot, with each row's data file and position, and says which rows go, which change and
 * which rows are new. Each data file with a changed row is rewritten (its other rows copied as
 * Iceberg read them, value for value) and the lot is committed as one overwrite, validated
 * against everything committed since that snapshot: conflict detection filter = the rows the
 * statement read, no conflicting deletes, and, at the default serializable isolation, no
 * conflicting new data. Files without a changed row are not touched.
 */
final class RowLevelCommand implements PreparedCommand {
  /** The statements, with the table property that sets their isolation level. */
  enum Kind {
    DELETE("DELETE from", "Delete from", TableProperties.DELETE_ISOLATION_LEVEL),
    UPDATE("UPDATE of", "Update", TableProperties.UPDATE_ISOLATION_LEVEL),
    MERGE("MERGE into", "Merge into", TableProperties.MERGE_ISOLATION_LEVEL);

    private final String description;
    /** How EXPLAIN's first line names the statement. */
    private final String explained;
    private final String isolationProperty;

    Kind(String description, String explained, String isolationProperty) {
      this.description = description;
      this.explained = explained;
      this.isolationProperty = isolationProperty;
    }
  }

  /** Plans a statement's query over its target as a write target. */
  @FunctionalInterface
  interface Planner {
    Plan plan(CommandContext context, IcebergTable target);

    /**
     * Plans the statement for one execution, with its parameters: where a plan {@linkplain
     * Plan#refinesAtExecution refines itself} with facts known only then. By default the same as
     * {@link #plan}.
     */
    default Plan planForExecution(CommandContext context, IcebergTable target, List<Object> parameters) {
      return plan(context, target);
    }
  }

  /** A statement planned over one snapshot of its target. */
  interface Plan {
    PlannedQuery query();

    /** The types of the statement's {@code ?} parameters, which a plan may know before its query is planned. */
    default List<RelDataType> parameterTypes() {
      return query().parameterTypes();
    }

    /**
     * Whether each execution plans the statement again with {@link Planner#planForExecution}: a
     * MERGE narrows its target scan to its source's key range, which only execution knows.
     */
    default boolean refinesAtExecution() {
      return false;
    }

    /** What to do with the query's rows, for one execution. */
    RowHandler handler();
  }

  /**
   * An execution that changes no row, known before the statement's query is planned (a MERGE whose
   * source is empty): it answers 0 rows at once and says why, as a reused materialization does.
   */
  record NoChange(String reason, String detail) implements Plan {
    NoChange {
      requireNonNull(reason, "reason is null");
      requireNonNull(detail, "detail is null");
    }

    @Override
    public PlannedQuery query() {
      throw new IllegalStateException("a statement that changes nothing has no query to run");
    }

    @Override
    public List<RelDataType> parameterTypes() {
      return List.of();
    }

    @Override
    public RowHandler handler() {
      throw new IllegalStateException("a statement that changes nothing has no rows to handle");
    }
  }

  /** Turns each row of a statement's query into changes of target rows and rows to insert. */
  @FunctionalInterface
  interface RowHandler {
    void accept(Object[] row, RowChanges changes, Consumer<Record> inserts);
  }

  private final Kind kind;
  private final TableRef target;
  private final Planner planner;
  private final IcebergTable preparedTarget;
  private final Plan prepared;

  private RowLevelCommand(Kind kind, TableRef target, Planner planner, IcebergTable preparedTarget, Plan prepared) {
    this.kind = requireNonNull(kind, "kind is null");
    this.target = requireNonNull(target, "target is null");
    this.planner = requireNonNull(planner, "planner is null");
    this.preparedTarget = requireNonNull(preparedTarget, "preparedTarget is null");
    this.prepared = requireNonNull(prepared, "prepared is null");
  }

  static RowLevelCommand prepare(CommandContext context, Kind kind, TableRef target, Planner planner) {
    Table table = TableWrite.current(context.session(), target.catalog(), target.id(), target::loadFresh);
    IcebergTable writeTarget = IcebergTable.forRowLevelWrite(target.catalog(), target.id(), table);
    return new RowLevelCommand(kind, target, planner, writeTarget, planner.plan(context, writeTarget));
  }

  @Override
  public boolean runsInTransaction() {
    return true;
  }

  @Override
  public List<RelDataType> parameterTypes() {
    return prepared.parameterTypes();
  }

  /**
   * The statement and its target, then the plan of its query over the target's current snapshot
   * (with each row's file and position), whose rows say what goes, changes and is added; it runs
   * here even with a Trino cluster.
   */
  @Override
  public Optional<List<String>> explain(CommandContext context) {
    List<String> lines = new ArrayList<>();
    lines.add(kind.explained + " " + target.displayName() + " (copy-on-write: each data file with a changed row is rewritten)");
    if (prepared instanceof NoChange none) {
      lines.add("-- changes no row: " + none.detail());
    } else {
      lines.addAll(List.of(prepared.query().explain().split("\n")));
      prepared.query().reads().notes().forEach(note -> lines.add("-- " + note));
    }
    context.queries().offloadTarget().ifPresent(cluster -> lines.add("-- offload: local (MERGE, UPDATE and DELETE run here)"));
    return Optional.of(lines);
  }

  @Override
  public CommandResult execute(CommandContext context, List<Object> parameters) {
    TableWrite write = TableWrite.existing(context.session(), target.catalog(), target.id(), target::loadFresh, context.queryId());
    Table table = write.table();
    Snapshot current = table.currentSnapshot();
    Long base = current == null ? null : current.snapshotId();
    IcebergTable writeTarget = preparedTarget;
    Plan plan = prepared;
    if (!Objects.equals(base, preparedTarget.snapshotId())
        || table.schema().schemaId() != preparedTarget.schema().schemaId()
        || prepared.refinesAtExecution()) {
      // The table changed since the statement was prepared, or the plan depends on what execution
      // finds: plan it over the current snapshot.
      writeTarget = IcebergTable.forRowLevelWrite(target.catalog(), target.id(), table);
      plan = planner.planForExecution(context, writeTarget, parameters);
    }
    if (plan instanceof NoChange none) {
      return CommandResult.materialized(0, new CommandResult.Reuse(true, none.reason(), none.detail()));
    }
    String what = kind.description + " " + target.displayName();
    DataFileWriter writer = DataFileWriter.builder(table).operationId(context.queryId()).partitionId(context.attempt()).build();
    long[] inserted = {0};
    List<DataFile> removed = new ArrayList<>();
    List<DeleteFile> removedDeletes = new ArrayList<>();
    List<DataFile> added;
    Set<String> paths = new HashSet<>();
    long count;
    // Planned first: a plan that refines at execution is planned only when asked for its query,
    // and the target learns which of its rows the statement reads when it is planned.
    PlannedQuery query = plan.query();
    Expression scanned = writeTarget.scannedRows();
    // Named apart from the row writer's files: both name theirs by operation and partition id.
    DataFileWriter.Builder rewritten =
        DataFileWriter.builder(table).operationId(context.queryId() + "-cow").partitionId(context.attempt());
    // The changed rows and the rewrite's batches count against query.max-memory.
    try (BufferAllocator memory = context.queries().allocator(context.queryId());
        RowChanges changes = new RowChanges(memory, what);
        BatchRewrite batches = new BatchRewrite(table, changes, rewritten, memory)) {
      try {
        RowHandler handler = plan.handler();
        Consumer<Record> inserts = record -> {
          writer.write(record);
          inserted[0]++;
        };
        try (RowStream rows = context.queries().rows(context.session(), query, parameters, context.queryId())) {
          while (rows.next()) {
            handler.accept(rows.current(), changes, inserts);
          }
        }
        if (changes.isEmpty() && inserted[0] == 0) {
          writer.complete();
          return CommandResult.rows(0);
        }
        if (!changes.isEmpty()) {
          rewrite(table, base, scanned, changes, batches, writer, removed, removedDeletes);
        }
        added = new ArrayList<>(writer.complete());
        added.addAll(batches.complete());
      } catch (RuntimeException | Error e) {
        writer.abort();
        throw e;
      }
      paths.addAll(writer.paths());
      paths.addAll(batches.paths());
      count = changes.deleted() + changes.updated() + inserted[0];
    }
    OverwriteFiles overwrite = write.newOverwrite();
    overwrite.deleteFiles(DataFileSet.of(removed), DeleteFileSet.of(removedDeletes));
    added.forEach(overwrite::addFile);
    if (base != null) {
      overwrite.validateFromSnapshot(base);
    }
    overwrite.conflictDetectionFilter(scanned);
    overwrite.validateNoConflictingDeletes();
    if (isolation(table) == IsolationLevel.SERIALIZABLE) {
      overwrite.validateNoConflictingData();
    }
    write.commit(overwrite, paths, what);
    return CommandResult.rows(count);
  }

  private IsolationLevel isolation(Table table) {
    return IsolationLevel.fromName(table.properties().getOrDefault(kind.isolationProperty, "serializable"));
  }

  /**
   * Writes the rows each changed file keeps, changed where the statement changes them, and notes
   * the files (and their deletion vectors) the commit removes: from the file's record batches
   * where they can be read and written ({@link BatchRewrite}), else row by row.
   */
  private static void rewrite(
      Table table,
      Long base,
      Expression scanned,
      RowChanges changes,
      BatchRewrite batches,
      DataFileWriter writer,
      List<DataFile> removed,
      List<DeleteFile> removedDeletes) {
    Schema schema = table.schema();
    int positionIndex = DataFileRows.positionIndex(table);
    int columns = schema.columns().size();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(base).filter(scanned).planFiles()) {
      for (FileScanTask task : tasks) {
        String path = task.file().location();
        if (!changes.files().contains(path)) {
          continue;
        }
        removed.add(task.file());
        for (DeleteFile delete : task.deletes()) {
          if (ContentFileUtil.isDV(delete)) {
            removedDeletes.add(delete);
          }
        }
        if (task.deletes().isEmpty() && changes.deletedIn(path) == task.file().recordCount()) {
          continue;
        }
        if (batches.rewrite(task)) {
          continue;
        }
        try (CloseableIterable<Record> rows = DataFileRows.read(table, task)) {
          for (Record row : rows) {
            Object change = changes.change(path, (Long) row.get(positionIndex));
            if (RowChanges.isDelete(change)) {
              continue;
            }
            Record copy = GenericRecord.create(schema);
            for (int i = 0; i < columns; i++) {
              copy.set(i, row.get(i));
            }
            if (change != null) {
              RowChanges.Update update = (RowChanges.Update) change;
              for (int i = 0; i < update.columns().length; i++) {
                copy.set(update.columns()[i], update.values()[i]);
              }
            }
            writer.write(copy);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (removed.size() != changes.files().size()) {
      throw new IllegalStateException(
          "Changed rows in " + changes.files().size() + " data files but found " + removed.size() + " of them in snapshot " + base);
    }
  }
}
