package io.sqe.write.reuse;

import static io.sqe.write.reuse.IncrementalQuery.Column.AVG;
import static io.sqe.write.reuse.IncrementalQuery.Column.COUNT;
import static io.sqe.write.reuse.IncrementalQuery.Column.DEPENDENT;
import static io.sqe.write.reuse.IncrementalQuery.Column.KEY;
import static io.sqe.write.reuse.IncrementalQuery.Column.MAX;
import static io.sqe.write.reuse.IncrementalQuery.Column.MIN;
import static io.sqe.write.reuse.IncrementalQuery.Column.SUM;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import java.util.List;
import org.junit.jupiter.api.Test;

class IncrementalQueryTest {
  @Test
  void selectProjectFilterJoinAppends() {
    IncrementalQuery query = accepted("SELECT o.id, o.amount * 2 AS twice FROM s.orders o JOIN s.customers c ON o.customer = c.id WHERE c.region <> 'US'");
    assertThat(query.grouped()).isFalse();
    assertThat(query.tables()).isEqualTo(2);
  }

  @Test
  void groupsMergeByTheirSelectedKeys() {
    IncrementalQuery query = accepted(
        "SELECT c.region, k.kind, sum(o.amount) AS total, count(*) AS n, min(o.tag), max(o.tag), 1 AS one"
            + " FROM s.orders o, s.customers c, s.kinds k WHERE o.customer = c.id AND k.kind = c.kind GROUP BY c.region, k.kind");
    assertThat(query.grouped()).isTrue();
    assertThat(query.tables()).isEqualTo(3);
    assertThat(query.columns()).containsExactly(KEY, KEY, SUM, COUNT, MIN, MAX, DEPENDENT);
  }

  @Test
  void averagesMergeThroughTheirSumsAndCounts() {
    String sql = "SELECT region, avg(amount * 2) AS a, count(*) AS n, avg(price) AS p FROM s.c GROUP BY region";
    IncrementalQuery query = accepted(sql);
    assertThat(query.columns()).containsExactly(KEY, AVG, COUNT, AVG);
    assertThat(query.averages()).isTrue();
    assertThat(SqlDialect.toSql(IncrementalQuery.withAverageParts(SqeParser.parse(sql))))
        .isEqualTo(SqlDialect.toSql(SqeParser.parse(
            "SELECT region, avg(amount * 2) AS a, count(*) AS n, avg(price) AS p, sum(amount * 2), count(amount * 2), sum(price), count(price)"
                + " FROM s.c GROUP BY region")));
    assertThat(accepted("SELECT region, sum(amount) AS s FROM s.c GROUP BY region").averages()).isFalse();
  }

  @Test
  void groupKeysByExpressionOrOrdinal() {
    assertThat(accepted("SELECT region AS r, count(*) AS n FROM s.c GROUP BY 1").columns()).containsExactly(KEY, COUNT);
    assertThat(accepted("SELECT upper(region) AS r, count(*) AS n FROM s.c GROUP BY upper(region)").columns()).containsExactly(KEY, COUNT);
    assertThat(accepted("SELECT count(*) AS n, sum(x) AS s FROM s.c").grouped()).isTrue();
    assertThat(accepted("SELECT a, b FROM s.c GROUP BY a, b").columns()).containsExactly(KEY, KEY);
  }

  @Test
  void everythingElseRefreshesInFull() {
    for (String sql : List.of(
        "SELECT region, count(DISTINCT amount) AS a FROM s.c GROUP BY region",
        "SELECT region, stddev_pop(amount) AS a FROM s.c GROUP BY region",
        "SELECT region, sum(amount) / count(amount) AS a FROM s.c GROUP BY region",
        "SELECT region, count(*) AS n FROM s.c GROUP BY region HAVING count(*) > 1",
        "SELECT region, count(*) AS n FROM s.c GROUP BY ROLLUP(region)",
        "SELECT sum(amount) AS s FROM s.c GROUP BY region",
        "SELECT upper(region) AS region, count(*) AS n FROM s.c GROUP BY region",
        "SELECT DISTINCT region FROM s.c",
        "SELECT a.x FROM s.a LEFT JOIN s.b ON a.x = b.x",
        "SELECT x FROM s.a WHERE x IN (SELECT x FROM s.b)",
        "SELECT x FROM (SELECT x FROM s.a) t",
        "SELECT x FROM s.a ORDER BY x",
        "SELECT x FROM s.a UNION ALL SELECT x FROM s.b",
        "SELECT x, row_number() OVER (ORDER BY x) AS r FROM s.a",
        "SELECT x, my_function(x) AS y FROM s.a")) {
      IncrementalQuery.Analysis analysis = IncrementalQuery.analyze(SqeParser.parse(sql));
      assertThat(analysis.query()).as(sql).isNull();
      assertThat(analysis.whyNot()).as(sql).isNotBlank();
    }
  }

  private static IncrementalQuery accepted(String sql) {
    IncrementalQuery.Analysis analysis = IncrementalQuery.analyze(SqeParser.parse(sql));
    assertThat(analysis.whyNot()).as(sql).isNull();
    return analysis.query();
  }
}
