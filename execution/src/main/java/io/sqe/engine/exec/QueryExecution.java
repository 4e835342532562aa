package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.Gather;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import java.util.function.Supplier;
import org.apache.calcite.linq4j.Enumerator;

/**
 * One running query: pulls rows from the compiled plan and packs them into Arrow record batches,
 * one batch at a time, so a result never sits in memory whole; or, for a columnar plan, hands out
 * its operators' batches as they come, moving their vectors without copying a value. Every buffer
 * comes from the query's own allocator, whose limit bounds the query's memory.
 */
public final class QueryExecution implements AutoCloseable {
  private static final int INITIAL_BATCH_ROWS = 64;
  /** Batches of a columnar plan smaller than this are appended to the ones after them. */
  private static final int COALESCED_ROWS = Gather.SMALL_BATCH_ROWS;

  private final BufferAllocator allocator;
  private final QueryContext context;
  private final Supplier<Enumerator<Object>> plan;
  /** The columnar plan whose batches this execution hands out; null to run a row plan. */
  private final BatchPlan batchPlan;
  private BatchOperator batches;
  /** The operators' batch being handed out in parts (over the batch limits), and its next row. */
  private VectorSchemaRoot pending;
  private int pendingOffset;
  /** Whether the columnar plan's operators returned their last batch. */
  private boolean operatorDone;
  /** The batches of a cached result this execution hands out instead of running a plan; null to run one. */
  private final List<byte[]> cached;
  private int nextCached;
  /** Where the batches of a run go as well; null for nowhere. */
  private final ResultSink sink;
  private Enumerator<Object> rows;
  private final VectorSchemaRoot root;
  private final ColumnWriter[] writers;
  private final boolean scalarRows;
  private final BatchLimits limits;
  private final long started = System.nanoTime();
  private volatile boolean exhausted;
  private boolean closed;
  /** Set by {@link #prefetch()}: the root holds a batch the next {@link #next()} hands out. */
  private Boolean prefetched;

  QueryExecution(
      BufferAllocator allocator,
      QueryContext context,
      Schema schema,
      Supplier<Enumerator<Object>> plan,
      BatchLimits limits,
      ResultSink sink) {
    this(allocator, context, schema, requireNonNull(plan, "plan is null"), null, null, limits, sink);
  }

  /** An execution of a columnar plan, whose batches have {@code schema}. */
  QueryExecution(BufferAllocator allocator, QueryContext context, Schema schema, BatchPlan plan, BatchLimits limits, ResultSink sink) {
    this(allocator, context, schema, null, requireNonNull(plan, "plan is null"), null, limits, sink);
  }

  /** An execution that hands out {@code cached}, record batches of an earlier run ({@link ArrowBatches}). */
  QueryExecution(BufferAllocator allocator, QueryContext context, Schema schema, List<byte[]> cached, BatchLimits limits) {
    this(allocator, context, schema, null, null, List.copyOf(cached), limits, null);
  }

  private QueryExecution(
      BufferAllocator allocator,
      QueryContext context,
      Schema schema,
      Supplier<Enumerator<Object>> plan,
      BatchPlan batchPlan,
      List<byte[]> cached,
      BatchLimits limits,
      ResultSink sink) {
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.context = requireNonNull(context, "context is null");
    this.plan = plan;
    this.batchPlan = batchPlan;
    this.cached = cached;
    this.sink = sink;
    this.limits = requireNonNull(limits, "limits is null");
    this.root = VectorSchemaRoot.create(schema, allocator);
    List<FieldVector> vectors = root.getFieldVectors();
    for (FieldVector vector : vectors) {
      // Arrow's default reserves room for about 4,000 values per vector, some 48 KB per text
      // column, counted against the query's memory limit even for a one-row answer. Start small;
      // a vector keeps the capacity it grows to for the later batches.
      vector.setInitialCapacity(INITIAL_BATCH_ROWS);
    }
    this.writers = new ColumnWriter[vectors.size()];
    for (int i = 0; i < writers.length; i++) {
      writers[i] = ColumnWriter.create(vectors.get(i));
    }
    // Calcite yields a bare value rather than a one-element array for one-column rows.
    this.scalarRows = writers.length == 1;
  }

  public String queryId() {
    return context.queryId();
  }

  public QueryContext context() {
    return context;
  }

  public Schema schema() {
    return root.getSchema();
  }

  /** The root every batch is written into; send it after each successful {@link #next()}. */
  public VectorSchemaRoot root() {
    return root;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /**
   * Computes the first batch now, on the calling thread, so that the result is ready to stream
   * when a client asks for it; the next {@link #next()} returns that batch.
   *
   * @return whether there is a first batch
   */
  public boolean prefetch() {
    boolean rows = next();
    prefetched = rows;
    return rows;
  }

  /** Whether every row has been produced: after a prefetch, whether the first batch is the whole result. */
  public boolean exhausted() {
    return exhausted;
  }

  /**
   * Fills {@link #root()} with the next batch of rows.
   *
   * @return false when the result is exhausted and the root holds no rows
   */
  public boolean next() {
    if (prefetched != null) {
      boolean rows = prefetched;
      prefetched = null;
      return rows;
    }
    if (exhausted) {
      root.setRowCount(0);
      return false;
    }
    if (cached != null) {
      return nextCached();
    }
    if (batchPlan != null) {
      return nextBatch();
    }
    try {
      root.clear();
      root.allocateNew();
      int count = 0;
      while (count < limits.maxRows()) {
        context.checkCancelled();
        if (rows == null) {
          // Starting the plan can already do all its work (a sort, an aggregate), so it happens
          // here, after the caller could register for cancellation, not when the execution is made.
          rows = plan.get();
        }
        if (!rows.moveNext()) {
          exhausted = true;
          break;
        }
        write(count, rows.current());
        count++;
        if ((count & 0xFF) == 0 && bufferBytes(count) >= limits.maxBytes()) {
          break;
        }
      }
      for (FieldVector vector : root.getFieldVectors()) {
        vector.setValueCount(count);
      }
      root.setRowCount(count);
      return returned(count);
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, context.queryId());
    }
  }

  /** Moves the next batch of the columnar plan's vectors into {@link #root()}. */
  private boolean nextBatch() {
    try {
      context.checkCancelled();
      root.clear();
      if (batches == null) {
        // Opened here, after the caller could register for cancellation (see next()).
        batches = batchPlan.open(context, allocator);
        context.stats().columnar(true);
      }
      if (pending == null) {
        pending = operatorDone ? null : coalesce(batches.next());
        pendingOffset = 0;
        exhausted = pending == null;
      }
      int count = pending == null ? 0 : handOut();
      // The operator said it had no more while the last of its rows were coalesced: the batch
      // just handed out is the last, as a row plan knows when its rows run out.
      exhausted |= pending == null && operatorDone;
      root.setRowCount(count);
      return returned(count);
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, context.queryId());
    }
  }

  /**
   * {@code first} with the batches after it while they are small (a selective filter keeps a few
   * rows of each), appended into one batch of at least {@link #COALESCED_ROWS} rows or the rest of
   * the result: a batch costs a Flight message and the client a read, whatever its size.
   */
  private VectorSchemaRoot coalesce(VectorSchemaRoot first) {
    if (first == null) {
      operatorDone = true;
      return null;
    }
    if (first.getRowCount() >= COALESCED_ROWS) {
      return first;
    }
    List<VectorSchemaRoot> parts = new java.util.ArrayList<>();
    parts.add(first);
    int rows = first.getRowCount();
    try {
      while (rows < COALESCED_ROWS) {
        VectorSchemaRoot more = batches.next();
        if (more == null) {
          operatorDone = true;
          break;
        }
        parts.add(more);
        rows += more.getRowCount();
      }
      if (parts.size() == 1) {
        parts.clear();
        return first;
      }
      return Gather.append(parts, allocator);
    } finally {
      parts.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Moves the next rows of {@link #pending} into the root: all of them, or as many as the batch
   * limits allow (bytes in proportion to rows), cut by Arrow's split-and-transfer.
   */
  private int handOut() {
    int rows = pending.getRowCount();
    int remaining = rows - pendingOffset;
    long bytes = 0;
    for (FieldVector vector : pending.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    int take = Math.min(remaining, limits.maxRows());
    if (bytes > limits.maxBytes()) {
      take = (int) Math.max(1, Math.min(take, rows * limits.maxBytes() / bytes));
    }
    List<FieldVector> from = pending.getFieldVectors();
    List<FieldVector> to = root.getFieldVectors();
    for (int i = 0; i < to.size(); i++) {
      if (take == rows) {
        from.get(i).makeTransferPair(to.get(i)).transfer();
      } else {
        from.get(i).makeTransferPair(to.get(i)).splitAndTransfer(pendingOffset, take);
      }
    }
    pendingOffset += take;
    if (pendingOffset == rows) {
      pending.close();
      pending = null;
    }
    return take;
  }

  /** Records a batch of {@code count} rows now in the root, and the end of the run once exhausted. */
  private boolean returned(int count) {
    context.stats().batchReturned(count);
    if (sink != null && count > 0) {
      sink.batch(root);
    }
    if (exhausted) {
      if (sink != null) {
        sink.completed();
      }
      context.stats().exhausted(System.nanoTime() - started);
      context.run().succeeded();
    }
    return count > 0;
  }

  private boolean nextCached() {
    try {
      context.checkCancelled();
      root.clear();
      int count = 0;
      if (nextCached < cached.size()) {
        ArrowBatches.load(cached.get(nextCached++), root, allocator);
        count = root.getRowCount();
      }
      if (nextCached >= cached.size()) {
        exhausted = true;
      }
      if (count == 0) {
        root.setRowCount(0);
      }
      context.stats().batchReturned(count);
      if (exhausted) {
        context.stats().exhausted(System.nanoTime() - started);
        context.run().succeeded();
      }
      return count > 0;
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, context.queryId());
    }
  }

  private void write(int index, Object row) {
    if (scalarRows) {
      writers[0].write(index, row);
      return;
    }
    Object[] values = (Object[]) row;
    for (int i = 0; i < writers.length; i++) {
      writers[i].write(index, values[i]);
    }
  }

  /**
   * The bytes the first {@code count} rows take. Vectors report their size only once their value
   * count is set, which happens when the batch is complete, so ask for the size of that many.
   */
  private long bufferBytes(int count) {
    long bytes = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      bytes += vector.getBufferSizeFor(count);
    }
    return bytes;
  }

  /** Stops the query; a thread blocked in {@link #next()} fails with CANCELLED soon after. */
  public void cancel(String reason) {
    context.cancel(io.sqe.engine.ErrorCode.CANCELLED, reason);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      ExecutionErrors.releaseQuietly(context.queryId(), () -> {
        if (rows != null) {
          rows.close();
        }
        if (pending != null) {
          pending.close();
        }
        if (batches != null) {
          batches.close();
        }
        context.releaseHeld();
      });
      context.releaseSpill();
    } finally {
      try {
        root.close();
        context.stats().peakMemoryBytes(allocator.getPeakMemoryAllocation());
        allocator.close();
      } finally {
        // Last, so that whoever waits for the run to end finds its memory released.
        context.run().close();
      }
    }
  }

  /** How big one record batch may grow. */
  public record BatchLimits(int maxRows, long maxBytes) {}
}
