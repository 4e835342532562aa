package io.sqe.engine.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link LongKeySet} answers the same filled key by key and built from collected keys ({@link LongKeySet#frozenOf}), bitmap or not. */
class LongKeySetTest {
  @Test
  void frozenSetsAnswerAsTheHashSetDid() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    // Dense keys (a bitmap), sparse keys (stays hashed), negative and extreme values.
    long[][] shapes = {{-500, 20_000}, {0, 1L << 40}, {Long.MIN_VALUE + 1, 100}, {Long.MAX_VALUE - 10_000, 10_000}};
    for (long[] shape : shapes) {
      LongKeySet set = new LongKeySet(16);
      Set<Long> expected = new HashSet<>();
      long[] collected = new long[10_001];
      for (int i = 0; i < 5_000; i++) {
        long key = shape[0] + (long) (random.nextDouble() * shape[1]);
        set.add(key);
        expected.add(key);
        // Every key twice, as a build side's repeated keys come.
        collected[2 * i] = key;
        collected[2 * i + 1] = key;
      }
      set.add(Long.MIN_VALUE);
      expected.add(Long.MIN_VALUE);
      collected[10_000] = Long.MIN_VALUE;
      long low = java.util.Arrays.stream(collected).min().getAsLong();
      long high = java.util.Arrays.stream(collected).max().getAsLong();
      LongKeySet built = LongKeySet.frozenOf(collected, collected.length, low, high, 1_000_000);
      assertThat(LongKeySet.frozenOf(collected, collected.length, low, high, expected.size() - 1)).isNull();
      assertThat(built.size()).isEqualTo(expected.size());
      assertThat(built.toArray()).containsExactlyInAnyOrder(expected.stream().mapToLong(Long::longValue).toArray());
      long[] probes = new long[20_000];
      for (int i = 0; i < probes.length; i++) {
        probes[i] = i % 4 == 0 ? shape[0] + (long) (random.nextDouble() * shape[1]) : shape[0] - 5 + random.nextInt(40_000);
      }
      boolean[] before = new boolean[probes.length];
      for (int i = 0; i < probes.length; i++) {
        before[i] = set.contains(probes[i]);
        assertThat(before[i]).as("key %d (seed %d)", probes[i], seed).isEqualTo(expected.contains(probes[i]));
      }
      for (int i = 0; i < probes.length; i++) {
        assertThat(built.contains(probes[i])).as("key %d collected (seed %d)", probes[i], seed).isEqualTo(before[i]);
      }
      assertThat(set.contains(Long.MIN_VALUE)).isTrue();
      assertThat(built.contains(Long.MIN_VALUE)).isTrue();
      assertThat(set.size()).isEqualTo(expected.size());
    }
  }
}
