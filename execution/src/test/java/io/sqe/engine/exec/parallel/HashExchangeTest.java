package io.sqe.engine.exec.parallel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.BatchPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The exchange under a gather: random batches of several producers, keyed by an integer and a
 * text column (NULLs included), reach the consumers whole (every row once, checked against the
 * rows made here) and split by key (no key in two consumers' partitions); a producer's failure is
 * the gather's; the root allocator, closed after each test, fails on any buffer left behind.
 */
class HashExchangeTest {
  private static final Field KEY = Field.nullable("k", new ArrowType.Int(32, true));
  private static final Field NAME = Field.nullable("name", ArrowType.Utf8.INSTANCE);
  private static final Field VALUE = Field.nullable("v", new ArrowType.Int(64, true));
  private static final Schema SCHEMA = new Schema(List.of(KEY, NAME, VALUE));

  private BufferAllocator root;

  @BeforeEach
  void open() {
    root = new RootAllocator();
  }

  @AfterEach
  void close() {
    root.close();
  }

  @Test
  void everyRowReachesTheOneConsumerOfItsKey() {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    int producers = 3;
    int consumers = 3;
    // rows[p][b] = the rows of producer p's batch b: key (or null), name (or null), value.
    List<List<List<Object[]>>> rows = new ArrayList<>();
    Map<List<Object>, Integer> expected = new HashMap<>();
    long value = 0;
    for (int p = 0; p < producers; p++) {
      List<List<Object[]>> batches = new ArrayList<>();
      for (int b = 0; b < 5 + random.nextInt(5); b++) {
        List<Object[]> batch = new ArrayList<>();
        for (int r = 0; r < 1 + random.nextInt(700); r++) {
          Integer key = random.nextInt(20) == 0 ? null : random.nextInt(300);
          String name = random.nextInt(15) == 0 ? null : "n" + random.nextInt(4);
          Object[] row = {key, name, value++};
          batch.add(row);
          expected.merge(List.of(String.valueOf(key), String.valueOf(name), row[2]), 1, Integer::sum);
        }
        batches.add(batch);
      }
      rows.add(batches);
    }
    BatchPlan producer = (context, allocator) -> source(rows.get(ScanPart.of(context).index()), allocator, -1);
    BatchPlan exchange = HashExchange.partition(producer, producers, new int[] {0, 1}, SCHEMA);
    ConcurrentHashMap<List<String>, Integer> consumerOfKey = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<String> conflicts = new ConcurrentLinkedQueue<>();
    Map<List<Object>, Integer> seen = new HashMap<>();
    BatchPlan consumer = (context, allocator) -> {
      int index = ScanPart.of(context).index();
      BatchOperator input = exchange.open(context, allocator);
      return new BatchOperator() {
        @Override
        public VectorSchemaRoot next() {
          VectorSchemaRoot batch = input.next();
          if (batch != null) {
            for (int r = 0; r < batch.getRowCount(); r++) {
              List<String> key = List.of(String.valueOf(batch.getVector(0).getObject(r)), String.valueOf(batch.getVector(1).getObject(r)));
              Integer before = consumerOfKey.putIfAbsent(key, index);
              if (before != null && before != index) {
                conflicts.add(key + " in " + before + " and " + index);
              }
            }
          }
          return batch;
        }

        @Override
        public void close() {
          input.close();
        }
      };
    };
    try (GatherBatches gather = new GatherBatches(consumer, consumers, context(), root)) {
      while (true) {
        try (VectorSchemaRoot batch = gather.next()) {
          if (batch == null) {
            break;
          }
          for (int r = 0; r < batch.getRowCount(); r++) {
            Object key = batch.getVector(0).getObject(r);
            Object name = batch.getVector(1).getObject(r);
            seen.merge(List.of(String.valueOf(key), String.valueOf(name), batch.getVector(2).getObject(r)), 1, Integer::sum);
          }
        }
      }
    }
    assertThat(seen).isEqualTo(expected);
    assertThat(conflicts).isEmpty();
    // With 300 keys, each consumer had some.
    assertThat(new java.util.HashSet<>(consumerOfKey.values())).hasSize(consumers);
  }

  /**
   * A consumer much slower than the other (an aggregate spilling) bounds what waits for it: the
   * other stops producing while its partition holds {@link HashExchange#BACKLOG} batches, and every
   * row still arrives. The slow consumer reads all its input before it hands any on, as an
   * aggregate does: one that hands each batch straight on may wait for the gather's consuming
   * thread, and is then not waited for ({@link #aConsumerWaitingToHandOverIsNotWaitedFor}).
   */
  @Test
  void aSlowConsumerBoundsWhatWaitsForIt() {
    int producers = 2;
    List<List<List<Object[]>>> rows = new ArrayList<>();
    long expected = 0;
    for (int p = 0; p < producers; p++) {
      List<List<Object[]>> batches = new ArrayList<>();
      for (int b = 0; b < 60; b++) {
        List<Object[]> batch = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
          batch.add(new Object[] {r, "k", (long) r});
          expected++;
        }
        batches.add(batch);
      }
      rows.add(batches);
    }
    BatchPlan producer = (context, allocator) -> source(rows.get(ScanPart.of(context).index()), allocator, -1);
    List<HashExchange> made = new ArrayList<>();
    BatchPlan exchange = HashExchange.partition(producer, producers, new int[] {0}, SCHEMA, made::add);
    BatchPlan consumer = (context, allocator) -> {
      int index = ScanPart.of(context).index();
      BatchOperator input = exchange.open(context, allocator);
      return new BatchOperator() {
        private java.util.ArrayDeque<VectorSchemaRoot> read;

        @Override
        public VectorSchemaRoot next() {
          if (index != 1) {
            return input.next();
          }
          if (read == null) {
            read = new java.util.ArrayDeque<>();
            for (VectorSchemaRoot batch = input.next(); batch != null; batch = input.next()) {
              read.add(batch);
              try {
                Thread.sleep(3);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
          return read.poll();
        }

        @Override
        public void close() {
          if (read != null) {
            read.forEach(VectorSchemaRoot::close);
          }
          input.close();
        }
      };
    };
    long seen = 0;
    try (GatherBatches gather = new GatherBatches(consumer, 2, context(), root)) {
      while (true) {
        try (VectorSchemaRoot batch = gather.next()) {
          if (batch == null) {
            break;
          }
          seen += batch.getRowCount();
        }
      }
    }
    assertThat(seen).isEqualTo(expected);
    assertThat(made).hasSize(1);
    assertThat(made.get(0).mostQueued()).isBetween(1, HashExchange.BACKLOG + producers);
  }

  /**
   * The gather's consuming thread reads partition 0 inline; a consumer on a pool thread that hands
   * its rows straight on fills the gather's queue and then waits for that thread. With every row
   * in the pool consumer's partition, the consuming thread produces without end for it: were it to
   * wait for that partition's backlog, each would wait for the other for good.
   */
  @Test
  @Timeout(60)
  void aConsumerWaitingToHandOverIsNotWaitedFor() {
    Set<Integer> readers = new HashSet<>();
    for (int key = 0; key < 4; key++) {
      int k = key;
      List<List<List<Object[]>>> rows = new ArrayList<>();
      for (int p = 0; p < 2; p++) {
        List<List<Object[]>> batches = new ArrayList<>();
        for (int b = 0; b < 60; b++) {
          batches.add(List.<Object[]>of(new Object[] {k, "k", (long) b}));
        }
        rows.add(batches);
      }
      BatchPlan producer = (context, allocator) -> source(rows.get(ScanPart.of(context).index()), allocator, -1);
      BatchPlan exchange = HashExchange.partition(producer, 2, new int[] {0}, SCHEMA);
      Set<Integer> reader = ConcurrentHashMap.newKeySet();
      BatchPlan consumer = (context, allocator) -> {
        int index = ScanPart.of(context).index();
        BatchOperator input = exchange.open(context, allocator);
        return new BatchOperator() {
          @Override
          public VectorSchemaRoot next() {
            VectorSchemaRoot batch = input.next();
            if (batch != null) {
              reader.add(index);
            }
            return batch;
          }

          @Override
          public void close() {
            input.close();
          }
        };
      };
      long seen = 0;
      try (GatherBatches gather = new GatherBatches(consumer, 2, context(), root)) {
        for (VectorSchemaRoot batch = gather.next(); batch != null; batch = gather.next()) {
          seen += batch.getRowCount();
          batch.close();
        }
      }
      assertThat(seen).isEqualTo(120);
      assertThat(reader).hasSize(1);
      readers.addAll(reader);
    }
    // Some key went to the pool thread's consumer: the case above was met.
    assertThat(readers).contains(1);
  }

  @Test
  void aProducersFailureIsTheGathersAndLeavesNothingBehind() {
    List<List<Object[]>> batches = new ArrayList<>();
    for (int b = 0; b < 6; b++) {
      List<Object[]> batch = new ArrayList<>();
      for (int r = 0; r < 100; r++) {
        batch.add(new Object[] {r, "x", (long) r});
      }
      batches.add(batch);
    }
    BatchPlan producer = (context, allocator) -> source(batches, allocator, ScanPart.of(context).index() == 1 ? 3 : -1);
    BatchPlan exchange = HashExchange.partition(producer, 2, new int[] {0}, SCHEMA);
    Throwable failure;
    try (GatherBatches gather = new GatherBatches(exchange, 2, context(), root)) {
      failure = catchThrowable(() -> {
        while (true) {
          try (VectorSchemaRoot batch = gather.next()) {
            if (batch == null) {
              break;
            }
          }
        }
      });
    }
    assertThat(failure).isInstanceOf(SqeException.class).hasMessage("producer failed at batch 3");
    assertThat(((SqeException) failure).code()).isEqualTo(ErrorCode.INTERNAL);
  }

  /** The batches of {@code rows}, made as they are asked for; fails when asked for batch {@code failAt}. */
  private static BatchOperator source(List<List<Object[]>> rows, BufferAllocator allocator, int failAt) {
    return new BatchOperator() {
      private int next;

      @Override
      public VectorSchemaRoot next() {
        if (next == failAt) {
          throw new SqeException(ErrorCode.INTERNAL, "producer failed at batch " + next);
        }
        if (next == rows.size()) {
          return null;
        }
        List<Object[]> batch = rows.get(next++);
        VectorSchemaRoot out = VectorSchemaRoot.create(SCHEMA, allocator);
        out.allocateNew();
        for (int r = 0; r < batch.size(); r++) {
          Object[] row = batch.get(r);
          if (row[0] == null) {
            ((IntVector) out.getVector(0)).setNull(r);
          } else {
            ((IntVector) out.getVector(0)).setSafe(r, (Integer) row[0]);
          }
          if (row[1] == null) {
            ((VarCharVector) out.getVector(1)).setNull(r);
          } else {
            ((VarCharVector) out.getVector(1)).setSafe(r, ((String) row[1]).getBytes(java.nio.charset.StandardCharsets.UTF_8));
          }
          ((BigIntVector) out.getVector(2)).setSafe(r, (Long) row[2]);
        }
        out.setRowCount(batch.size());
        return out;
      }

      @Override
      public void close() {}
    };
  }

  private static QueryContext context() {
    QueryRun run = QueryRun.untracked("exchange-test");
    return new QueryContext(run.queryId(), CalciteSchema.createRootSchema(false).plus(), new JavaTypeFactoryImpl(), Map.of(), run);
  }
}
