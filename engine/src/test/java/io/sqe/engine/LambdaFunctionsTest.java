package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trino's lambda functions over random arrays (NULL elements included), one row each, checked
 * against the same computation in Java; lambdas over maps; and their errors.
 */
class LambdaFunctionsTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  @Test
  void lambdasOverGroupedArraysMatchJava() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    Map<Integer, List<Integer>> groups = new TreeMap<>();
    for (int i = 0; i < 200; i++) {
      Integer v = random.nextInt(10) == 0 ? null : random.nextInt(100) - 20;
      groups.computeIfAbsent(random.nextInt(8), k -> new ArrayList<>()).add(v);
    }
    List<String> rows = new ArrayList<>();
    groups.forEach((g, a) -> rows.add("(" + g + ", ARRAY[" + String.join(", ",
        a.stream().map(v -> v == null ? "CAST(NULL AS INTEGER)" : v.toString()).toList()) + "])"));
    String sql = "SELECT g, transform(a, x -> x * 3 + 1), filter(a, x -> x % 2 = 0),"
        + " reduce(a, 0, (s, x) -> s + coalesce(x, 0), s -> s * 2), any_match(a, x -> x > 70),"
        + " all_match(a, x -> x > -30), none_match(a, x -> x IS NULL), zip_with(a, a, (p, q) -> p - q)"
        + " FROM (VALUES " + String.join(", ", rows) + ") t(g, a)"
        + " ORDER BY g";
    List<List<Object>> result = rows(sql);
    assertThat(result).as("seed %d", seed).hasSize(groups.size());
    for (List<Object> row : result) {
      List<Integer> a = groups.get(((Number) row.get(0)).intValue());
      String context = "seed " + seed + ", group " + row.get(0) + ", array " + a;
      assertThat(row.get(1)).as(context).isEqualTo(a.stream().map(x -> x == null ? null : (Object) (x * 3 + 1)).toList());
      assertThat(row.get(2)).as(context).isEqualTo(a.stream().filter(x -> x != null && x % 2 == 0).map(x -> (Object) x).toList());
      assertThat(((Number) row.get(3)).longValue()).as(context).isEqualTo(2L * a.stream().mapToInt(x -> x == null ? 0 : x).sum());
      assertThat(row.get(4)).as(context).isEqualTo(threeValued(a, x -> x > 70, true));
      assertThat(row.get(5)).as(context).isEqualTo(threeValued(a, x -> x > -30, false));
      assertThat(row.get(6)).as(context).isEqualTo(a.stream().noneMatch(Objects::isNull));
      assertThat(row.get(7)).as(context).isEqualTo(a.stream().map(x -> x == null ? null : (Object) 0).toList());
    }
  }

  /** Trino's any_match (anyValue = true) or all_match (false): NULL when undecided by NULLs. */
  private static Boolean threeValued(List<Integer> a, java.util.function.IntPredicate p, boolean anyMatch) {
    boolean sawNull = false;
    for (Integer x : a) {
      if (x == null) {
        sawNull = true;
      } else if (p.test(x) == anyMatch) {
        return anyMatch;
      }
    }
    return sawNull ? null : !anyMatch;
  }

  @Test
  void mapLambdasAndTypes() {
    assertThat(row("SELECT map_filter(map(ARRAY['a', 'b', 'c'], ARRAY[1, NULL, 3]), (k, v) -> v > 1 OR k = 'b'),"
        + " transform_values(map(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> k || CAST(v AS VARCHAR)),"
        + " transform_keys(map(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> upper(k)),"
        + " transform(ARRAY['x', NULL], s -> s IS NULL)"))
        .containsExactly(Map.of("b", "null", "c", "3"), Map.of("a", "a1", "b", "b2"), Map.of("A", "1", "B", "2"), List.of(false, true));
  }

  @Test
  void lambdaErrorsAreInvalidArguments() {
    for (String sql : List.of(
        "SELECT transform(ARRAY[1, 2], (x, y) -> x)",
        "SELECT transform(ARRAY[1, 0], x -> 10 / x)",
        "SELECT transform_keys(map(ARRAY['a', 'b'], ARRAY[1, 2]), (k, v) -> 'same')",
        "SELECT filter(5, x -> x > 1)")) {
      assertThatThrownBy(() -> rows(sql)).as(sql)
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }
  }

  @Test
  void arithmeticInLambdasFailsOnOverflow() {
    // The checked arithmetic the planner puts in compiled plans reaches lambda bodies too.
    for (String sql : List.of(
        "SELECT transform(ARRAY[2147483647], x -> x + 1)",
        "SELECT reduce(ARRAY[9223372036854775807, 1], CAST(0 AS BIGINT), (s, x) -> s + x, s -> s)")) {
      assertThatThrownBy(() -> rows(sql)).as(sql)
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
          .hasMessageContaining("overflow");
    }
  }

  @Test
  void tryGivesNullWhereTheValueFails() {
    assertThat(row("SELECT try(1 / 0), try(CAST('x' AS INTEGER)), try(5), try(2147483647 + 1), try(json_parse('{'))"))
        .containsExactly(null, null, 5, null, null);
    assertThat(rows("SELECT x, try(10 / x), try(x + 2147483646), try(element_at(ARRAY[7], x)) FROM (VALUES 0, 1, 2) t(x) ORDER BY x"))
        .containsExactly(
            java.util.Arrays.asList(0, null, 2147483646, null),
            java.util.Arrays.asList(1, 10, 2147483647, 7),
            java.util.Arrays.asList(2, 5, null, null));
    assertThat(row("SELECT coalesce(try(CAST('12' AS INTEGER)), -1) + 1, try(transform(ARRAY[1, 0], x -> 10 / x))"))
        .containsExactly(13, null);
    // Through a merged projection, in a filter, and beside the same expression outside try.
    assertThat(rows("SELECT a, try(a / b), try(a / b) + 1 FROM (SELECT x + 1 AS a, x - 1 AS b FROM (VALUES 1, 2, 3) t(x)) u"
            + " WHERE try(6 / b) IS NULL OR a > 3 ORDER BY a"))
        .containsExactly(java.util.Arrays.asList(2, null, null), java.util.Arrays.asList(4, 2, 3));
    assertThatThrownBy(() -> rows("SELECT 10 / x, try(10 / x) FROM (VALUES 0) t(x)")).hasMessageContaining("Division by zero");
  }

  @Test
  void tryKeepsErrorsThatAreNotBadValues() {
    assertThatThrownBy(() -> rows("SELECT try(no_such_column)")).isInstanceOfSatisfying(SqeException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT)).hasMessageContaining("no_such_column");
    assertThatThrownBy(() -> rows("SELECT try(1, 2)")).hasMessageContaining("Invalid number of arguments to function 'TRY'");
    // A cancelled or timed-out query is not a bad value: try does not turn it into NULL.
    Session timed = EmbeddedLake.session("t").withStatementTimeout(java.time.Duration.ofSeconds(1));
    assertThatThrownBy(() -> {
      try (QueryExecution exec = engine.execute(timed, engine.prepare(timed,
          "SELECT count(try(regexp_like(s, '(.*a){12}b'))) FROM (VALUES '" + "a".repeat(40) + "') t(s)"), List.of(), "t")) {
        while (exec.next()) {
          // drain
        }
      }
    }).isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
  }

  private List<Object> row(String sql) {
    List<List<Object>> rows = rows(sql);
    assertThat(rows).as(sql).hasSize(1);
    return rows.get(0);
  }

  private List<List<Object>> rows(String sql) {
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "t")) {
      while (exec.next()) {
        for (int r = 0; r < exec.root().getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : exec.root().getFieldVectors()) {
            row.add(plain(v.getObject(r)));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Arrow's values as plain Java: lists of elements, maps of text, numbers and booleans as they are. */
  private static Object plain(Object value) {
    if (value instanceof List<?> list) {
      if (!list.isEmpty() && list.get(0) instanceof Map<?, ?> entry && entry.containsKey("key")) {
        Map<String, String> map = new TreeMap<>();
        for (Object e : list) {
          Map<?, ?> kv = (Map<?, ?>) e;
          map.put(String.valueOf(kv.get("key")), String.valueOf(kv.get("value")));
        }
        return map;
      }
      List<Object> out = new ArrayList<>();
      list.forEach(e -> out.add(plain(e)));
      return out;
    }
    return value == null || value instanceof Number || value instanceof Boolean ? value : value.toString();
  }
}
