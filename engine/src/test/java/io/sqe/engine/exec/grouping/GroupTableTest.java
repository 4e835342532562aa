package io.sqe.engine.exec.grouping;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.calcite.runtime.FlatLists;
import org.junit.jupiter.api.Test;

/**
 * The table numbers groups exactly as a {@code HashMap} keyed the same way would find them (equal
 * keys by {@code equals}, arrays by {@code Arrays.deepEquals}), whatever mix of keys arrives: while
 * its keys are primitive, after a key moves it to general keys, and across many resizes.
 */
class GroupTableTest {
  private static final long SEED = System.nanoTime();

  static {
    System.out.println("GroupTableTest seed: " + SEED);
  }

  private final Random random = new Random(SEED);

  @Test
  void integerKeysWithNulls() {
    check(20_000, () -> random.nextInt(20) == 0 ? null : random.nextInt(5_000));
  }

  @Test
  void longKeysOfAnySize() {
    check(20_000, () -> random.nextInt(20) == 0 ? null : random.nextLong() % 3_000 * 1_000_000_007L);
  }

  @Test
  void sortedAndStridedKeys() {
    // Consecutive keys keep to consecutive slots; keys a multiple of the table size apart pile up
    // there until the table mixes its keys.
    List<Object> keys = new ArrayList<>();
    for (long k = 0; k < 20_000; k++) {
      keys.add(k / 4);
    }
    check(keys);
    keys.clear();
    for (int repeat = 0; repeat < 2; repeat++) {
      for (long k = 0; k < 5_000; k++) {
        keys.add(k << 20);
      }
    }
    check(keys);
  }

  @Test
  void anIntegerColumnThatTurnsOutToHoldLongsToo() {
    // A key of another class is another key, as in a HashMap: 5 and 5L are two groups.
    check(10_000, () -> random.nextBoolean() ? (Object) random.nextInt(100) : (Object) (long) random.nextInt(100));
  }

  @Test
  void aNullFirstThenIntegers() {
    List<Object> keys = new ArrayList<>();
    keys.add(null);
    for (int i = 0; i < 5_000; i++) {
      keys.add(random.nextInt(10) == 0 ? null : random.nextInt(1_000));
    }
    check(keys);
  }

  @Test
  void pairsOfIntegersAndLongs() {
    check(30_000, () -> FlatLists.of(random.nextInt(3_000), (long) random.nextInt(40)));
  }

  @Test
  void pairsThatStopFittingInALong() {
    // Large values, then a NULL element: the table moves to general keys and keeps its groups.
    check(
        30_000,
        () -> {
          int kind = random.nextInt(100);
          Object b = kind == 0 ? null : kind == 1 ? (Object) ((1L << 40) + random.nextInt(3)) : (Object) (long) random.nextInt(50);
          return FlatLists.of(random.nextInt(500), b);
        });
  }

  @Test
  void pairsThatCollideUnderThirtyOneTimesHashing() {
    // (a, b) and (a + 1, b - 31) share List.hashCode: the families that made HashMap's tree bins.
    List<Object> keys = new ArrayList<>();
    for (int a = 0; a < 200; a++) {
      for (int b = 0; b < 200; b++) {
        keys.add(FlatLists.of("x" + (a % 3), a, b));
        keys.add(FlatLists.of("x" + (a % 3), a + 1, b - 31));
      }
    }
    check(keys);
  }

  @Test
  void arrayRowsAreComparedByContent() {
    check(20_000, () -> new Object[] {random.nextInt(300), (long) random.nextInt(30)});
    check(20_000, () -> new Object[] {"s" + random.nextInt(100), random.nextInt(10) == 0 ? null : random.nextInt(20)});
  }

  @Test
  void stringsAndDecimalsAndWiderLists() {
    check(20_000, () -> random.nextInt(30) == 0 ? null : "k" + random.nextInt(2_000));
    // 1.0 and 1.00 are different keys, as BigDecimal.equals has it.
    check(20_000, () -> BigDecimal.valueOf(random.nextInt(500), random.nextInt(2)));
    check(
        20_000,
        () -> FlatLists.of("n" + random.nextInt(5), random.nextInt(40), null, BigDecimal.valueOf(random.nextInt(9), 2), (long) random.nextInt(3)));
  }

  private void check(int count, java.util.function.Supplier<Object> keys) {
    List<Object> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(keys.get());
    }
    check(list);
  }

  /** Numbers groups with a HashMap (arrays wrapped for deep equality) and compares. */
  private static void check(List<Object> keys) {
    GroupTable table = new GroupTable();
    Map<Object, Integer> expected = new HashMap<>();
    Function<Object, Object> wrap = key -> key instanceof Object[] array ? Arrays.asList(array) : key;
    for (Object key : keys) {
      Integer known = expected.get(wrap.apply(key));
      int group = table.groupOf(key);
      if (known == null) {
        assertThat(group).as("new key %s", render(key)).isEqualTo(~expected.size());
        expected.put(wrap.apply(key), expected.size());
      } else {
        assertThat(group).as("key %s", render(key)).isEqualTo(known);
      }
    }
    assertThat(table.size()).isEqualTo(expected.size());
    for (Map.Entry<Object, Integer> entry : expected.entrySet()) {
      assertThat(wrap.apply(table.key(entry.getValue()))).isEqualTo(entry.getKey());
    }
  }

  private static String render(Object key) {
    return key instanceof Object[] array ? Arrays.deepToString(array) : String.valueOf(key);
  }
}
