package io.sqe.engine.exec.parallel;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.Gather;
import io.sqe.engine.exec.hash.KeyRouting;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The batches of a parallel pipeline's parts (the producers: a partial aggregate over a split
 * scan, say), each row sent to one of the partitions of the parallel pipeline above by a hash of
 * its key columns (the consumers: the parts of a {@link GatherBatches}, each finishing the
 * aggregate of its keys). A consumer thus sees every row of its keys and none of another's, so the
 * final phase of an aggregate runs in as many parts as the partial one, where it ran on one
 * thread above a gather.
 *
 * <p>It has no threads of its own. A consumer whose partition holds no batch runs a producer no
 * other consumer runs, for one batch, and queues that batch's rows in every partition; it waits
 * while another consumer runs each unfinished producer, or while the partition of another consumer
 * that is reading holds {@link #BACKLOG} batches: a consumer slower than the others (its aggregate
 * spilling) bounds what waits for it, which the memory limit would otherwise have to hold. That
 * bound is never waited for where the wait could be a cycle: not for a consumer that waits to hand
 * a batch over to the gather's consuming thread (which may be the thread waiting here, reading its
 * own partition), nor for one that has taken no batch for {@link #STALL_NANOS} (it may wait on
 * something the waiting thread holds); the waiting consumer then runs a producer. It
 * holds no producer between batches. A consumer that has not begun to read puts no bound: with a
 * single consumer thread (the pool had none to spare), that thread runs every producer and the
 * other partitions' rows wait in their queues for their consumers, which then run after it.
 *
 * <p>The first failure of a producer is every consumer's. The consumers' gather closes the
 * exchange once no consumer runs any more: producers not finished are closed and queued batches
 * released.
 */
public final class HashExchange implements AutoCloseable {
  private static final long WAIT_MILLIS = 50;
  /** Batches a reading consumer's partition may hold before the others stop producing for it. */
  static final int BACKLOG = 8;
  /** How long a backlogged consumer may take no batch before the others produce regardless. */
  private static final long STALL_NANOS = 1_000_000_000L;
  /** Salts the routing apart from the spill partitions of the aggregates that consume it. */
  private static final long SALT = 0x6A09E667F3BCC909L;

  private final BatchPlan producer;
  /** The consumers' part of their parallel pipeline, telling which of them wait to hand over; null for one consumer. */
  private final ScanPart consumers;
  private final int producers;
  private final int partitions;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private final PartContext.Shared producerShared;
  private final BatchOperator[] operators;
  /** Each producer's routing of its batches' rows, used by whichever thread runs it. */
  private final KeyRouting[] routings;
  private final boolean[] claimed;
  private final boolean[] finished;
  private final ArrayDeque<VectorSchemaRoot>[] queues;
  /** Whether each partition's consumer is reading it: it has asked for a batch and not closed. */
  private final boolean[] reading;
  /** Whether each partition's consumer has closed: nothing is queued for it any more. */
  private final boolean[] left;
  /** When each reading partition's consumer last took a batch (or began to read), in nanoseconds. */
  private final long[] lastTaken;
  /** The most batches a partition held while its consumer was reading, for tests. */
  private int mostQueued;
  private int finishedCount;
  private Throwable failure;
  private boolean closed;

  @SuppressWarnings("unchecked")
  private HashExchange(
      BatchPlan producer,
      ScanPart consumers,
      int producers,
      int partitions,
      int[] keyColumns,
      Schema schema,
      QueryContext context,
      BufferAllocator allocator) {
    this.producer = requireNonNull(producer, "producer is null");
    this.consumers = consumers;
    this.producers = producers;
    this.partitions = partitions;
    this.schema = requireNonNull(schema, "schema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.producerShared = new PartContext.Shared(producers);
    this.operators = new BatchOperator[producers];
    this.routings = new KeyRouting[producers];
    for (int p = 0; p < producers; p++) {
      routings[p] = new KeyRouting(schema, keyColumns, partitions, SALT);
    }
    this.claimed = new boolean[producers];
    this.finished = new boolean[producers];
    this.queues = new ArrayDeque[partitions];
    this.reading = new boolean[partitions];
    this.left = new boolean[partitions];
    this.lastTaken = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      queues[p] = new ArrayDeque<>();
    }
  }

  /**
   * The plan of one consumer's input: the batches of its part's partition of the exchange all the
   * parts of the parallel pipeline it runs in share (made by the first of them to open it). Outside
   * a parallel pipeline, all the producers' batches.
   *
   * @param producer the plan of one producer, opened {@code producers} times as the parts of a
   *     parallel pipeline of its own
   * @param keyColumns the columns of the producer's batches whose hash chooses a row's partition
   * @param schema the producer's batches' schema
   */
  public static BatchPlan partition(BatchPlan producer, int producers, int[] keyColumns, Schema schema) {
    return partition(producer, producers, keyColumns, schema, exchange -> {});
  }

  /** As above, handing each exchange made to {@code made}: tests look into it. */
  static BatchPlan partition(
      BatchPlan producer, int producers, int[] keyColumns, Schema schema, Consumer<HashExchange> made) {
    Object key = new Object();
    int[] keys = keyColumns.clone();
    return (context, allocator) -> {
      ScanPart part = ScanPart.of(context);
      if (part == null) {
        HashExchange alone = new HashExchange(producer, null, producers, 1, keys, schema, context, allocator);
        return new Source(alone, 0, true);
      }
      HashExchange exchange = part.shared(key, () -> {
        HashExchange shared = new HashExchange(producer, part, producers, part.parts(), keys, schema, context, allocator);
        made.accept(shared);
        return shared;
      });
      return new Source(exchange, part.index(), false);
    };
  }

  /** The next batch of partition {@code partition}, or null once every producer has finished and its queue is empty. */
  VectorSchemaRoot next(int partition) {
    while (true) {
      int run = -1;
      synchronized (this) {
        if (!reading[partition]) {
          reading[partition] = true;
          lastTaken[partition] = System.nanoTime();
        }
        while (run < 0) {
          if (failure != null) {
            throw ExecutionErrors.rethrow(failure);
          }
          VectorSchemaRoot queued = queues[partition].poll();
          if (queued != null) {
            lastTaken[partition] = System.nanoTime();
            if (queues[partition].size() == BACKLOG - 1) {
              notifyAll();
            }
            return queued;
          }
          if (finishedCount == producers) {
            return null;
          }
          run = backlogged(partition) ? -1 : unclaimed();
          if (run >= 0) {
            claimed[run] = true;
          } else {
            await();
          }
        }
      }
      produce(run);
    }
  }

  /**
   * Whether the partition of another consumer that is reading holds {@link #BACKLOG} batches, and
   * that consumer can be waited for: it is not waiting to hand a batch over and has taken one
   * within {@link #STALL_NANOS}.
   */
  private boolean backlogged(int partition) {
    long now = System.nanoTime();
    for (int p = 0; p < partitions; p++) {
      if (p != partition
          && reading[p]
          && queues[p].size() >= BACKLOG
          && !consumers.handingOver(p)
          && now - lastTaken[p] < STALL_NANOS) {
        return true;
      }
    }
    return false;
  }

  /** Partition {@code partition}'s consumer reads no more: nothing waits for it, and its queued batches go. */
  private synchronized void leave(int partition) {
    reading[partition] = false;
    left[partition] = true;
    for (VectorSchemaRoot batch = queues[partition].poll(); batch != null; batch = queues[partition].poll()) {
      batch.close();
    }
    notifyAll();
  }

  /** The most batches a partition held while its consumer was reading. */
  synchronized int mostQueued() {
    return mostQueued;
  }

  private int unclaimed() {
    for (int p = 0; p < producers; p++) {
      if (!claimed[p] && !finished[p]) {
        return p;
      }
    }
    return -1;
  }

  private void await() {
    try {
      wait(WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SqeException(ErrorCode.CANCELLED, "Interrupted while waiting for the parts of a parallel pipeline");
    }
    context.checkCancelled();
  }

  /** Runs producer {@code index}, claimed by this thread, for one batch, and queues its rows by partition. */
  private void produce(int index) {
    VectorSchemaRoot[] pieces = null;
    boolean done = false;
    try {
      context.checkCancelled();
      BatchOperator operator = operators[index];
      if (operator == null) {
        operator = open(index);
        operators[index] = operator;
      }
      VectorSchemaRoot batch = operator.next();
      if (batch == null) {
        done = true;
        operators[index] = null;
        operator.close();
      } else {
        pieces = split(batch, routings[index]);
      }
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        failure = failure == null ? e : failure;
        claimed[index] = false;
        notifyAll();
      }
      throw e;
    }
    synchronized (this) {
      claimed[index] = false;
      if (done) {
        finished[index] = true;
        finishedCount++;
      } else {
        for (int p = 0; p < partitions; p++) {
          if (pieces[p] != null && left[p]) {
            pieces[p].close();
          } else if (pieces[p] != null) {
            queues[p].add(pieces[p]);
            if (reading[p]) {
              mostQueued = Math.max(mostQueued, queues[p].size());
            }
          }
        }
      }
      notifyAll();
    }
  }

  private BatchOperator open(int index) {
    PartContext partContext = new PartContext(context, index, producerShared);
    return producer.open(context.forPart(partContext, partContext.runtimeState()), allocator);
  }

  /** {@code batch}'s rows by partition, null for a partition without any; takes the batch. */
  private VectorSchemaRoot[] split(VectorSchemaRoot batch, KeyRouting routing) {
    VectorSchemaRoot[] pieces = new VectorSchemaRoot[partitions];
    int rows = batch.getRowCount();
    if (partitions == 1 || rows == 0) {
      pieces[0] = batch;
      return pieces;
    }
    try {
      routing.routeAll(batch);
      for (int p = 0; p < partitions; p++) {
        int count = routing.start(p + 1) - routing.start(p);
        if (count == rows) {
          pieces[p] = batch;
          return pieces;
        }
        if (count > 0) {
          int[] selected = Arrays.copyOfRange(routing.rows(), routing.start(p), routing.start(p + 1));
          pieces[p] = Gather.rows(schema, allocator, count, batch, selected);
        }
      }
      batch.close();
      return pieces;
    } catch (RuntimeException | Error e) {
      for (VectorSchemaRoot piece : pieces) {
        if (piece != null && piece != batch) {
          piece.close();
        }
      }
      batch.close();
      throw e;
    }
  }

  /** Closes the producers not finished and releases the queued batches; once no consumer runs any more. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      for (int p = 0; p < producers; p++) {
        if (operators[p] != null) {
          BatchOperator operator = operators[p];
          operators[p] = null;
          operator.close();
        }
      }
    } finally {
      for (ArrayDeque<VectorSchemaRoot> queue : queues) {
        for (VectorSchemaRoot batch = queue.poll(); batch != null; batch = queue.poll()) {
          batch.close();
        }
      }
      producerShared.close();
    }
  }

  /** One consumer's partition of the exchange, as its input. */
  private static final class Source implements BatchOperator {
    private final HashExchange exchange;
    private final int partition;
    private final boolean owned;

    Source(HashExchange exchange, int partition, boolean owned) {
      this.exchange = exchange;
      this.partition = partition;
      this.owned = owned;
    }

    @Override
    public VectorSchemaRoot next() {
      return exchange.next(partition);
    }

    @Override
    public void close() {
      if (owned) {
        exchange.close();
      } else {
        exchange.leave(partition);
      }
    }
  }
}
