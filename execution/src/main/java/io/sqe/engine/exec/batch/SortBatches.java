package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.RowComparator;
import io.sqe.engine.exec.expr.SortKeyColumns;
import io.sqe.engine.exec.spill.RunReader;
import io.sqe.engine.exec.spill.RunWriter;
import io.sqe.engine.exec.spill.SpilledRun;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * ORDER BY of any size. Input batches are kept while the query's memory stays under the operator's
 * budget (half the query's memory limit); when it no longer does, their rows are sorted and written to the query's
 * spill space as a run, and the memory freed. At the end the rows are handed out in order: from
 * memory when nothing was spilled (no disk touched), else by merging the runs, reading each one
 * batch at a time. The sort is stable, as the row runtime's is: equal keys keep their input order.
 */
public final class SortBatches implements BatchOperator {
  static final int OUTPUT_ROWS = 4096;
  /** The most runs one merge reads at once; more are first merged in groups of this many. */
  private static final int FAN_IN = 64;
  /** Rows kept in memory at most, whatever their bytes: the sort's row addresses are on the heap. */
  private static final int MAX_BUFFERED_ROWS = 16 << 20;

  private final BatchOperator input;
  private final RowComparator comparator;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final long budget;
  private final int fanIn;
  private final List<VectorSchemaRoot> buffered = new ArrayList<>();
  private long bufferedBytes;
  private int bufferedRows;
  private final List<SpilledRun> runs = new ArrayList<>();
  /** Rows per batch of a spilled run: few enough that a merge's batches, one per run, fit the budget. */
  private int runBatchRows;
  private Schema schema;
  private boolean drained;
  private boolean inputClosed;
  /** The buffered rows in order, handed out from {@link #emitted} on, when nothing was spilled. */
  private long[] order;
  private int emitted;
  private Merge merge;

  public SortBatches(BatchOperator input, RowComparator comparator, QueryContext context, BufferAllocator allocator) {
    this(input, comparator, context, allocator, FAN_IN);
  }

  /** @param fanIn the most runs one merge reads at once */
  SortBatches(BatchOperator input, RowComparator comparator, QueryContext context, BufferAllocator allocator, int fanIn) {
    if (fanIn < 2) {
      throw new IllegalArgumentException("fanIn must be at least 2, not " + fanIn);
    }
    this.fanIn = fanIn;
    this.input = requireNonNull(input, "input is null");
    this.comparator = requireNonNull(comparator, "comparator is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.budget = allocator.getLimit() / 2;
  }

  @Override
  public VectorSchemaRoot next() {
    if (!drained) {
      drain();
    }
    context.checkCancelled();
    try {
      if (merge != null) {
        return merge.next(OUTPUT_ROWS);
      }
      if (order == null || emitted == order.length) {
        releaseBuffered();
        return null;
      }
      int count = Math.min(OUTPUT_ROWS, order.length - emitted);
      VectorSchemaRoot out = gather(order, emitted, count);
      emitted += count;
      return out;
    } catch (OutOfMemoryException e) {
      throw exhausted(e);
    }
  }

  private void drain() {
    drained = true;
    while (true) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) {
        // The input's readers and buffers go now, before the output needs the memory.
        closeInput();
        break;
      }
      context.checkCancelled();
      try {
        buffer(batch);
      } catch (OutOfMemoryException e) {
        throw exhausted(e);
      }
    }
    try {
      if (runs.isEmpty()) {
        order = sortBuffered();
        return;
      }
      if (!buffered.isEmpty()) {
        spill();
      }
      while (runs.size() > fanIn) {
        mergeGroups();
      }
      merge = new Merge(new ArrayList<>(runs));
      runs.clear();
    } catch (OutOfMemoryException e) {
      throw exhausted(e);
    }
  }

  private void buffer(VectorSchemaRoot batch) {
    if (schema == null) {
      schema = batch.getSchema();
    }
    buffered.add(batch);
    long bytes = bytes(batch);
    bufferedBytes += bytes;
    bufferedRows += batch.getRowCount();
    // The budget is of the whole query's memory, not the sort's alone: the scan below holds
    // decoded and prefetched batches of the same limit, and the merge at the end needs room.
    if (allocator.getAllocatedMemory() > budget || allocator.getHeadroom() < 2 * bytes || bufferedRows > MAX_BUFFERED_ROWS) {
      spill();
    }
  }

  /** Writes the buffered rows, sorted, to a new run and frees them. */
  private void spill() {
    long[] sorted = sortBuffered();
    if (runBatchRows == 0) {
      long rowBytes = Math.max(1, bufferedBytes / Math.max(1, bufferedRows));
      runBatchRows = (int) Math.max(64, Math.min(OUTPUT_ROWS, budget / (2L * fanIn) / rowBytes));
    }
    try (RunWriter writer = context.spill().newRun(schema, allocator)) {
      for (int start = 0; start < sorted.length; start += runBatchRows) {
        context.checkCancelled();
        try (VectorSchemaRoot chunk = gather(sorted, start, Math.min(runBatchRows, sorted.length - start))) {
          writer.write(chunk);
        }
      }
      runs.add(writer.finish());
    }
    releaseBuffered();
  }

  /** Merges the runs in consecutive groups of {@link #fanIn}, each into one run: the order of equal rows holds. */
  private void mergeGroups() {
    List<SpilledRun> merged = new ArrayList<>();
    for (int start = 0; start < runs.size(); start += fanIn) {
      List<SpilledRun> group = runs.subList(start, Math.min(runs.size(), start + fanIn));
      if (group.size() == 1) {
        merged.add(group.get(0));
        continue;
      }
      try (Merge groupMerge = new Merge(new ArrayList<>(group)); RunWriter writer = context.spill().newRun(schema, allocator)) {
        for (VectorSchemaRoot batch = groupMerge.next(runBatchRows); batch != null; batch = groupMerge.next(runBatchRows)) {
          try {
            writer.write(batch);
          } finally {
            batch.close();
          }
          context.checkCancelled();
        }
        merged.add(writer.finish());
      }
    }
    runs.clear();
    runs.addAll(merged);
  }

  /** The buffered rows' addresses ({@code batch << 32 | row}), sorted stably. */
  private long[] sortBuffered() {
    List<List<FieldVector>> columns = new ArrayList<>(buffered.size());
    long[] addresses = new long[bufferedRows];
    int n = 0;
    for (int b = 0; b < buffered.size(); b++) {
      columns.add(buffered.get(b).getFieldVectors());
      for (int r = 0; r < buffered.get(b).getRowCount(); r++) {
        addresses[n++] = ((long) b << 32) | r;
      }
    }
    SortKeyColumns sortKeys = new SortKeyColumns(comparator, columns);
    RowOrder.sort(addresses, sortKeys::compare);
    return addresses;
  }

  private VectorSchemaRoot gather(long[] addresses, int start, int count) {
    return Gather.rows(
        schema, allocator, count, i -> buffered.get((int) (addresses[start + i] >>> 32)), i -> (int) addresses[start + i]);
  }

  private void releaseBuffered() {
    buffered.forEach(VectorSchemaRoot::close);
    buffered.clear();
    bufferedBytes = 0;
    bufferedRows = 0;
    order = null;
  }

  /** The memory {@code batch} holds: its buffers' capacities, which is what the allocator counts. */
  private static long bytes(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      for (org.apache.arrow.memory.ArrowBuf buffer : vector.getFieldBuffers()) {
        bytes += buffer.capacity();
      }
    }
    return bytes;
  }

  private SqeException exhausted(OutOfMemoryException e) {
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED,
        "Query " + context.queryId() + " exceeded its memory limit of " + allocator.getLimit()
            + " bytes (query.max-memory) in operator Sort, even spilling to disk: " + e.getMessage(),
        e);
  }

  private void closeInput() {
    if (!inputClosed) {
      inputClosed = true;
      input.close();
    }
  }

  @Override
  public void close() {
    try {
      closeInput();
    } finally {
      releaseBuffered();
      if (merge != null) {
        merge.close();
        merge = null;
      }
      runs.forEach(SpilledRun::delete);
      runs.clear();
    }
  }

  /**
   * A k-way merge of sorted runs: a heap of the runs by their current rows, each run read one batch
   * at a time. Equal rows come from the earlier run first, which keeps the sort stable.
   */
  private final class Merge implements AutoCloseable {
    private final List<SpilledRun> sources;
    private final RunReader[] readers;
    private final List<FieldVector>[] columns;
    private final int[] rows;
    private final PriorityQueue<Integer> heap;

    @SuppressWarnings("unchecked")
    Merge(List<SpilledRun> sources) {
      this.sources = sources;
      this.readers = new RunReader[sources.size()];
      this.columns = new List[sources.size()];
      this.rows = new int[sources.size()];
      this.heap = new PriorityQueue<>(Math.max(1, sources.size()), (a, b) -> {
        int order = comparator.compare(columns[a], rows[a], columns[b], rows[b]);
        return order != 0 ? order : Integer.compare(a, b);
      });
      try {
        for (int i = 0; i < readers.length; i++) {
          readers[i] = sources.get(i).open(allocator);
          if (readers[i].loadNext()) {
            columns[i] = readers[i].batch().getFieldVectors();
            heap.add(i);
          } else {
            finished(i);
          }
        }
      } catch (RuntimeException | Error e) {
        close();
        throw e;
      }
    }

    /** The next at most {@code maxRows} rows in order, or null after the last. */
    VectorSchemaRoot next(int maxRows) {
      if (heap.isEmpty()) {
        return null;
      }
      VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
      try {
        List<FieldVector> to = out.getFieldVectors();
        for (FieldVector vector : to) {
          vector.setInitialCapacity(maxRows);
          vector.allocateNew();
        }
        int n = 0;
        while (n < maxRows && !heap.isEmpty()) {
          int run = heap.poll();
          List<FieldVector> from = columns[run];
          for (int c = 0; c < to.size(); c++) {
            to.get(c).copyFromSafe(rows[run], n, from.get(c));
          }
          n++;
          if (++rows[run] == readers[run].batch().getRowCount()) {
            if (!readers[run].loadNext()) {
              finished(run);
              continue;
            }
            rows[run] = 0;
          }
          heap.add(run);
        }
        for (FieldVector vector : to) {
          vector.setValueCount(n);
        }
        out.setRowCount(n);
        return out;
      } catch (RuntimeException | Error e) {
        out.close();
        throw e;
      }
    }

    /** Closes run {@code i}'s reader and deletes its file: it is read to the end. */
    private void finished(int i) {
      if (readers[i] != null) {
        readers[i].close();
        readers[i] = null;
      }
      sources.get(i).delete();
    }

    @Override
    public void close() {
      for (int i = 0; i < readers.length; i++) {
        if (readers[i] != null) {
          readers[i].close();
          readers[i] = null;
        }
        sources.get(i).delete();
      }
    }
  }
}
