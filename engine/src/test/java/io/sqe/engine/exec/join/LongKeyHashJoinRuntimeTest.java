package io.sqe.engine.exec.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.EnumerableDefaults;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.function.Function2;
import org.apache.calcite.linq4j.function.Predicate2;
import org.apache.calcite.runtime.FlatLists;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LongKeyHashJoin} called as generated code calls it returns the rows of Calcite's {@code
 * EnumerableDefaults} given the same arguments, for every join type (anti joins included, which
 * SQL reaches only through Calcite's rules), over seeded random rows with NULL and duplicate keys;
 * and it stops when its query is cancelled, while building and while probing.
 */
class LongKeyHashJoinRuntimeTest {
  /** Row layout: id, then the keys, then a value the other conditions compare. */
  private static final int ID = 0;
  private static final int VALUE = 3;

  private final List<QueryRun> runs = new ArrayList<>();

  @AfterEach
  void closeRuns() {
    runs.forEach(QueryRun::close);
  }

  /** How the keys of a row are made; the last kind needs more than 64 bits for two keys. */
  private enum Keys {
    INTEGER(1, random -> random.nextInt(30) - 5),
    BIGINT(1, random -> (random.nextInt(40) - 20) * 5_000_000_011L),
    TWO_INTEGERS(2, random -> random.nextInt(8)),
    TWO_WIDE_BIGINTS(2, random -> random.nextBoolean() ? Long.MIN_VALUE + random.nextInt(3) : Long.MAX_VALUE - random.nextInt(3));

    final int count;
    final java.util.function.Function<Random, Object> value;

    Keys(int count, java.util.function.Function<Random, Object> value) {
      this.count = count;
      this.value = value;
    }
  }

  @Test
  void everyJoinTypeReturnsCalcitesRows() {
    long seed = System.nanoTime();
    System.out.println("LongKeyHashJoinRuntimeTest seed: " + seed);
    Random random = new Random(seed);
    for (Keys keys : Keys.values()) {
      for (int leftRows : new int[] {0, 1, 300}) {
        for (int rightRows : new int[] {0, 1, 200}) {
          List<Object[]> left = rows(random, keys, leftRows, 0);
          List<Object[]> right = rows(random, keys, rightRows, 1_000_000);
          for (boolean withPredicate : new boolean[] {false, true}) {
            String what = keys + " left " + leftRows + " right " + rightRows + " predicate " + withPredicate + " seed " + seed;
            compareJoins(keys, left, right, withPredicate ? (l, r) -> less(l, r) : null, what);
          }
        }
      }
    }
  }

  @Test
  void aCancelledQueryStopsBuildingAndProbing() {
    QueryContext building = context();
    building.cancel(ErrorCode.CANCELLED, "cancelled by the test");
    Random random = new Random(1);
    List<Object[]> big = rows(random, Keys.INTEGER, 20_000, 0);
    Enumerable<Object> join = hashJoin(building, Keys.INTEGER, big, big, null, false, false);
    assertThatThrownBy(() -> join.enumerator()).isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));

    QueryContext probing = context();
    List<Object[]> small = rows(random, Keys.INTEGER, 10, 0);
    Enumerator<Object> anti = semiJoin(probing, Keys.INTEGER, big, small, null, true).enumerator();
    assertThat(anti.moveNext()).isTrue();
    probing.cancel(ErrorCode.CANCELLED, "cancelled by the test");
    assertThatThrownBy(
            () -> {
              while (anti.moveNext()) {
                // Reads on until the next cancellation check.
              }
            })
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED));
  }

  private void compareJoins(Keys keys, List<Object[]> left, List<Object[]> right, Predicate2<Object, Object> predicate, String what) {
    QueryContext context = context();
    boolean[][] types = {{false, false}, {false, true}, {true, false}, {true, true}};
    for (boolean[] type : types) {
      List<Object> expected =
          EnumerableDefaults.hashJoin(
                  enumerable(left), enumerable(right), calciteKey(keys), calciteKey(keys), PAIR, null, type[0], type[1], predicate)
              .toList();
      List<Object> actual = hashJoin(context, keys, left, right, predicate, type[0], type[1]).toList();
      assertThat(sorted(actual)).as("%s nulls on left %s right %s", what, type[0], type[1]).isEqualTo(sorted(expected));
    }
    for (boolean anti : new boolean[] {false, true}) {
      Enumerable<Object> calcite =
          anti
              ? EnumerableDefaults.antiJoin(enumerable(left), enumerable(right), calciteKey(keys), calciteKey(keys), null, predicate)
              : EnumerableDefaults.semiJoin(enumerable(left), enumerable(right), calciteKey(keys), calciteKey(keys), null, predicate);
      List<Object> actual = semiJoin(context, keys, left, right, predicate, anti).toList();
      assertThat(sorted(ids(actual))).as("%s anti %s", what, anti).isEqualTo(sorted(ids(calcite.toList())));
    }
  }

  private static Enumerable<Object> hashJoin(
      QueryContext context, Keys keys, List<Object[]> left, List<Object[]> right, Predicate2<Object, Object> predicate, boolean nullsOnLeft, boolean nullsOnRight) {
    return LongKeyHashJoin.hashJoin(
        enumerable(left),
        enumerable(right),
        calciteKey(keys),
        calciteKey(keys),
        PAIR,
        null,
        nullsOnLeft,
        nullsOnRight,
        predicate,
        context,
        null,
        keyAccessors(keys),
        keyAccessors(keys));
  }

  private static Enumerable<Object> semiJoin(
      QueryContext context, Keys keys, List<Object[]> left, List<Object[]> right, Predicate2<Object, Object> predicate, boolean anti) {
    return LongKeyHashJoin.semiJoin(
        enumerable(left),
        enumerable(right),
        calciteKey(keys),
        calciteKey(keys),
        null,
        predicate,
        anti,
        context,
        null,
        keyAccessors(keys),
        keyAccessors(keys));
  }

  /** The pair of ids of a joined row, either NULL for a side the join extended with NULLs. */
  private static final Function2<Object, Object, Object> PAIR =
      (l, r) -> Arrays.asList(l == null ? null : ((Object[]) l)[ID], r == null ? null : ((Object[]) r)[ID]);

  /** Calcite's key selector: the key itself, or a list of the keys (null when one is NULL), as generated code makes them. */
  private static Function1<Object, Object> calciteKey(Keys keys) {
    if (keys.count == 1) {
      return row -> ((Object[]) row)[1];
    }
    return row -> {
      Object[] r = (Object[]) row;
      return r[1] == null || r[2] == null ? null : FlatLists.of(r[1], r[2]);
    };
  }

  @SuppressWarnings("unchecked")
  private static Function1<Object, Object>[] keyAccessors(Keys keys) {
    Function1<Object, Object>[] accessors = new Function1[keys.count];
    for (int k = 0; k < keys.count; k++) {
      int field = 1 + k;
      accessors[k] = row -> ((Object[]) row)[field];
    }
    return accessors;
  }

  private static boolean less(Object left, Object right) {
    Object l = ((Object[]) left)[VALUE];
    Object r = ((Object[]) right)[VALUE];
    return l != null && r != null && (Integer) l < (Integer) r;
  }

  private static List<Object[]> rows(Random random, Keys keys, int count, long firstId) {
    List<Object[]> rows = new ArrayList<>();
    IntFunction<Object> nullable = k -> random.nextInt(8) == 0 ? null : keys.value.apply(random);
    for (int i = 0; i < count; i++) {
      Object[] row = new Object[4];
      row[ID] = firstId + i;
      row[1] = nullable.apply(0);
      row[2] = keys.count > 1 ? nullable.apply(1) : null;
      row[VALUE] = random.nextInt(10) == 0 ? null : random.nextInt(100);
      rows.add(row);
    }
    return rows;
  }

  private static Enumerable<Object> enumerable(List<Object[]> rows) {
    return Linq4j.asEnumerable(new ArrayList<Object>(rows));
  }

  private static List<Object> ids(List<Object> rows) {
    List<Object> ids = new ArrayList<>();
    for (Object row : rows) {
      ids.add(((Object[]) row)[ID]);
    }
    return ids;
  }

  private static List<Object> sorted(List<Object> values) {
    List<Object> copy = new ArrayList<>(values);
    copy.sort(Comparator.comparing(String::valueOf));
    return copy;
  }

  private QueryContext context() {
    QueryRun run = QueryRun.untracked("long-key-join-" + runs.size());
    runs.add(run);
    return new QueryContext(run.queryId(), CalciteSchema.createRootSchema(false).plus(), new SqeJavaTypeFactory(), Map.of(), run);
  }
}
