package io.sqe.engine.exec.spill;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hash partitions on a real spill directory: every row read back once, all rows of a key in one
 * partition in the order added (NULL a key of its own, -0.0 with 0.0), a partition split again at
 * the next level, and no file nor buffer left after close (the root allocator fails on a leak).
 */
class HashPartitionsTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Field.nullable("k", new ArrowType.Int(32, true)),
      Field.nullable("s", ArrowType.Utf8.INSTANCE),
      Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("seq", new ArrowType.Int(64, true))));

  @TempDir Path dir;

  @Test
  void rowsOfAKeyLandInOnePartitionInTheirOrderAndTheNextLevelSplitsThemAgain() throws Exception {
    long seed = System.nanoTime();
    System.out.println("seed " + seed);
    Random random = new Random(seed);
    QueryStats stats = new QueryStats();
    try (BufferAllocator allocator = new RootAllocator()) {
      QuerySpill spill = SpillSpace.open(new SpillConfig(dir, 1L << 30)).forQuery("q1", stats);
      long seq = 0;
      Map<String, Integer> partitionOfKey = new HashMap<>();
      Map<String, Long> lastSeqOfKey = new HashMap<>();
      Set<Long> seen = new HashSet<>();
      List<Long> firstPartition = new ArrayList<>();
      try (HashPartitions partitions = new HashPartitions(spill, SCHEMA, new int[] {0, 1, 2}, 4, 0, 100, allocator)) {
        for (int b = 0; b < 5; b++) {
          try (VectorSchemaRoot batch = batch(allocator, random, seq, 1000)) {
            if (b % 2 == 0) {
              partitions.add(batch);
              seq += 1000;
            } else {
              // Every third row only, as an operator adds the rows its table did not take.
              int[] selected = new int[334];
              int n = 0;
              for (int r = 0; r < 1000; r += 3) {
                selected[n++] = r;
              }
              partitions.add(batch, selected, n);
              seq += 1000;
            }
          }
        }
        partitions.finish();
        long expected = 3 * 1000 + 2 * 334;
        long total = 0;
        for (int p = 0; p < partitions.count(); p++) {
          total += partitions.rows(p);
          assertThat(partitions.rows(p)).as("partition %s", p).isGreaterThan(0);
          try (RunReader reader = partitions.open(p, allocator)) {
            while (reader.loadNext()) {
              VectorSchemaRoot batch = reader.batch();
              assertThat(batch.getRowCount()).isLessThanOrEqualTo(100);
              for (int r = 0; r < batch.getRowCount(); r++) {
                String key = key(batch, r);
                long rowSeq = ((BigIntVector) batch.getVector(3)).get(r);
                assertThat(seen.add(rowSeq)).as("row %s read once", rowSeq).isTrue();
                Integer before = partitionOfKey.put(key, p);
                assertThat(before == null || before == p).as("all rows of %s in one partition", key).isTrue();
                Long last = lastSeqOfKey.put(key, rowSeq);
                assertThat(last == null || last < rowSeq).as("rows of %s in the order added", key).isTrue();
                if (p == 0) {
                  firstPartition.add(rowSeq);
                }
              }
            }
          }
        }
        assertThat(total).isEqualTo(expected);
        assertThat(seen).hasSize((int) expected);
        assertThat(stats.spilledBytes()).isPositive();
        assertThat(partitionOfKey.get("null|null|0.0")).as("-0.0 with 0.0").isNotNull();

        // Partition 0 again, split at level 1: its rows spread over more than one partition.
        try (HashPartitions again = new HashPartitions(spill, SCHEMA, new int[] {0, 1, 2}, 4, 1, 100, allocator);
            RunReader reader = partitions.open(0, allocator)) {
          while (reader.loadNext()) {
            again.add(reader.batch());
          }
          again.finish();
          int used = 0;
          long rows = 0;
          for (int p = 0; p < again.count(); p++) {
            used += again.rows(p) > 0 ? 1 : 0;
            rows += again.rows(p);
          }
          assertThat(rows).isEqualTo(firstPartition.size());
          assertThat(used).isGreaterThan(1);
        }
        partitions.delete(0);
      }
      try (Stream<Path> files = Files.list(spill.directory())) {
        assertThat(files).as("close removes every partition's file").isEmpty();
      }
      spill.close();
    }
  }

  private static String key(VectorSchemaRoot batch, int r) {
    IntVector k = (IntVector) batch.getVector(0);
    VarCharVector s = (VarCharVector) batch.getVector(1);
    Float8Vector d = (Float8Vector) batch.getVector(2);
    return (k.isNull(r) ? "null" : String.valueOf(k.get(r)))
        + "|" + (s.isNull(r) ? "null" : new String(s.get(r)))
        + "|" + (d.isNull(r) ? "null" : String.valueOf(d.get(r) + 0.0));
  }

  /** Keys from a small domain (so each repeats), with NULLs, and the double key as -0.0 or 0.0. */
  private static VectorSchemaRoot batch(BufferAllocator allocator, Random random, long firstSeq, int rows) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator);
    batch.allocateNew();
    IntVector k = (IntVector) batch.getVector(0);
    VarCharVector s = (VarCharVector) batch.getVector(1);
    Float8Vector d = (Float8Vector) batch.getVector(2);
    BigIntVector seq = (BigIntVector) batch.getVector(3);
    for (int r = 0; r < rows; r++) {
      int v = random.nextInt(50);
      if (v == 0) {
        k.setNull(r);
        s.setNull(r);
        d.setSafe(r, random.nextBoolean() ? -0.0 : 0.0);
      } else {
        k.setSafe(r, v);
        s.setSafe(r, ("key-" + v % 7).getBytes());
        d.setSafe(r, v % 3);
      }
      seq.setSafe(r, firstSeq + r);
    }
    batch.setRowCount(rows);
    return batch;
  }
}
