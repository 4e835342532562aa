package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * GROUPING SETS, ROLLUP and CUBE (with GROUPING() and GROUP_ID()) and DISTINCT aggregates beside
 * other calls run on SQE's columnar operators and return the rows of Calcite's row runtime, over
 * keys of several types with nulls and over no rows. The lake's allocator, closed after each test,
 * fails on any buffer a query left behind.
 */
class ColumnarGroupingSetsTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private RowRuntimeComparison runtimes;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    runtimes = new RowRuntimeComparison(engine, session);
    RowRuntimeComparison.typedTable(lake, "typed", 0, 9000);
  }

  @Test
  void rollupCubeAndGroupingSetsOverKeysOfSeveralTypes() {
    for (String sql : List.of(
        "select b, color, count(*), sum(i) from typed group by rollup(b, color)",
        "select b, ship_day, code, grouping(b), grouping(ship_day, code), grouping(b, ship_day, code), count(*), sum(amount),"
            + " min(label), max(stamp) from typed group by cube(b, ship_day, code)",
        "select color, b, amount, count(l), sum(d), max(bytes) from typed group by grouping sets ((color, b), (amount), ())",
        "select stamp_tz, rate, count(*) filter (where i > 0), sum(big) from typed group by rollup(stamp_tz, rate)",
        "select b, count(b), count(*), min(b) from typed group by rollup(b)",
        "select color, b, sum(l) from typed group by rollup(color, b) having grouping(b) = 1 or sum(l) > 0",
        "select label, f, count(*) from typed where id < 500 group by cube(label, f)")) {
      runtimes.assertColumnar(sql, "SqeGroupingSets");
      runtimes.matchesRowRuntime(sql);
    }
    // b and color are NULL in the same rows: 10 pairs of values and one of NULLs, then 3 b, 6 colors, the total.
    assertThat(runtimes.matchesRowRuntime("select b, color, count(*) from typed group by cube(b, color)").rows())
        .hasSize(2 * 5 + 1 + 3 + 6 + 1);
  }

  @Test
  void groupIdAndRepeatedSets() {
    String sql = "select b, color, count(*), group_id() from typed group by grouping sets ((b), (b), (color))";
    assertThat(TestQueries.plan(engine, session, sql)).doesNotContain("Enumerable");
    runtimes.matchesRowRuntime(sql);
  }

  @Test
  void theEmptySetHasItsRowOverNoInput() {
    String rollup = "select b, color, count(*), count(i), sum(i), sum(amount), grouping(b, color) from typed where id < 0 group by rollup(b, color)";
    runtimes.assertColumnar(rollup, "SqeGroupingSets");
    assertThat(runtimes.matchesRowRuntime(rollup).rows()).containsExactly(Arrays.asList(null, null, 0L, 0L, null, null, 3L));
    String sets = "select b, color, count(*) from typed where id < 0 group by grouping sets ((b), (color))";
    runtimes.assertColumnar(sets, "SqeGroupingSets");
    assertThat(runtimes.matchesRowRuntime(sets).rows()).isEmpty();
  }

  @Test
  void distinctAggregatesBesideOthers() {
    for (String sql : List.of(
        "select ship_day, count(distinct i), count(*) from typed group by ship_day",
        "select count(distinct i), sum(distinct l), count(*), sum(amount) from typed",
        "select b, count(distinct i), count(distinct color) from typed group by b",
        "select color, count(distinct b), sum(distinct rate), max(d), count(*) from typed group by color",
        "select count(distinct label), min(code), count(*) from typed where id < 0",
        "select b, count(distinct ship_day) filter (where i > 0), count(*) from typed group by b")) {
      runtimes.assertColumnar(sql, "SqeGroupingSets");
      runtimes.matchesRowRuntime(sql);
    }
  }

  @Test
  void parallelPartsComputeEverySetAndAnAggregateCombinesThem() {
    Session parallel = TestOptions.parallel(session, 3, 0);
    RowRuntimeComparison inParts = new RowRuntimeComparison(engine, parallel);
    for (String sql : List.of(
        "select b, color, count(*), sum(l), grouping(b, color) from typed group by cube(b, color)",
        "select color, b, count(*), sum(amount) from typed group by grouping sets ((color), (b))",
        "select b, color, count(*), count(i), sum(i), min(label) from typed where id < 0 group by rollup(b, color)",
        "select color, count(distinct i), count(*) from typed group by color")) {
      inParts.assertColumnar(sql, "SqeGroupingSets");
      assertThat(TestQueries.plan(engine, parallel, sql)).as(sql).contains("SqeGather");
      List<List<Object>> serial = TestQueries.sorted(runtimes.matchesRowRuntime(sql).rows());
      assertThat(TestQueries.sorted(inParts.matchesRowRuntime(sql).rows())).as(sql).isEqualTo(serial);
    }
  }
}
