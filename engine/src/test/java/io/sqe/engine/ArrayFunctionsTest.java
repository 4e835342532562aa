package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The array functions dbt's listagg and array macros write, as Trino and PostgreSQL define them:
 * slice, array_join / array_to_string, array_concat, array_append, over ARRAY[...] and array_agg.
 */
class ArrayFunctionsTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  /** Every row of the result, a list column as a java.util.List of its elements, text as String. */
  private List<List<Object>> rows(String sql) {
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "t")) {
      while (exec.next()) {
        for (int r = 0; r < exec.root().getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : exec.root().getFieldVectors()) {
            row.add(value(v, r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static Object value(FieldVector v, int r) {
    if (v.isNull(r)) {
      return null;
    }
    if (v instanceof ListVector list) {
      List<Object> elements = new ArrayList<>();
      for (Object e : list.getObject(r)) {
        elements.add(e == null || e instanceof Number ? e : e.toString());
      }
      return elements;
    }
    Object value = v.getObject(r);
    return value instanceof Number ? value : value.toString();
  }

  private List<Object> row(String sql) {
    List<List<Object>> rows = rows(sql);
    assertThat(rows).as(sql).hasSize(1);
    return rows.get(0);
  }

  /** Trino's slice, written out from its documentation. */
  private static List<Integer> slice(List<Integer> array, int start, int length) {
    int from = start > 0 ? start - 1 : array.size() + start;
    if (from < 0 || from >= array.size()) {
      return List.of();
    }
    return array.subList(from, Math.min(array.size(), from + length));
  }

  @Test
  void sliceTakesPositionsFromOneAndFromTheEnd() {
    assertThat(row("select slice(array[1,2,3,4], 2, 2), slice(array[1,2,3,4], -2, 5), slice(array[1,2,3], 3, 9),"
            + " slice(array[1,2,3], 4, 1), slice(array[1,2,3], -4, 2), slice(array[1,2,3], 1, 0)"))
        .containsExactly(List.of(2, 3), List.of(3, 4), List.of(3), List.of(), List.of(), List.of());
    assertThat(row("select slice(cast(null as array(integer)), 1, 1), slice(array[1], cast(null as integer), 1)"))
        .containsExactly(null, null);
    assertThat(row("select slice(array['a', null, 'c'], cast(2 as bigint), cast(2 as bigint))"))
        .containsExactly(Arrays.asList(null, "c"));
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 30; i++) {
      List<Integer> array = new ArrayList<>();
      for (int j = random.nextInt(6); j >= 0; j--) {
        array.add(random.nextInt(100));
      }
      int start = random.nextInt(17) - 8;
      int length = random.nextInt(8);
      if (start == 0) {
        continue;
      }
      String literal = array.stream().map(String::valueOf).collect(Collectors.joining(", ", "array[", "]"));
      String sql = String.format("select slice(%s, %d, %d)", literal, start, length);
      assertThat(row(sql).get(0)).as("seed %d: %s", seed, sql).isEqualTo(slice(array, start, length));
    }
  }

  @Test
  void sliceRefusesPositionZeroAndNegativeLengths() {
    assertThatThrownBy(() -> row("select slice(array[1], 0, 1)")).hasMessageContaining("start at 1");
    assertThatThrownBy(() -> row("select slice(array[1], 1, -1)")).hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> row("select slice(1, 1, 1)")).hasMessageContaining("SLICE(<NUMERIC>");
  }

  @Test
  void arrayJoinSkipsNullsUnlessReplaced() {
    assertThat(row("select array_join(array['a', null, 'c'], ', '), array_join(array['a', null, 'c'], '-', '?'),"
            + " array_to_string(array['x', 'y'], ''), array_to_string(array['a', null], ',', 'NULL'), array_join(slice(array['a'], 1, 0), ',')"))
        .containsExactly("a, c", "a-?-c", "xy", "a,NULL", "");
  }

  @Test
  void arrayConcatAndAppendKeepTheOrder() {
    assertThat(row("select array_concat(array[1,2], array[3]), array[1] || array[2,3], array_append(array[1,2], 3),"
            + " array_append(slice(array[cast(null as integer)], 1, 0), 4), array_concat(slice(array[1], 1, 0), array[2])"))
        .containsExactly(List.of(1, 2, 3), List.of(1, 2, 3), List.of(1, 2, 3), List.of(4), List.of(2));
    assertThat(row("select array_concat(array[1], cast(null as array(integer)))")).containsExactly((Object) null);
  }

  /** dbt-sqe's listagg with a limit is this query; the reference is a Java grouping of the same rows. */
  @Test
  void orderedArrayAggJoinedAndSlicedIsListaggWithALimit() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<String> values = new ArrayList<>();
    Map<Integer, List<int[]>> groups = new TreeMap<>();
    for (int i = 0; i < 40; i++) {
      int group = random.nextInt(5);
      int order = random.nextInt(1000) * 40 + i;
      int text = random.nextInt(50);
      values.add(String.format("(%d, 'v%d', %d)", group, text, order));
      groups.computeIfAbsent(group, g -> new ArrayList<>()).add(new int[] {text, order});
    }
    String sql = "select g, array_join(slice(array_agg(s order by o desc), 1, 3), '_|_'), array_join(array_agg(s order by o), ',')"
        + " from (values " + String.join(", ", values) + ") t(g, s, o) group by g order by g";
    List<List<Object>> expected = new ArrayList<>();
    groups.forEach((group, rows) -> {
      List<String> ascending = rows.stream().sorted(Comparator.comparingInt(r -> r[1])).map(r -> "v" + r[0]).toList();
      List<String> descending = new ArrayList<>(ascending);
      Collections.reverse(descending);
      expected.add(List.of(group, String.join("_|_", descending.subList(0, Math.min(3, descending.size()))), String.join(",", ascending)));
    });
    assertThat(rows(sql)).as("seed %d: %s", seed, sql).isEqualTo(expected);
  }
}
