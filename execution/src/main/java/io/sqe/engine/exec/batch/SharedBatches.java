package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

/**
 * The batches of a subplan that a columnar plan uses more than once, computed once per execution
 * and replayed to every consumer, as {@link io.sqe.engine.exec.SharedRows} does for rows. The first
 * consumer to ask for a batch (on whatever thread, a parallel part's included) reads the subplan
 * to its end into batches of the query's allocator, so they count against {@code
 * query.max-memory}; the others wait for them, checking for cancellation, and fail with the
 * computation's error if it fails. Each consumer gets views of the stored batches (their buffers
 * shared, not copied), which it owns as any batch. Past {@code maxRows} rows, or past a quarter of
 * the query's memory limit (or once the query holds more than half of it), nothing is kept: the
 * first consumer streams the rest and each other consumer computes its own. Stored batches are held
 * until the execution ends ({@link QueryContext#holdUntilEnd}), beside every operator that runs
 * meanwhile, so they may take no more than a hash join's build side before it spills.
 */
public final class SharedBatches implements BatchOperator {
  private static final long WAIT_MILLIS = 50;

  private final Object key;
  private final long maxRows;
  private final BatchPlan plan;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** What this consumer returns: a replay of stored batches, or the subplan's own batches. */
  private BatchOperator source;
  private boolean closed;

  /**
   * @param key the same for every occurrence of one subplan in a plan, and no other subplan's
   * @param plan the subplan, opened by this consumer only if it computes the batches
   */
  public SharedBatches(Object key, long maxRows, BatchPlan plan, QueryContext context, BufferAllocator allocator) {
    this.key = requireNonNull(key, "key is null");
    this.maxRows = maxRows;
    this.plan = requireNonNull(plan, "plan is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    if (source == null) {
      QueryContext whole = context.whole();
      Computation computation = (Computation) whole.runtimeState().computeIfAbsent(new Key(key), k -> {
        Computation made = new Computation();
        whole.holdUntilEnd(made);
        return made;
      });
      source = computation.open(this);
    }
    return source.next();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (source != null) {
      source.close();
    }
  }

  /** The key of a subplan's batches in the execution's state, apart from every other kind of state there. */
  private record Key(Object subplan) {}

  /** One subplan's batches in one execution: computed by the first consumer, awaited by the others. */
  private static final class Computation implements AutoCloseable {
    private final AtomicBoolean claimed = new AtomicBoolean();
    /** The batches, or null when there were too many rows to keep. */
    private final CompletableFuture<List<VectorSchemaRoot>> result = new CompletableFuture<>();
    private List<VectorSchemaRoot> stored;

    BatchOperator open(SharedBatches consumer) {
      if (claimed.compareAndSet(false, true)) {
        return compute(consumer);
      }
      List<VectorSchemaRoot> batches = await(consumer.context);
      return batches != null ? new Replay(batches, consumer.allocator) : consumer.plan.open(consumer.context, consumer.allocator);
    }

    private BatchOperator compute(SharedBatches consumer) {
      BatchOperator input = null;
      List<VectorSchemaRoot> batches = new ArrayList<>();
      try {
        input = consumer.plan.open(consumer.context, consumer.allocator);
        long rows = 0;
        long bytes = 0;
        while (true) {
          VectorSchemaRoot batch = input.next();
          if (batch == null) {
            break;
          }
          batches.add(batch);
          rows += batch.getRowCount();
          bytes += bytes(batch);
          if (rows > consumer.maxRows || tooLargeToKeep(bytes, consumer.allocator)) {
            result.complete(null);
            BatchOperator rest = input;
            input = null;
            return new ReadThenRest(batches, rest);
          }
        }
        synchronized (this) {
          stored = batches;
        }
        result.complete(batches);
        return new Replay(batches, consumer.allocator);
      } catch (RuntimeException | Error e) {
        for (VectorSchemaRoot batch : batches) {
          batch.close();
        }
        result.completeExceptionally(e);
        throw e;
      } finally {
        if (input != null) {
          input.close();
        }
      }
    }

    /** Whether batches of {@code bytes} would take more than their share of the query's memory. */
    private static boolean tooLargeToKeep(long bytes, BufferAllocator allocator) {
      long limit = allocator.getLimit();
      return bytes > limit / 4 || allocator.getHeadroom() < limit / 2;
    }

    /** The memory {@code batch} holds: its buffers' capacities, which is what the allocator counts. */
    private static long bytes(VectorSchemaRoot batch) {
      long bytes = 0;
      for (FieldVector vector : batch.getFieldVectors()) {
        for (ArrowBuf buffer : vector.getFieldBuffers()) {
          bytes += buffer.capacity();
        }
      }
      return bytes;
    }

    /**
     * Waits for the consumer computing the batches. It needs nothing from this thread: a shared
     * subplan is whole (no part of a split scan), so it cannot wait on the consumers that wait on it.
     */
    private List<VectorSchemaRoot> await(QueryContext context) {
      try {
        while (true) {
          context.checkCancelled();
          try {
            return result.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
          } catch (TimeoutException e) {
            // Still computing: check for cancellation and wait on.
          }
        }
      } catch (ExecutionException e) {
        throw ExecutionErrors.rethrow(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SqeException(ErrorCode.CANCELLED, "Interrupted while waiting for the batches of a shared subplan");
      }
    }

    @Override
    public synchronized void close() {
      if (stored != null) {
        for (VectorSchemaRoot batch : stored) {
          batch.close();
        }
        stored = null;
      }
    }
  }

  /** Views of stored batches, one per batch, sharing their buffers. */
  private static final class Replay implements BatchOperator {
    private final List<VectorSchemaRoot> batches;
    private final BufferAllocator allocator;
    private int next;

    Replay(List<VectorSchemaRoot> batches, BufferAllocator allocator) {
      this.batches = batches;
      this.allocator = allocator;
    }

    @Override
    public VectorSchemaRoot next() {
      if (next >= batches.size()) {
        return null;
      }
      VectorSchemaRoot batch = batches.get(next++);
      int rows = batch.getRowCount();
      List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors().size());
      try {
        for (FieldVector vector : batch.getFieldVectors()) {
          TransferPair view = vector.getTransferPair(allocator);
          // From row 0, a split takes slices of the buffers, counted once (reference counted).
          view.splitAndTransfer(0, rows);
          vectors.add((FieldVector) view.getTo());
        }
      } catch (RuntimeException | Error e) {
        vectors.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(batch.getSchema().getFields(), vectors, rows);
    }

    @Override
    public void close() {
      next = batches.size();
    }
  }

  /** The batches read before the subplan proved too large to keep, then the rest of its batches. */
  private static final class ReadThenRest implements BatchOperator {
    private final List<VectorSchemaRoot> read;
    private final BatchOperator rest;
    private int next;

    ReadThenRest(List<VectorSchemaRoot> read, BatchOperator rest) {
      this.read = read;
      this.rest = rest;
    }

    @Override
    public VectorSchemaRoot next() {
      if (next < read.size()) {
        VectorSchemaRoot batch = read.get(next);
        read.set(next++, null);
        return batch;
      }
      return rest.next();
    }

    @Override
    public void close() {
      try {
        rest.close();
      } finally {
        for (int i = next; i < read.size(); i++) {
          read.get(i).close();
        }
        next = read.size();
      }
    }
  }
}
