package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.RowBatchBuilder;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.LimitBatches;
import io.sqe.engine.exec.parallel.ScanPart;
import io.sqe.engine.trace.Spans;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.runtime.FlatLists;
import org.apache.calcite.util.ImmutableIntList;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.iceberg.util.TableScanUtil;

/**
 * The run-time half of {@link IcebergTableScan}: plans the files of the table's current snapshot
 * with the pushed-down filter (Iceberg prunes partitions and files by their column bounds), reads
 * Parquet files column by column with Iceberg's vectorized Arrow reader ({@link
 * VectorizedTaskReader}) and other files, files with delete files and columns of other types with
 * Iceberg's generic row readers (delete files applied), two files ahead on background threads
 * ({@link PrefetchingTaskReader}), and yields Calcite rows. The pushed filter skips files and row
 * groups only: the Filter it came from stays above the scan and drops the rows.
 *
 * <p>Holds no per-execution state, so one compiled plan can run many times and concurrently.
 *
 * <p>A partitioned scan runs as the parts of a parallel pipeline ({@link ScanPart}): the first part
 * plans the files (one snapshot for all), split at row-group boundaries, and every part claims the
 * next unread split until none is left (one split ahead, on a reader thread).
 */
public final class IcebergScan {
  /** How many file scan tasks a scan reads at once on background threads: one per core of the machine it was built for. */
  private static final int READ_AHEAD_TASKS = 2;
  /**
   * How many tasks each part of a parallel pipeline reads ahead on a background thread: one
   * measured best (docs/benchmarks.md, "Parallel pipelines").
   */
  private static final int PART_READ_AHEAD_TASKS = 1;

  /** The metadata columns a write target's scan returns, by field id. */
  private static final Map<Integer, Types.NestedField> METADATA_COLUMNS =
      Map.of(
          MetadataColumns.FILE_PATH.fieldId(), MetadataColumns.FILE_PATH,
          MetadataColumns.ROW_POSITION.fieldId(), MetadataColumns.ROW_POSITION);

  private final LakehouseCatalog catalog;
  private final TableIdentifier id;
  /** The table a write target reads, with the snapshot it is pinned to; null to load the current one. */
  private final Table pinnedTable;
  private final Long pinnedSnapshotId;
  /** With a pin: the scan reads only the files appended after this snapshot up to the pinned one; else null. */
  private final Long appendedAfter;
  /** The columns of the pinned table (a time-travel read's are its snapshot's); null with no pin. */
  private final Schema pinnedSchema;
  private final int[] fieldIds;
  private final List<Function<Object, Object>> converters;
  private final Expression filter;
  /** Predicates the scan evaluates exactly on every row it reads, dropping the rows they do not keep. */
  private final List<LikePredicate> likes;
  private final Long limit;
  private final boolean partitioned;
  /** The columns that joins above publish their build-side keys for (see {@link DynamicFilters}). */
  private final List<DynamicFilters.ColumnFilter> dynamicFilters;

  IcebergScan(
      IcebergTable table,
      ImmutableIntList projection,
      Expression filter,
      List<LikePredicate> likes,
      Long limit,
      boolean partitioned,
      List<DynamicFilters.Target> dynamicFilters) {
    this.catalog = table.catalog();
    this.id = table.id();
    this.pinnedTable = table.pinned() ? table.table() : null;
    this.pinnedSnapshotId = table.pinned() ? table.pinnedSnapshotId() : null;
    this.appendedAfter = table.appendedAfter();
    this.pinnedSchema = table.pinned() ? table.schema() : null;
    List<Types.NestedField> columns = table.columns();
    this.fieldIds = new int[projection.size()];
    this.converters = new ArrayList<>();
    for (int i = 0; i < projection.size(); i++) {
      Types.NestedField column = columns.get(projection.get(i));
      fieldIds[i] = column.fieldId();
      converters.add(IcebergValueConverters.forType(column.type()));
    }
    this.likes = List.copyOf(likes);
    // The prefix of a LIKE skips files and row groups as the filter does.
    Expression withPrefixes = requireNonNull(filter, "filter is null");
    for (LikePredicate like : this.likes) {
      String prefix = like.compiled().literalPrefix();
      if (!like.negated() && !prefix.isEmpty()) {
        withPrefixes = Expressions.and(withPrefixes, Expressions.startsWith(like.column().name(), prefix));
      }
    }
    this.filter = withPrefixes;
    this.limit = limit;
    this.partitioned = partitioned;
    this.dynamicFilters = new ArrayList<>();
    for (DynamicFilters.Target target : dynamicFilters) {
      this.dynamicFilters.add(new DynamicFilters.ColumnFilter(columns.get(projection.get(target.column())), target.slot()));
    }
  }

  /** Called from generated code. */
  public Enumerable<Object> enumerate(DataContext dataContext) {
    QueryContext context = QueryContext.of(dataContext);
    ScanPart part = partitioned ? ScanPart.of(dataContext) : null;
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        return new RowEnumerator(dataContext, context, part, true);
      }
    };
  }

  /**
   * The columnar form of this scan: its rows as record batches
   * of {@code schema}, the result's Arrow types of its columns, with buffers from {@code
   * allocator}. Files the vectorized reader handles are gathered from the decoder's vectors
   * ({@link VectorBatches}); the others are read as rows and written into batches. A partitioned
   * scan runs as one part of a parallel pipeline ({@code context} is a part's, see {@link
   * QueryContext#forPart}) and reads the splits its part claims.
   */
  public BatchOperator batches(QueryContext context, BufferAllocator allocator, org.apache.arrow.vector.types.pojo.Schema schema) {
    if (schema.getFields().size() != fieldIds.length) {
      throw new IllegalStateException("Only a scan of columns has a columnar form");
    }
    ScanPart part = partitioned ? ScanPart.of(context) : null;
    if (partitioned && part == null) {
      throw new IllegalStateException("A partitioned scan runs only as a part of a parallel pipeline");
    }
    BatchOperator batches = new ScanBatches(context, allocator, schema, part);
    return limit == null ? batches : new LimitBatches(batches, 0, limit);
  }

  private Table loadTable() {
    if (pinnedTable != null) {
      return pinnedTable;
    }
    return catalog
        .loadTable(id)
        .orElseThrow(() -> new SqeException(ErrorCode.NOT_FOUND, "Table " + catalog.name() + "." + id + " no longer exists"));
  }

  /** The projected columns, then any column the filter or the LIKE predicates need that the projection lacks. */
  private Schema readSchema(Schema tableSchema) {
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> ids = new LinkedHashSet<>();
    for (int fieldId : fieldIds) {
      ids.add(fieldId);
    }
    ids.addAll(Binder.boundReferences(tableSchema.asStruct(), List.of(filter), true));
    for (LikePredicate like : likes) {
      ids.add(like.column().fieldId());
    }
    for (int fieldId : ids) {
      Types.NestedField field = METADATA_COLUMNS.containsKey(fieldId) ? METADATA_COLUMNS.get(fieldId) : tableSchema.findField(fieldId);
      if (field == null) {
        throw new SqeException(
            ErrorCode.FAILED_PRECONDITION,
            "Table " + catalog.name() + "." + id + " changed while the statement ran; run it again");
      }
      fields.add(field);
    }
    return new Schema(fields);
  }

  private static Schema withoutMetadataColumns(Schema schema) {
    List<Types.NestedField> fields = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      if (!METADATA_COLUMNS.containsKey(field.fieldId())) {
        fields.add(field);
      }
    }
    return fields.size() == schema.columns().size() ? schema : new Schema(fields);
  }

  /**
   * The pushed filter and the keys that joins above have published for this execution (in {@code
   * dataContext}: a part's own, else the query's), for file planning; the key sets too large for
   * an IN list go to {@code keySets}, to be tested on the vectors.
   */
  private Expression withDynamicFilters(DataContext dataContext, QueryContext context, Map<Integer, LongKeySet> keySets) {
    Expression withKeys = filter;
    for (DynamicFilters.ColumnFilter dynamic : dynamicFilters) {
      DynamicFilters.Keys keys = dynamic.slot().current(dataContext);
      if (keys == null) {
        continue;
      }
      withKeys = Expressions.and(withKeys, dynamic.expression(keys));
      if (keys.set() != null && keys.set().size() > DynamicFilters.IN_LIST_KEYS) {
        keySets.put(dynamic.field().fieldId(), keys.set());
      }
      context.stats().dynamicFilterApplied();
    }
    return withKeys;
  }

  /**
   * The files of the table's current (or pinned) snapshot that {@code scanFilter}, over the columns
   * of {@code tableSchema}, may match. Partition specs and Iceberg's planning bind names in the
   * table's current schema, which may name a column otherwise (renamed since a time-travel scan's
   * snapshot), so the filter is planned in the current schema's names and the tasks' residuals are
   * handed back in {@code tableSchema}'s, which the readers bind.
   */
  private List<FileScanTask> planFiles(Table table, Schema tableSchema, Schema projected, Expression scanFilter, QueryContext context) {
    try (Spans.Scoped span = Spans.open("sqe.scan.plan")) {
      span.span().setAttribute("sqe.table", id.toString());
      List<FileScanTask> planned = planFilesTraced(table, tableSchema, projected, scanFilter, context);
      span.span().setAttribute("sqe.scan.files", planned.size());
      return planned;
    }
  }

  private List<FileScanTask> planFilesTraced(
      Table table, Schema tableSchema, Schema projected, Expression scanFilter, QueryContext context) {
    Long snapshotId;
    if (pinnedTable != null) {
      snapshotId = pinnedSnapshotId;
    } else {
      Snapshot snapshot = table.currentSnapshot();
      snapshotId = snapshot == null ? null : snapshot.snapshotId();
    }
    Snapshot snapshot = snapshotId == null ? null : table.snapshot(snapshotId);
    Expression planningFilter = FilterNames.translate(scanFilter, tableSchema, table.schema());
    if (appendedAfter != null) {
      return FilterNames.withResiduals(appendedFiles(table, snapshotId, projected, planningFilter), table.schema(), tableSchema);
    }
    if (snapshot != null) {
      List<FileScanTask> cached = SnapshotFiles.plan(table, snapshot, planningFilter, context::checkCancelled);
      if (cached != null) {
        return FilterNames.withResiduals(cached, table.schema(), tableSchema);
      }
    }
    List<FileScanTask> planned = new ArrayList<>();
    if (snapshotId != null) {
      TableScan scan =
          table.newScan().useSnapshot(snapshotId).project(withoutMetadataColumns(projected)).filter(planningFilter).caseSensitive(true);
      // Planned up front, so that the run's progress (files opened of files planned) is known.
      try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
        for (FileScanTask task : tasks) {
          planned.add(task);
          if ((planned.size() & 0xFF) == 0) {
            context.checkCancelled();
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return FilterNames.withResiduals(planned, table.schema(), tableSchema);
  }

  /** The files that the snapshots after {@link #appendedAfter} up to {@code snapshotId} appended and {@code planningFilter} may match. */
  private List<FileScanTask> appendedFiles(Table table, long snapshotId, Schema projected, Expression planningFilter) {
    IncrementalAppendScan scan = table.newIncrementalAppendScan()
        .fromSnapshotExclusive(appendedAfter)
        .toSnapshot(snapshotId)
        .project(withoutMetadataColumns(projected))
        .filter(planningFilter)
        .caseSensitive(true);
    List<FileScanTask> planned = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      tasks.forEach(planned::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return planned;
  }

  /**
   * The files of a partitioned scan, planned once for all its parts (so all read one snapshot) and
   * split at row-group boundaries, largest first, for the parts to claim one at a time.
   */
  private final class PartTasks {
    /** Splits of about this size: small enough to balance two to a few parts over a table of a few files. */
    private static final long SPLIT_BYTES = 8L << 20;

    private final Table table;
    private final Schema tableSchema;
    private final Schema projected;
    /** The pushed filter with the keys published to the first part (all parts join the same build rows). */
    private final Expression scanFilter;
    /** Read by every part, never changed after planning. */
    private final Map<Integer, LongKeySet> keySets = new HashMap<>();
    private final List<FileScanTask> tasks = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();

    PartTasks(DataContext dataContext, QueryContext context) {
      this.table = loadTable();
      this.tableSchema = pinnedSchema != null ? pinnedSchema : table.schema();
      this.projected = readSchema(tableSchema);
      this.scanFilter = withDynamicFilters(dataContext, context, keySets);
      List<FileScanTask> planned = planFiles(table, tableSchema, projected, scanFilter, context);
      context.stats().filesPlanned(planned.size());
      if (fieldIds.length == 0) {
        // A scan of no columns may answer with a file's row count (see open), which counts the
        // whole file: each of its splits would count it again.
        tasks.addAll(planned);
      } else {
        TableScanUtil.splitFiles(CloseableIterable.withNoopClose(planned), SPLIT_BYTES).forEach(tasks::add);
      }
      tasks.sort(Comparator.comparingLong(FileScanTask::length).reversed());
    }

    /** One part's view of the tasks: each task it returns is claimed by it alone. */
    Iterator<FileScanTask> claims() {
      return new Iterator<>() {
        private FileScanTask claimed;

        @Override
        public boolean hasNext() {
          if (claimed == null) {
            int index = next.getAndIncrement();
            if (index < tasks.size()) {
              claimed = tasks.get(index);
            }
          }
          return claimed != null;
        }

        @Override
        public FileScanTask next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          FileScanTask task = claimed;
          claimed = null;
          return task;
        }
      };
    }
  }

  /** Iterates the rows of one execution. */
  private final class RowEnumerator implements Enumerator<Object> {
    private final QueryContext context;
    private final Table table;
    private final Schema tableSchema;
    private final Schema projected;
    private final Iterator<FileScanTask> taskIterator;
    /** The pushed filter and the dynamic filters published before this scan opened. */
    private final Expression scanFilter;
    /** Build-side key sets too large for Iceberg's IN list, tested on the vectors, by field id. */
    private final Map<Integer, LongKeySet> keySets;
    /** Reads the tasks ahead on background threads; null when this scan reads them itself. */
    private final PrefetchingTaskReader<Object[]> prefetch;
    private Object[] batch;
    private int batchIndex;
    private CloseableIterator<Object> rows;
    private long remainingInFile;
    private long produced;
    private Object current;

    /** @param readAhead whether to read the rows of the next tasks on background threads */
    RowEnumerator(DataContext dataContext, QueryContext context, ScanPart part, boolean readAhead) {
      this.context = context;
      if (part != null) {
        // The first part to open plans the files, with the keys published to it by then.
        PartTasks shared = part.shared(IcebergScan.this, () -> new PartTasks(dataContext, context));
        this.table = shared.table;
        this.tableSchema = shared.tableSchema;
        this.projected = shared.projected;
        this.scanFilter = shared.scanFilter;
        this.keySets = shared.keySets;
        this.taskIterator = shared.claims();
        // Each part decodes the next split it claims on a reader thread while its pipeline works.
        this.prefetch =
            readAhead && limit == null && fieldIds.length > 0
                ? PrefetchingTaskReader.rowBatches(taskIterator, this::read, context, PART_READ_AHEAD_TASKS)
                : null;
        return;
      }
      this.table = loadTable();
      this.tableSchema = pinnedSchema != null ? pinnedSchema : table.schema();
      this.projected = readSchema(tableSchema);
      this.keySets = new HashMap<>();
      this.scanFilter = withDynamicFilters(dataContext, context, keySets);
      List<FileScanTask> planned = planFiles(table, tableSchema, projected, scanFilter, context);
      context.stats().filesPlanned(planned.size());
      this.taskIterator = planned.iterator();
      // A LIMIT reads no further than it needs, and count(*) answers from file metadata: both sequentially.
      this.prefetch =
          readAhead && limit == null && fieldIds.length > 0 && !planned.isEmpty()
              ? PrefetchingTaskReader.rowBatches(
                  taskIterator, this::read, context, READ_AHEAD_TASKS)
              : null;
    }

    @Override
    public Object current() {
      return current;
    }

    @Override
    public boolean moveNext() {
      if (limit != null && produced >= limit) {
        return false;
      }
      if (prefetch != null) {
        while (batch == null || batchIndex >= batch.length) {
          batch = prefetch.next();
          batchIndex = 0;
          if (batch == null) {
            return false;
          }
        }
        return emit(batch[batchIndex++]);
      }
      while (true) {
        if (remainingInFile > 0) {
          remainingInFile--;
          return emit(FlatLists.COMPARABLE_EMPTY_LIST);
        }
        if (rows != null && rows.hasNext()) {
          return emit(rows.next());
        }
        closeRows();
        if (!taskIterator.hasNext()) {
          return false;
        }
        context.checkCancelled();
        open(taskIterator.next());
      }
    }

    private boolean emit(Object row) {
      current = row;
      produced++;
      if ((produced & 0x3FF) == 0) {
        context.checkCancelled();
      }
      return true;
    }

    /** The row in Calcite's shape for this many columns: a bare value for one, else an array. */
    private Object convert(Record record) {
      if (fieldIds.length == 1) {
        Object value = record.get(0);
        return value == null ? null : converters.get(0).apply(value);
      }
      if (fieldIds.length == 0) {
        return FlatLists.COMPARABLE_EMPTY_LIST;
      }
      Object[] row = new Object[fieldIds.length];
      for (int i = 0; i < row.length; i++) {
        Object value = record.get(i);
        row[i] = value == null ? null : converters.get(i).apply(value);
      }
      return row;
    }

    private void open(FileScanTask task) {
      boolean trivial = task.deletes().isEmpty()
          && task.residual().op() == Expression.Operation.TRUE
          && likes.isEmpty();
      if (fieldIds.length == 0 && trivial) {
        context.stats().fileOpened(task.file().fileSizeInBytes());
        // Nothing to read: the file's row count answers, e.g. for count(*).
        remainingInFile = task.file().recordCount();
        return;
      }
      rows = read(task);
    }

    /**
     * The rows of one task in Calcite's shape, delete files applied. The task's residual filter
     * only skips row groups (by their statistics, dictionaries and bloom filters): it is not
     * evaluated per row, because the Filter it was taken from stays in the plan above the scan
     * (see {@link FilterIntoScanRule}) and evaluates the whole condition on every row anyway.
     */
    private CloseableIterator<Object> read(FileScanTask task) {
      context.stats().fileOpened(task.file().fileSizeInBytes());
      Map<Integer, ?> constants =
          PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      return readRows(task, constants);
    }

    /** Drops rows on the vectors: those the pushed and dynamic filters cannot match, those the LIKE predicates do not keep. */
    private VectorSelection selection() {
      // The LIKE predicates are evaluated in any case: the Filter above no longer holds them.
      return VectorSelection.of(scanFilter, keySets, likes, projected, context.stats(), context::checkCancelled);
    }

    /** The rows of one task in Calcite's shape, read by columns when the vectorized reader handles the task. */
    private CloseableIterator<Object> readRows(FileScanTask task, Map<Integer, ?> constants) {
      if (task.deletes().isEmpty()) {
        CloseableIterator<Object> columns =
            VectorizedTaskReader.open(table.io(), task, projected, fieldIds.length, constants, selection());
        if (columns != null) {
          context.stats().fileReadByColumns();
          return columns;
        }
      }
      GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, tableSchema, projected);
      Schema readSchema = deletes.requiredSchema();
      if (withoutMetadataColumns(readSchema).columns().isEmpty()) {
        // Readers need a column of the file to count rows; any will do.
        List<Types.NestedField> fields = new ArrayList<>(readSchema.columns());
        fields.add(tableSchema.columns().get(0));
        readSchema = new Schema(fields);
      }
      CloseableIterable<Record> iterable =
          FormatModelRegistry.readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
              .project(readSchema)
              .idToConstant(constants)
              .split(task.start(), task.length())
              .filter(task.residual())
              .build();
      CloseableIterable<Record> kept = deletes.filter(iterable);
      if (!likes.isEmpty()) {
        kept = CloseableIterable.filter(kept, this::keptByLikes);
      }
      return CloseableIterator.transform(kept.iterator(), this::convert);
    }

    /** Whether a record read without vectors passes the LIKE predicates. */
    private boolean keptByLikes(Record record) {
      for (int i = 0; i < likes.size(); i++) {
        LikePredicate like = likes.get(i);
        if (!like.keeps(record.getField(like.column().name()), context::checkCancelled)) {
          return false;
        }
      }
      return true;
    }

    private void closeRows() {
      if (rows != null) {
        try {
          rows.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        rows = null;
      }
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("An Iceberg scan cannot be rewound");
    }

    @Override
    public void close() {
      if (prefetch != null) {
        prefetch.close();
      }
      closeRows();
    }
  }

  /** The columnar form of a scan: see {@link #batches}. */
  private final class ScanBatches implements BatchOperator {
    private final QueryContext context;
    private final BufferAllocator allocator;
    private final org.apache.arrow.vector.types.pojo.Schema schema;
    /** Plans the files, and reads a task's rows when its vectors cannot be gathered. */
    private final RowEnumerator rows;
    /** Reads the tasks ahead on background threads; null when a LIMIT reads them one by one. */
    private final PrefetchingTaskReader<VectorSchemaRoot> prefetch;
    private CloseableIterator<VectorSchemaRoot> current;

    ScanBatches(QueryContext context, BufferAllocator allocator, org.apache.arrow.vector.types.pojo.Schema schema, ScanPart part) {
      this.context = context;
      this.allocator = allocator;
      this.schema = schema;
      this.rows = new RowEnumerator(context, context, part, false);
      int readAhead = part == null ? READ_AHEAD_TASKS : PART_READ_AHEAD_TASKS;
      this.prefetch =
          limit == null ? new PrefetchingTaskReader<>(rows.taskIterator, this::read, VectorSchemaRoot::close, context, readAhead, allocator) : null;
    }

    @Override
    public VectorSchemaRoot next() {
      if (prefetch != null) {
        return prefetch.next();
      }
      while (true) {
        if (current != null && current.hasNext()) {
          return current.next();
        }
        closeCurrent();
        if (!rows.taskIterator.hasNext()) {
          return null;
        }
        context.checkCancelled();
        current = read(rows.taskIterator.next());
      }
    }

    /** One task's batches: gathered from its vectors, else built from its rows. */
    private CloseableIterator<VectorSchemaRoot> read(FileScanTask task) {
      context.stats().fileOpened(task.file().fileSizeInBytes());
      Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
      CloseableIterator<VectorSchemaRoot> gathered =
          VectorizedTaskReader.openBatches(rows.table.io(), task, task.residual(), rows.projected, schema, constants, rows.selection(), allocator);
      if (gathered != null) {
        context.stats().fileReadByColumns();
        // A LIMIT reads no batch more than it needs.
        return limit == null ? new AppendingBatches(gathered, allocator) : gathered;
      }
      return new RowsToBatches(rows.readRows(task, constants));
    }

    private void closeCurrent() {
      if (current != null) {
        try {
          current.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        current = null;
      }
    }

    @Override
    public void close() {
      try {
        if (prefetch != null) {
          prefetch.close();
        }
      } finally {
        closeCurrent();
      }
    }

    /** A task's rows written into batches of up to {@link VectorizedTaskReader#BATCH_ROWS}. */
    private final class RowsToBatches implements CloseableIterator<VectorSchemaRoot> {
      private final CloseableIterator<Object> taskRows;
      private final RowBatchBuilder builder = new RowBatchBuilder(schema, allocator);

      RowsToBatches(CloseableIterator<Object> taskRows) {
        this.taskRows = taskRows;
      }

      @Override
      public boolean hasNext() {
        return taskRows.hasNext();
      }

      @Override
      public VectorSchemaRoot next() {
        if (!taskRows.hasNext()) {
          throw new NoSuchElementException();
        }
        while (builder.size() < VectorizedTaskReader.BATCH_ROWS && taskRows.hasNext()) {
          builder.add(taskRows.next());
          if ((builder.size() & 0x3FF) == 0) {
            context.checkCancelled();
          }
        }
        return builder.build();
      }

      @Override
      public void close() throws IOException {
        try {
          taskRows.close();
        } finally {
          builder.close();
        }
      }
    }
  }
}
