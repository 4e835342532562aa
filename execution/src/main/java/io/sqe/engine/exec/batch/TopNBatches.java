package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.RowComparator;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * ORDER BY with OFFSET and FETCH, holding only the first {@code offset + fetch} rows seen so far:
 * each input batch's rows that sort before the last of them are merged in, the rest dropped, so
 * memory stays bounded by the limit whatever the input's size. The kept rows are a batch of the
 * query's allocator.
 */
public final class TopNBatches implements BatchOperator {
  private static final int OUTPUT_ROWS = 4096;

  private final BatchOperator input;
  private final RowComparator comparator;
  private final long offset;
  private final int limit;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** The first rows so far, in order; null before the first batch. */
  private VectorSchemaRoot best;
  private boolean drained;
  private int emitted;

  /** @param fetch the most rows to return, at most {@code Integer.MAX_VALUE - offset} together with it */
  public TopNBatches(BatchOperator input, RowComparator comparator, long offset, long fetch, QueryContext context, BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.comparator = requireNonNull(comparator, "comparator is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (offset < 0 || fetch < 0 || offset + fetch > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("offset and fetch out of range: " + offset + ", " + fetch);
    }
    this.offset = offset;
    this.limit = (int) (offset + fetch);
  }

  @Override
  public VectorSchemaRoot next() {
    if (!drained) {
      drain();
    }
    if (best == null) {
      return null;
    }
    int start = (int) Math.min(offset + emitted, best.getRowCount());
    int count = Math.min(OUTPUT_ROWS, best.getRowCount() - start);
    if (count <= 0) {
      return null;
    }
    emitted += count;
    return gather(List.of(best), new long[0], start, count);
  }

  private void drain() {
    drained = true;
    if (limit == 0) {
      return;
    }
    while (true) {
      try (VectorSchemaRoot batch = input.next()) {
        if (batch == null) {
          return;
        }
        merge(batch);
      }
      context.checkCancelled();
    }
  }

  /** The first {@code limit} rows of {@link #best} and {@code batch} together become {@link #best}. */
  private void merge(VectorSchemaRoot batch) {
    List<FieldVector> incoming = batch.getFieldVectors();
    int full = best == null ? 0 : best.getRowCount();
    List<FieldVector> kept = best == null ? null : best.getFieldVectors();
    // A row that does not sort before the last kept one cannot enter once the kept rows are full.
    long[] candidates = new long[full + batch.getRowCount()];
    int n = 0;
    for (int i = 0; i < full; i++) {
      candidates[n++] = i;
    }
    for (int r = 0; r < batch.getRowCount(); r++) {
      if (full < limit || comparator.compare(incoming, r, kept, full - 1) < 0) {
        candidates[n++] = (1L << 32) | r;
      }
    }
    if (n == full) {
      return;
    }
    long[] sorted = Arrays.copyOf(candidates, n);
    Long[] boxed = Arrays.stream(sorted).boxed().toArray(Long[]::new);
    Comparator<Long> order = (p, q) -> comparator.compare(
        (p >>> 32) == 0 ? kept : incoming, (int) (long) p,
        (q >>> 32) == 0 ? kept : incoming, (int) (long) q);
    // Stable: among equal keys, earlier rows stay first, as a stable sort of the whole input would.
    Arrays.sort(boxed, order);
    int count = Math.min(limit, n);
    long[] picked = new long[count];
    for (int i = 0; i < count; i++) {
      picked[i] = boxed[i];
    }
    List<VectorSchemaRoot> sources = best == null ? List.of(batch, batch) : List.of(best, batch);
    VectorSchemaRoot merged = gather(sources, picked, 0, count);
    if (best != null) {
      best.close();
    }
    best = merged;
  }

  /**
   * A new batch of {@code count} rows: with {@code picked}, those rows ({@code source << 32 | row},
   * source 0 the kept rows and 1 the incoming batch); without, rows {@code start..} of the only source.
   */
  private VectorSchemaRoot gather(List<VectorSchemaRoot> sources, long[] picked, int start, int count) {
    return Gather.rows(
        sources.get(0).getSchema(),
        allocator,
        count,
        i -> picked.length == 0 ? sources.get(0) : sources.get((int) (picked[i] >>> 32)),
        i -> picked.length == 0 ? start + i : (int) picked[i]);
  }

  @Override
  public void close() {
    try {
      input.close();
    } finally {
      if (best != null) {
        best.close();
        best = null;
      }
    }
  }
}
