package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Joins on SQE's columnar operators return the rows Calcite's row runtime returns for them
 * ({@code planner.columnar} off): every join type, keys of every type the scan decodes, NULL keys,
 * duplicate keys on both sides, empty sides, and conditions beyond the keys. The lake's allocator
 * fails the test on any buffer left behind.
 */
class ColumnarJoinTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
    // typed: 9,000 rows in two files, nulls in every column but id on every seventh row.
    table("typed", 0, 9000, 1);
    // dim: every other row of the first 3,000, every tenth of them twice: duplicate keys, and nulls.
    table("dim", 0, 3000, 2);
  }

  @Test
  void hashJoinsOnKeysOfEveryTypeMatchTheRowRuntime() {
    for (String key : List.of("id", "b", "i", "l", "f", "d", "color", "label", "amount", "rate", "big", "ship_day", "stamp", "stamp_tz", "bytes", "code")) {
      String sql = "select t.id, d.id, t." + key + ", d.label from typed t join dim d on t." + key + " = d." + key + " where t.id < 60";
      assertThat(plan(sql)).as(sql).contains("SqeHashJoin").doesNotContain("Enumerable");
      Result result = matchesRowRuntime(sql);
      assertThat(result.rows()).as(sql).isNotEmpty();
    }
  }

  @Test
  void everyJoinTypeMatchesTheRowRuntime() {
    List<String> queries = List.of(
        "select t.id, t.i, d.id, d.color from typed t left join dim d on t.i = d.i where t.id < 500",
        "select t.id, d.id, d.label from (select * from typed where id < 300) t right join dim d on t.label = d.label",
        "select t.id, d.id, t.amount from (select * from typed where id between 100 and 400) t full join dim d on t.amount = d.amount",
        "select t.id, d.id from typed t full join (select * from dim where id > 2500) d on t.l = d.l where t.id < 50 or t.id is null",
        "select t.id, t.color, d.id from typed t join dim d on t.color = d.color and t.i = d.i and t.ship_day = d.ship_day",
        "select t.id, d.id from typed t join dim d on t.id = d.id and t.d < d.d + 0 and t.label <> d.color",
        "select t.id, d.id, d.f from typed t left join dim d on t.id = d.id and d.f > 100 where t.id < 900",
        "select t.id, d.id from typed t right join dim d on t.i = d.i and t.color = 'red' where d.id < 1000",
        "select t.id, d.id from typed t join (select * from dim where id < 0) d on t.id = d.id",
        "select t.id, d.id from typed t left join (select * from dim where id < 0) d on t.id = d.id where t.id < 10",
        "select t.id, d.id from (select * from typed where id < 0) t full join dim d on t.id = d.id");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeHashJoin").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
  }

  @Test
  void inSubQueriesRunAsSemiJoins() {
    List<String> queries = List.of(
        "select t.id, t.i from typed t where t.i in (select d.i from dim d) and t.id < 3000",
        "select t.id, t.label from typed t where t.label in (select d.label from dim d) and t.id < 5000");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeHashJoin").contains("semi").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
  }

  @Test
  void aSmallBuildSidesKeysFilterTheProbeScan() {
    List<String> queries = List.of(
        "select t.id, t.label, d.id from typed t join dim d on t.id = d.id where d.color = 'red'",
        "select t.id, t.i, d.label from typed t join dim d on t.i = d.i and t.color = d.color where d.id < 300 and t.label like 'label-%'",
        "select t.id, d.id from typed t join dim d on t.ship_day = d.ship_day where d.id < 20");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeHashJoin").contains("dynamicFilter").doesNotContain("Enumerable");
      Result columnar = matchesRowRuntime(sql);
      assertThat(columnar.rows()).as(sql).isNotEmpty();
      assertThat(columnar.stats().dynamicFiltersApplied()).as(sql).isPositive();
    }
    // A LEFT join keeps every probe row: no filter.
    assertThat(plan("select t.id, d.id from typed t left join (select * from dim where color = 'red') d on t.id = d.id")).doesNotContain("dynamicFilter");
  }

  @Test
  void joinsWithoutKeysRunAsNestedLoops() {
    List<String> queries = List.of(
        "select t.id, d.id from typed t, dim d where t.id < 20 and d.id < 30",
        "select t.id, t.i, d.id, d.i from typed t join dim d on t.i < d.i where t.id < 60 and d.id < 200",
        "select t.id, d.id, d.color from typed t left join dim d on t.i > d.i + 0 and d.id < 20 where t.id < 30",
        "select t.id, d.id, d.label from typed t left join dim d on t.l <= d.l and d.id between 10 and 30 where t.id < 40",
        "select t.id, d.id from typed t full join dim d on t.d > d.d and t.id < 5 and d.id < 8",
        "select t.id, d.id from (select * from typed where id < 50) t right join dim d on t.i >= d.i and d.color = 'red'",
        "select t.id, d.id from typed t, dim d where t.id < 10 and d.id > 100000");
    for (String sql : queries) {
      assertThat(plan(sql)).as(sql).contains("SqeNestedLoopJoin").doesNotContain("Enumerable");
      matchesRowRuntime(sql);
    }
    assertThat(matchesRowRuntime(queries.get(0)).rows()).hasSize(20 * 18);
    assertThat(matchesRowRuntime(queries.get(6)).rows()).isEmpty();
  }

  @Test
  void joinConditionsOnWideDecimalsMatchTheRowRuntime() {
    // Decorrelated sub-queries (TPC-H Q11, Q17, Q20, Q22) compare DECIMAL(38, n) values: sums,
    // averages and their products, with columns cast to them; mixed scales, NULLs on every seventh row.
    List<String> hashJoins = List.of(
        "select t.id, t.amount from typed t where t.amount < (select 0.2 * avg(d.amount) from dim d where d.color = t.color)",
        "select t.id, t.i from typed t where mod(t.i, 7) > (select 0.5 * sum(d.rate) * 100 from dim d where d.color = t.color and d.l = t.l)",
        "select t.id, d.id from typed t join dim d on t.color = d.color and t.big < d.amount * d.rate - 12345678901234567000 where t.id < 40");
    for (String sql : hashJoins) {
      assertThat(plan(sql)).as(sql).contains("SqeHashJoin").doesNotContain("Enumerable");
      assertThat(matchesRowRuntime(sql).rows()).as(sql).isNotEmpty();
    }
    List<String> nestedLoops = List.of(
        "select t.id, t.amount from typed t where t.amount > (select avg(d.amount) from dim d where d.amount > 0)",
        "select t.color, sum(t.amount * t.i) as v from typed t group by t.color"
            + " having sum(t.amount * t.i) > (select sum(d.amount * d.i) * 0.0001000000 from dim d)",
        "select t.id, d.id from typed t join dim d on t.big < d.big - d.amount where t.id < 50 and d.id < 60");
    for (String sql : nestedLoops) {
      assertThat(plan(sql)).as(sql).contains("SqeNestedLoopJoin").doesNotContain("Enumerable");
      assertThat(matchesRowRuntime(sql).rows()).as(sql).isNotEmpty();
    }
  }

  @Test
  void subQueriesWithLiteralAggregatesMatchTheRowRuntime() {
    // Calcite rewrites these sub-queries with LITERAL_AGG (TPC-H Q16's NOT IN): an aggregate whose
    // call is a constant in each group's row; NULLs on both sides decide NOT IN's unknowns.
    List<String> queries = List.of(
        "select t.id, t.i from typed t where t.i not in (select d.i from dim d where d.id < 2000 and d.i is not null) and t.id < 3000",
        "select t.id, t.color from typed t where t.color not in (select d.color from dim d where d.id in (4, 6, 8)) and t.id < 100",
        "select t.id, t.i in (select d.i from dim d where d.id < 1000) as found from typed t where t.id < 1500",
        "select t.color, count(*) as n from typed t where t.l not in (select d.l from dim d where d.id < 0) group by t.color");
    Session rows = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
    for (String sql : queries) {
      assertThat(TestQueries.plan(engine, rows, sql)).as(sql).contains("LITERAL_AGG");
      assertThat(plan(sql)).as(sql).contains("SqeAggregate").doesNotContain("Enumerable");
      assertThat(matchesRowRuntime(sql).rows()).as(sql).isNotEmpty();
    }
    // A NULL among the sub-query's values makes NOT IN unknown for every row.
    assertThat(matchesRowRuntime("select t.id from typed t where t.i not in (select d.i from dim d where d.id < 2000)").rows()).isEmpty();
  }

  @Test
  void anExecutionClosedEarlyReleasesTheBuildSide() {
    Prepared prepared = engine.prepare(session, "select t.id, d.label from typed t, dim d where t.id < 100");
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "early")) {
      assertThat(exec.next()).isTrue();
    }
  }

  @Test
  void aParallelJoinsSharedBuildSideIsBuiltOnce() {
    Session parallel = TestOptions.parallel(session, 2, 1);
    List<String> queries = List.of(
        "select t.color, count(*) as n, sum(t.l) as s from typed t join dim d on t.id = d.id where d.color <> 'blue' group by t.color",
        "select count(*) as n, sum(t.i) as s from typed t where t.label in (select d.label from dim d where d.id < 1500)",
        "select t.color, count(*) as n from typed t left join dim d on t.i = d.i and d.id > 100 group by t.color");
    for (String sql : queries) {
      String plan = TestQueries.plan(engine, parallel, sql);
      assertThat(plan).as(sql).contains("SqeGather").contains("sharedBuild").doesNotContain("Enumerable");
      Result columnar = matchesRowRuntime(parallel, sql);
      // Two parts probe one key table: built once, not once per part.
      assertThat(columnar.stats().joinTablesBuilt()).as(sql).isEqualTo(1);
    }
  }

  /**
   * A nested-loop join on the probe side of a split aggregate (NOT IN over a nullable column, TPC-H
   * Q16's shape: a left join and a nested-loop join over the sub-query's count; a non-equi inner and
   * left join) shares one build side between the parts, each part pairing its own probe rows.
   */
  @Test
  void aParallelNestedLoopJoinSharesItsBuildSide() {
    Session parallel = TestOptions.parallel(session, 2, 1);
    List<String> queries = List.of(
        "select t.color, count(*) as n, sum(t.l) as s from typed t where t.i not in (select d.i from dim d where d.id between 1 and 9) group by t.color",
        "select t.color, count(distinct t.i) as n from typed t where t.i not in (select d.i from dim d where d.id < 40 and d.i is not null) group by t.color",
        "select t.color, count(*) as n, sum(t.l) as s from typed t join (select min(d) as lo from dim where id > 2000) m on t.d > m.lo group by t.color",
        "select t.color, count(d.id) as n, count(*) as c from typed t left join (select * from dim where id < 30) d on t.i < d.i group by t.color");
    for (String sql : queries) {
      String plan = TestQueries.plan(engine, parallel, sql);
      assertThat(plan).as(sql).contains("SqeGather").containsPattern("SqeNestedLoopJoin\\(.*sharedBuild").doesNotContain("Enumerable");
      assertThat(matchesRowRuntime(parallel, sql).rows()).as(sql).isNotEmpty();
    }
    // A NULL among the sub-query's values: NOT IN holds for no row.
    String nulls = "select t.color, count(*) as n from typed t where t.i not in (select d.i from dim d where d.id < 100) group by t.color";
    assertThat(TestQueries.plan(engine, parallel, nulls)).containsPattern("SqeNestedLoopJoin\\(.*sharedBuild");
    assertThat(TestQueries.run(engine, parallel, nulls).rows()).isEmpty();
    assertThat(TestQueries.run(engine, TestOptions.set(parallel, PlannerOptions.COLUMNAR, false), nulls).rows()).isEmpty();
    String failing = "select t.color, count(*) as n from typed t join (select d from dim where 10 / (i - i) > 0) m on t.d > m.d group by t.color";
    assertThat(TestQueries.plan(engine, parallel, failing)).containsPattern("SqeNestedLoopJoin\\(.*sharedBuild");
    assertThatThrownBy(() -> TestQueries.run(engine, parallel, failing)).isInstanceOf(SqeException.class).hasMessageContaining("zero");
  }

  @Test
  void aSharedBuildSidesKeysFilterEveryPartsScan() {
    Session parallel = TestOptions.parallel(session, 2, 1);
    String sql = "select t.color, count(*) as n from typed t join dim d on t.id = d.id where d.color = 'red' group by t.color";
    assertThat(TestQueries.plan(engine, parallel, sql)).contains("sharedBuild").contains("dynamicFilter").doesNotContain("Enumerable");
    Result columnar = matchesRowRuntime(parallel, sql);
    assertThat(columnar.stats().dynamicFiltersApplied()).isPositive();
  }

  @Test
  void aFailedSharedBuildFailsTheQueryAndReleasesEverything() {
    Session parallel = TestOptions.parallel(session, 2, 1);
    String sql = "select count(*) as n from typed t join (select id from dim where 10 / (i - i) > 0) d on t.id = d.id";
    assertThat(TestQueries.plan(engine, parallel, sql)).contains("sharedBuild").doesNotContain("Enumerable");
    assertThatThrownBy(() -> TestQueries.run(engine, parallel, sql)).isInstanceOf(SqeException.class).hasMessageContaining("zero");
  }

  @Test
  void aParallelJoinClosedEarlyReleasesItsSharedBuildSide() {
    Session parallel = TestOptions.parallel(session, 2, 1);
    String sql = "select t.id, t.color, d.label from typed t join dim d on t.i = d.i group by t.id, t.color, d.label";
    assertThat(TestQueries.plan(engine, parallel, sql)).contains("sharedBuild").doesNotContain("Enumerable");
    Prepared prepared = engine.prepare(parallel, sql);
    try (QueryExecution exec = engine.execute(parallel, prepared, List.of(), "early")) {
      assertThat(exec.next()).isTrue();
    }
    try (QueryExecution exec = engine.execute(parallel, prepared, List.of(), "cancelled")) {
      exec.cancel("test");
      assertThatThrownBy(exec::next).isInstanceOf(SqeException.class);
    }
  }

  /** Runs {@code sql} on the columnar operators and on the row runtime, checks both give the same rows, in any order. */
  private Result matchesRowRuntime(String sql) {
    return matchesRowRuntime(session, sql);
  }

  /** As {@link #matchesRowRuntime(String)}, in {@code in} (a session with parallel pipelines, say). */
  private Result matchesRowRuntime(Session in, String sql) {
    Result columnar = TestQueries.run(engine, in, sql);
    Result rows = TestQueries.run(engine, TestOptions.set(in, PlannerOptions.COLUMNAR, false), sql);
    assertThat(TestQueries.sorted(columnar.rows())).as(sql).isEqualTo(TestQueries.sorted(rows.rows()));
    return columnar;
  }

  private String plan(String sql) {
    return TestQueries.plan(engine, session, sql);
  }

  /** A table of {@link TypedRows} {@code from..to-1} every {@code step}th, rows whose number ends in 0 twice when {@code step > 1}. */
  private void table(String name, int from, int to, int step) {
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), TypedRows.SCHEMA, PartitionSpec.unpartitioned(), Map.of());
    List<Record> records = new ArrayList<>();
    for (int n = from; n < to; n += step) {
      records.add(TypedRows.row(n));
      if (step > 1 && n % 10 == 0) {
        records.add(TypedRows.row(n));
      }
      if (records.size() == 6000) {
        TestTables.appendFile(table, records);
        records = new ArrayList<>();
      }
    }
    TestTables.appendFile(table, records);
  }
}
