package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hash join hands its build side's keys to the scan of its probe side: files whose key range
 * holds none of them are never opened (here they are deleted from storage, so reading one would
 * fail), rows whose key is not among them are dropped on the vectors, and the results are those
 * of the join itself, checked against the rows computed here. Outer joins publish nothing.
 */
class DynamicFilterTest {
  private static final int FILES = 3;
  private static final int ROWS_PER_FILE = 2000;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private Table facts;
  private final List<DataFile> factFiles = new ArrayList<>();

  @BeforeEach
  void setUp() {
    engine = lake.engine(TestOptions.WIDE);
    session = TestOptions.defaultParallel(EmbeddedLake.session("test"));
    Schema factSchema =
        new Schema(
            Types.NestedField.required(1, "k", Types.LongType.get()),
            Types.NestedField.required(2, "v", Types.LongType.get()),
            Types.NestedField.optional(3, "d", Types.IntegerType.get()));
    facts = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "facts"), factSchema, PartitionSpec.unpartitioned());
    for (int file = 0; file < FILES; file++) {
      List<Record> records = new ArrayList<>();
      for (long k = (long) file * ROWS_PER_FILE; k < (file + 1L) * ROWS_PER_FILE; k++) {
        GenericRecord r = GenericRecord.create(factSchema);
        r.setField("k", k);
        r.setField("v", k * 3);
        r.setField("d", k % 5 == 0 ? null : (int) (k % 100));
        records.add(r);
      }
      factFiles.add(TestTables.appendFile(facts, records));
    }
  }


  /** A dimension table {@code name} whose keys are these; {@code tag} is 'a' for even keys. */
  private void dimension(String name, Set<Long> keys) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "k", Types.LongType.get()),
            Types.NestedField.required(2, "tag", Types.StringType.get()),
            Types.NestedField.required(3, "d", Types.IntegerType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), schema, PartitionSpec.unpartitioned());
    List<Record> records = new ArrayList<>();
    for (long k : keys) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("k", k);
      r.setField("tag", k % 2 == 0 ? "a" : "b");
      r.setField("d", (int) (k % 7));
      records.add(r);
    }
    TestTables.appendFile(table, records);
  }

  @Test
  void filesOutsideTheBuildKeysAreNeverReadAndTheJoinIsUnchanged() {
    Set<Long> keys = new TreeSet<>();
    for (long k = 2100; k < 2160; k += 3) {
      keys.add(k);
    }
    dimension("dims", keys);
    long expectedSum = keys.stream().mapToLong(k -> k * 3).sum();

    // An outer join keeps every probe row: no dynamic filter, every file read.
    Result outer = run("select count(*) from facts f left join dims d on f.k = d.k");
    assertThat(outer.values).isEqualTo(List.of(List.of((long) FILES * ROWS_PER_FILE)));
    assertThat(outer.stats.dynamicFiltersApplied()).isZero();
    assertThat(outer.stats.filesScanned()).isEqualTo(FILES + 1);

    // The files before and after the key range are gone from storage: reading one would fail.
    facts.io().deleteFile(factFiles.get(0).location());
    facts.io().deleteFile(factFiles.get(2).location());

    Result inner = run("select count(*), sum(f.v) from facts f join dims d on f.k = d.k");
    assertThat(inner.values).isEqualTo(List.of(List.of((long) keys.size(), expectedSum)));
    assertThat(inner.stats.dynamicFiltersApplied()).isEqualTo(1);
    assertThat(inner.stats.filesScanned()).isEqualTo(2);
    // The middle file's rows that no key matches were dropped before they were built.
    assertThat(inner.stats.rowsSkippedOnVectors()).isEqualTo(ROWS_PER_FILE - keys.size());

    // The build side filtered, then an IN sub-query (a semi join, or a join on its distinct keys).
    Result filtered = run("select count(*), sum(f.v) from facts f join dims d on f.k = d.k where d.tag = 'a'");
    long evens = keys.stream().filter(k -> k % 2 == 0).count();
    assertThat(filtered.values).isEqualTo(List.of(List.of(evens, keys.stream().filter(k -> k % 2 == 0).mapToLong(k -> k * 3).sum())));
    assertThat(filtered.stats.dynamicFiltersApplied()).isEqualTo(1);
    // Past an aggregate grouped by the join key.
    Result grouped = run("select count(*), sum(g.s) from (select k, sum(v) as s from facts group by k) g join dims d on g.k = d.k");
    assertThat(grouped.values).isEqualTo(List.of(List.of((long) keys.size(), expectedSum)));
    assertThat(grouped.stats.dynamicFiltersApplied()).isEqualTo(1);
    // The middle facts file, and dims twice: the planner's semi-join reduction filters the
    // aggregate's input by dims' keys (see SemiJoinReduction), and the join reads dims again.
    assertThat(grouped.stats.filesScanned()).isEqualTo(3);
    Result in = run("select count(*) from facts where k in (select k from dims where tag = 'b')");
    assertThat(in.values).isEqualTo(List.of(List.of(keys.size() - evens)));
    assertThat(in.stats.filesScanned()).isEqualTo(2);
  }

  @Test
  void theKeysReachEveryPartOfAParallelPipeline() {
    Set<Long> keys = new TreeSet<>();
    for (long k = 2100; k < 2160; k += 3) {
      keys.add(k);
    }
    dimension("dims", keys);
    List<String> queries =
        List.of(
            // The join inside the parts: each part publishes its keys to its own scan.
            "select d.tag, count(*), sum(f.v) from facts f join dims d on f.k = d.k group by d.tag",
            // A semi-join inside the parts.
            "select count(*), sum(v) from facts where k in (select k from dims where tag = 'b')",
            // The join above the parallel pipeline (an aggregate grouped by the key, split into parts),
            // and a semi-join inside it.
            "select count(*), sum(g.s) from (select k, sum(v) as s from facts group by k) g join dims d on g.k = d.k");
    // The last, reduced by the planner with a semi-join under the aggregate, which the parts then run.
    session = TestOptions.parallel(session, 3, 0);
    assertThat(((Prepared.Query) engine.prepare(session, "/* reduced */ " + queries.get(2))).plan().explain())
        .containsPattern("(?s)(ParallelGather|SqeGather).*joinType=\\[semi].*(SharedInput|sharedBuild=\\[true])");
    // Serial, every file still in storage: what the parallel runs must return.
    List<List<List<Object>>> expected = new ArrayList<>();
    for (String sql : queries) {
      expected.add(run(sql, 1).values);
    }
    // The files before and after the key range are gone from storage: a part reading one would fail.
    facts.io().deleteFile(factFiles.get(0).location());
    facts.io().deleteFile(factFiles.get(2).location());
    for (int i = 0; i < queries.size(); i++) {
      String sql = queries.get(i);
      // Not the text run before the files went: that result would come from the result cache.
      Result serial = run("/* again */ " + sql, 1);
      session = TestOptions.parallel(session, 3, 0);
      Prepared prepared = engine.prepare(session, "/* explained */ " + sql);
      String plan = ((Prepared.Query) prepared).plan().explain();
      // The row runtime's pipeline, or the columnar one whose parts share the join's build side.
      assertThat(plan).as(plan).containsPattern("ParallelGather|SqeGather").containsPattern("SharedInput|sharedBuild=\\[true]");
      Result parallel = run(sql, 3);
      assertThat(sortedText(parallel.values)).as(sql).isEqualTo(sortedText(expected.get(i)));
      assertThat(sortedText(serial.values)).as(sql).isEqualTo(sortedText(expected.get(i)));
      assertThat(parallel.stats.dynamicFiltersApplied()).as(sql).isEqualTo(serial.stats.dynamicFiltersApplied()).isPositive();
      // The middle fact file and the dimension's (once, or twice where a semi-join reduction reads it too),
      // whichever parts opened them: the build side is read once per execution, as serially.
      assertThat(parallel.stats.filesScanned()).as(sql).isEqualTo(serial.stats.filesScanned());
    }
  }

  private static TreeSet<String> sortedText(List<List<Object>> rows) {
    return new TreeSet<>(rows.stream().map(Object::toString).toList());
  }

  @Test
  void manyKeysFilterRowsOnTheVectorsAndTwoKeysAndAnEmptyBuildSide() {
    // More keys than Iceberg's IN list takes: files are pruned by the keys' range, rows by the set.
    Set<Long> keys = new TreeSet<>();
    for (long k = 2000; k < 4400; k += 7) {
      keys.add(k);
    }
    dimension("many", keys);
    Result result = run("select count(*), sum(f.v) from facts f join many m on f.k = m.k");
    assertThat(result.values).isEqualTo(List.of(List.of((long) keys.size(), keys.stream().mapToLong(k -> k * 3).sum())));
    assertThat(result.stats.dynamicFiltersApplied()).isEqualTo(1);
    assertThat(result.stats.filesScanned()).isEqualTo(3);
    assertThat(result.stats.rowsSkippedOnVectors()).isEqualTo(2 * ROWS_PER_FILE - keys.size());

    // Two keys, one of them an INTEGER column with NULLs on the probe side.
    Result twoKeys = run("select count(*) from facts f join many m on f.k = m.k and f.d = m.d");
    long expected = keys.stream().filter(k -> k % 5 != 0 && k % 100 == k % 7).count();
    assertThat(twoKeys.values).isEqualTo(List.of(List.of(expected)));

    // A build side that ends up empty: the probe side is not read at all.
    dimension("nothing", Set.of(1L, 2L));
    Result empty = run("select count(*) from facts f join nothing n on f.k = n.k where char_length(n.tag) = 5");
    assertThat(empty.values).isEqualTo(List.of(List.of(0L)));
    assertThat(empty.stats.filesScanned()).isEqualTo(1);
  }

  private record Result(List<List<Object>> values, QueryStats stats) {}

  private Result run(String sql) {
    return run(sql, 0);
  }

  /** {@code sql} run with {@code parallelism} parts (0: as configured); the comment keeps the plans apart in the plan cache. */
  private Result run(String sql, int parallelism) {
    if (parallelism > 0) {
      session = TestOptions.parallel(session, parallelism, 0);
    }
    TestQueries.Result result =
        TestQueries.run(engine, session, parallelism > 0 ? "/* parallel */ ".repeat(parallelism) + sql : sql);
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : result.rows()) {
      rows.add(row.stream().map(DynamicFilterTest::asLong).toList());
    }
    return new Result(rows, result.stats());
  }

  /** Counts and sums come back as BIGINT, keys of INTEGER columns as Integer: all compared as longs. */
  private static Object asLong(Object value) {
    return value instanceof Number && !(value instanceof Long) && !(value instanceof java.math.BigDecimal)
        ? (Object) ((Number) value).longValue()
        : value;
  }
}
