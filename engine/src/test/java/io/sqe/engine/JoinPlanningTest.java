package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Join plans over real Iceberg tables of very different sizes: a fact table of 6,000 rows, a
 * dimension of 200 (keyed 0..199) and one of 10 (keyed 0..9), written to Parquet. The planner must
 * use the tables' row counts and key bounds: hash joins that build on the small side, no sort-merge
 * joins of unsorted inputs, and no cartesian product when the FROM list names two unrelated tables
 * first (the shape of TPC-H Q9). The results are checked against values computed here.
 */
class JoinPlanningTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    StarSchemaTables.write(lake.catalog());
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void unrelatedTablesFirstInTheFromListAreNotCrossJoined() {
    String sql =
        "select s_name, count(*), sum(f_value) from big, small, fact"
            + " where f_big = b_key and f_small = s_key and b_name like 'green%'"
            + " group by s_name order by s_name";
    String plan = plan(sql);
    assertThat(plan).doesNotContain("NestedLoopJoin").doesNotContain("MergeJoin");
    assertBuildsOnTheSmallerSide(plan);

    List<List<Object>> rows = run(sql);
    // f_big = id % 200 is a multiple of 4 (a green key) exactly when id % 4 == 0, so f_small is even.
    List<List<Object>> expected = new ArrayList<>();
    for (int s = 0; s < 10; s += 2) {
      long count = 0;
      long sum = 0;
      for (long id = 0; id < 6000; id++) {
        if (id % 4 == 0 && id % 10 == s) {
          count++;
          sum += id;
        }
      }
      expected.add(List.of("n" + s, count, sum));
    }
    assertThat(rows).isEqualTo(expected);
  }

  @Test
  void hashJoinsBuildOnTheSmallerInputWhateverTheFromOrder() {
    for (String sql :
        List.of(
            "select count(*), sum(f_value) from fact join big on f_big = b_key",
            "select count(*), sum(f_value) from big join fact on f_big = b_key")) {
      String plan = plan(sql);
      assertThat(plan).contains("HashJoin").doesNotContain("MergeJoin");
      assertBuildsOnTheSmallerSide(plan);
      assertThat(run(sql)).isEqualTo(List.of(List.of(6000L, 5999L * 6000 / 2)));
    }
  }

  @Test
  void outerJoinsBuildOnTheSmallerInputWhicheverSideIsPreserved() {
    // small has keys 0..9, 600 fact rows each; keys 10.. of big have no fact rows (f_big < 200 all match).
    String leftJoin =
        "select s_key, count(f_id), sum(f_value) from small left join fact on f_small = s_key group by s_key order by s_key";
    String plan = plan(leftJoin);
    assertThat(plan).contains("joinType=[right]");
    assertBuildsOnTheSmallerSide(plan);
    List<List<Object>> expected = new ArrayList<>();
    for (int s = 0; s < 10; s++) {
      long sum = 0;
      for (long id = s; id < 6000; id += 10) {
        sum += id;
      }
      expected.add(List.of(s, 600L, sum));
    }
    assertThat(run(leftJoin)).isEqualTo(expected);

    String rightJoin =
        "select count(*), count(f_id) from fact right join (select * from big where b_key >= 150) b on f_big = b_key and f_id < 1000";
    plan = plan(rightJoin);
    assertBuildsOnTheSmallerSide(plan);
    // f_big = f_id % 200 >= 150 for f_id < 1000: 5 ids per key; every key 150..199 has some.
    assertThat(run(rightJoin)).isEqualTo(List.of(List.of(250L, 250L)));
  }

  /** No hash join in {@code plan} has the fact table's scan as its right (build) input. */
  private static void assertBuildsOnTheSmallerSide(String plan) {
    List<String> lines = plan.lines().toList();
    Pattern indent = Pattern.compile("^( *)\\S");
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).contains("HashJoin")) {
        continue;
      }
      int depth = depth(indent, lines.get(i));
      // The join's inputs are the next lines one level deeper; the second of them is the right.
      List<Integer> children = new ArrayList<>();
      for (int j = i + 1; j < lines.size() && depth(indent, lines.get(j)) > depth; j++) {
        if (depth(indent, lines.get(j)) == depth + 2) {
          children.add(j);
        }
      }
      assertThat(children).as("inputs of %s", lines.get(i)).hasSize(2);
      int right = children.get(1);
      StringBuilder rightInput = new StringBuilder(lines.get(right));
      for (int j = right + 1; j < lines.size() && depth(indent, lines.get(j)) > depth + 2; j++) {
        rightInput.append('\n').append(lines.get(j));
      }
      assertThat(rightInput.toString()).as("build side of %s in\n%s", lines.get(i), plan).doesNotContain("fact]]");
    }
  }

  private static int depth(Pattern indent, String line) {
    Matcher m = indent.matcher(line);
    return m.find() ? m.group(1).length() : 0;
  }

  private String plan(String sql) {
    StringBuilder text = new StringBuilder();
    for (List<Object> row : run("explain plan for " + sql)) {
      text.append(row.get(0)).append('\n');
    }
    return text.toString();
  }

  private List<List<Object>> run(String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "q")) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }
}
