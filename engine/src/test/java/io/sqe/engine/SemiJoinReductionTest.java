package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The planner reduces the large input of a semi-join, an anti-join or a join with a grouped
 * aggregate by a semi-join with the small input's keys. Over real Iceberg tables with NULL keys
 * and duplicate keys, a small {@code probe} (24 rows) and a large {@code build} (6,000 rows), the
 * plans must show the reduction and the results must equal those computed here with SQL's rules
 * for NULL (an equality with NULL is never true, {@code NOT IN} over a set holding NULL is never
 * true).
 */
class SemiJoinReductionTest {
  private static final Schema PROBE =
      new Schema(
          Types.NestedField.required(1, "p_id", Types.LongType.get()),
          Types.NestedField.optional(2, "p_key", Types.LongType.get()),
          Types.NestedField.required(3, "p_value", Types.LongType.get()));
  private static final Schema BUILD =
      new Schema(
          Types.NestedField.required(1, "b_id", Types.LongType.get()),
          Types.NestedField.optional(2, "b_key", Types.LongType.get()),
          Types.NestedField.required(3, "b_value", Types.LongType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;
  private final List<Long[]> probe = new ArrayList<>();
  private final List<Long[]> build = new ArrayList<>();

  @BeforeEach
  void setUp() {
    lake.catalog().namespaces().createNamespace(Namespace.of("s"));
    // probe: keys 0, 0, 7, 7, ..., some NULL, and keys with no build row (>= 1000); duplicates on purpose.
    for (long id = 0; id < 24; id++) {
      Long key = id % 6 == 5 ? null : (id < 18 ? (id / 2) * 7 : 1000 + id);
      probe.add(new Long[] {id, key, id * 3});
    }
    // build: keys 0..499 (12 rows each) and every 50th row NULL.
    for (long id = 0; id < 6000; id++) {
      Long key = id % 50 == 49 ? null : id % 500;
      build.add(new Long[] {id, key, id % 97});
    }
    write("probe", PROBE, probe, "p_");
    write("build", BUILD, build, "b_");
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  private void write(String name, Schema schema, List<Long[]> rows, String prefix) {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), schema);
    List<Record> records = new ArrayList<>();
    for (Long[] row : rows) {
      Record r = GenericRecord.create(schema);
      r.setField(prefix + "id", row[0]);
      r.setField(prefix + "key", row[1]);
      r.setField(prefix + "value", row[2]);
      records.add(r);
    }
    TestTables.appendFile(table, records);
  }

  @Test
  void existsBuildsOnTheSmallInputsKeys() {
    String sql = "select p_id from probe where exists (select 1 from build where b_key = p_key) order by p_id";
    assertThat(plan(sql)).contains("joinType=[semi]");
    assertThat(ids(run(sql))).isEqualTo(probeIds(p -> p[1] != null && buildHasKey(p[1])));
  }

  @Test
  void notExistsKeepsProbeRowsWithNullKeys() {
    String sql = "select p_id from probe where not exists (select 1 from build where b_key = p_key) order by p_id";
    assertThat(plan(sql)).contains("joinType=[semi]");
    assertThat(ids(run(sql))).isEqualTo(probeIds(p -> p[1] == null || !buildHasKey(p[1])));
  }

  @Test
  void notInOverASetWithNullIsNeverTrue() {
    assertThat(run("select p_id from probe where p_key not in (select b_key from build)")).isEmpty();
    String sql = "select p_id from probe where p_key not in (select b_key from build where b_key is not null) order by p_id";
    assertThat(ids(run(sql))).isEqualTo(probeIds(p -> p[1] != null && !buildHasKey(p[1])));
  }

  @Test
  void correlatedAverageAggregatesOnlyTheKeysOfTheOuterRows() {
    String sql =
        "select p_id from probe where p_value < (select avg(cast(b_value as double)) from build where b_key = p_key) order by p_id";
    String plan = plan(sql);
    assertThat(plan).as(plan).containsPattern("(?s)(Enumerable|Sqe)Aggregate\\(group=\\[\\{\\d+}].*\\n\\s+(BuildRightHashJoin|SqeHashJoin)[^\\n]*joinType=\\[semi]");
    Map<Long, double[]> sums = sumsByKey();
    assertThat(ids(run(sql)))
        .isEqualTo(probeIds(p -> p[1] != null && sums.containsKey(p[1]) && p[2] < sums.get(p[1])[0] / sums.get(p[1])[1]));
  }

  @Test
  void scalarSumPerDuplicateKeyIsNotMultiplied() {
    String sql = "select p_id, (select sum(b_value) from build where b_key = p_key) from probe order by p_id";
    Map<Long, double[]> sums = sumsByKey();
    List<List<Object>> expected = new ArrayList<>();
    for (Long[] p : probe) {
      double[] sum = p[1] == null ? null : sums.get(p[1]);
      List<Object> row = new ArrayList<>();
      row.add(p[0]);
      row.add(sum == null ? null : (long) sum[0]);
      expected.add(row);
    }
    assertThat(run(sql)).isEqualTo(expected);
  }

  @Test
  void aReductionMoreSelectiveThanAJoinGoesBelowTheJoinsProbeSide() {
    // dim holds 20 of build's 97 values: its join keeps a fifth of build's rows, the outer rows' 9
    // keys of 500 keep under 2%, so the semi-join goes on build's scan, under the join (TPC-H Q2).
    Schema dimSchema =
        new Schema(
            Types.NestedField.required(1, "d_id", Types.LongType.get()),
            Types.NestedField.optional(2, "d_key", Types.LongType.get()),
            Types.NestedField.required(3, "d_value", Types.LongType.get()));
    List<Long[]> dim = new ArrayList<>();
    for (long key = 0; key < 20; key++) {
      dim.add(new Long[] {key, key, key});
    }
    write("dim", dimSchema, dim, "d_");
    String sql = "select p_id, (select min(b_id) from build join dim on b_value = d_key where b_key = p_key) from probe order by p_id";
    String plan = plan(sql);
    assertThat(plan).as(plan)
        .containsPattern("(?s)joinType=\\[inner].*\\n\\s+(BuildRightHashJoin|SqeHashJoin)[^\\n]*joinType=\\[semi][^\\n]*\\n(\\s+(EnumerableFilter|SqeFilter)[^\\n]*\\n)?\\s+(IcebergTableScan|SqeTableScan)[^\\n]*build");
    List<List<Object>> expected = new ArrayList<>();
    for (Long[] p : probe) {
      Long min = null;
      for (Long[] b : build) {
        if (p[1] != null && p[1].equals(b[1]) && b[2] < 20 && (min == null || b[0] < min)) {
          min = b[0];
        }
      }
      List<Object> row = new ArrayList<>();
      row.add(p[0]);
      row.add(min);
      expected.add(row);
    }
    assertThat(run(sql)).isEqualTo(expected);
  }

  @Test
  void anEmptySmallInputEmptiesTheResult() {
    String sql =
        "select p_id from probe where p_id > 100 and exists (select 1 from build where b_key = p_key) order by p_id";
    assertThat(run(sql)).isEmpty();
    String grouped =
        "select count(*) from probe join (select b_key, count(*) c from build group by b_key) g on g.b_key = p_key where p_id > 100";
    assertThat(run(grouped)).isEqualTo(List.of(List.of(0L)));
  }

  private boolean buildHasKey(long key) {
    return build.stream().anyMatch(b -> Objects.equals(b[1], key));
  }

  private Map<Long, double[]> sumsByKey() {
    Map<Long, double[]> sums = new HashMap<>();
    for (Long[] b : build) {
      if (b[1] != null) {
        double[] s = sums.computeIfAbsent(b[1], k -> new double[2]);
        s[0] += b[2];
        s[1]++;
      }
    }
    return sums;
  }

  private List<Long> probeIds(Predicate<Long[]> keep) {
    return probe.stream().filter(keep).map(p -> p[0]).sorted(Comparator.naturalOrder()).toList();
  }

  private static List<Long> ids(List<List<Object>> rows) {
    return rows.stream().map(r -> (Long) r.get(0)).toList();
  }

  private String plan(String sql) {
    return TestQueries.plan(engine, session, sql);
  }

  private List<List<Object>> run(String sql) {
    return TestQueries.rows(engine, session, sql);
  }
}
