package io.sqe.engine.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeParser;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatementFactsTest {
  private static StatementFacts facts(String sql) {
    return StatementFacts.of("iceberg", "sales", SqeParser.parse(sql));
  }

  @Test
  void queryReadsEveryTableItNamesQualifiedWithTheDefaultsButNotItsCtes() {
    StatementFacts facts = facts(
        "WITH recent AS (SELECT * FROM orders WHERE d > DATE '2024-01-01')"
            + " SELECT * FROM recent r JOIN hr.Emp e ON r.id = e.id"
            + " WHERE r.x IN (SELECT x FROM other.s.t) UNION ALL SELECT * FROM \"Quoted\" FOR VERSION AS OF 1");
    assertThat(facts.kind()).isEqualTo("SELECT");
    assertThat(facts.read()).containsExactly("iceberg.sales.orders", "iceberg.hr.emp", "other.s.t", "iceberg.sales.Quoted");
    assertThat(facts.written()).isEmpty();
  }

  @Test
  void writesNameTheirTargetAndTheirSources() {
    assertThat(facts("INSERT INTO t SELECT * FROM s")).isEqualTo(
        new StatementFacts("INSERT", List.of("iceberg.sales.s"), List.of("iceberg.sales.t")));
    assertThat(facts("MERGE INTO t USING (SELECT * FROM s) src ON t.id = src.id WHEN MATCHED THEN DELETE")).isEqualTo(
        new StatementFacts("MERGE", List.of("iceberg.sales.s"), List.of("iceberg.sales.t")));
    assertThat(facts("CREATE TABLE x.y AS SELECT a FROM z")).isEqualTo(
        new StatementFacts("CREATE TABLE AS", List.of("iceberg.sales.z"), List.of("iceberg.x.y")));
    assertThat(facts("DELETE FROM t WHERE id IN (SELECT id FROM u)")).isEqualTo(
        new StatementFacts("DELETE", List.of("iceberg.sales.u"), List.of("iceberg.sales.t")));
    assertThat(facts("UPDATE t SET a = 1")).isEqualTo(new StatementFacts("UPDATE", List.of(), List.of("iceberg.sales.t")));
    assertThat(facts("DROP TABLE t").kind()).isEqualTo("DROP TABLE");
    assertThat(facts("DROP TABLE t").written()).containsExactly("iceberg.sales.t");
    assertThat(facts("CREATE TABLE n (id INT)").kind()).isEqualTo("CREATE TABLE");
  }

  @Test
  void otherStatementsAreNamedByTheirKeywords() {
    assertThat(facts("USE other").kind()).isEqualTo("USE");
    assertThat(facts("SET statement_timeout = '1s'").kind()).isEqualTo("SET");
    assertThat(facts("BEGIN").kind()).isEqualTo("BEGIN");
    assertThat(facts("COMMIT").kind()).isEqualTo("COMMIT");
    assertThat(facts("TRUNCATE TABLE t")).isEqualTo(new StatementFacts("TRUNCATE TABLE", List.of(), List.of("iceberg.sales.t")));
    assertThat(facts("ALTER TABLE t ADD COLUMN c INT")).isEqualTo(new StatementFacts("ALTER TABLE", List.of(), List.of("iceberg.sales.t")));
    assertThat(facts("CREATE VIEW v AS SELECT * FROM t")).isEqualTo(
        new StatementFacts("CREATE VIEW", List.of("iceberg.sales.t"), List.of("iceberg.sales.v")));
    assertThat(facts("EXPLAIN SELECT * FROM t")).isEqualTo(new StatementFacts("EXPLAIN", List.of("iceberg.sales.t"), List.of()));
  }

  @Test
  void anExecuteHasTheFactsOfTheStatementItRuns() {
    Session session = new Session(Principal.of("alice"), "iceberg", "sales", ZoneOffset.UTC)
        .withPreparedStatement("add", "INSERT INTO t SELECT * FROM s WHERE id = ?");
    assertThat(StatementFacts.of(session, "EXECUTE add USING 1")).isEqualTo(
        new StatementFacts("INSERT", List.of("iceberg.sales.s"), List.of("iceberg.sales.t")));
    assertThat(StatementFacts.of(session, "EXECUTE IMMEDIATE 'DELETE FROM u'")).isEqualTo(
        new StatementFacts("DELETE", List.of(), List.of("iceberg.sales.u")));
    assertThat(StatementFacts.of(session, "EXECUTE missing").kind()).isEqualTo("EXECUTE");
    assertThat(StatementFacts.of(session, "PREPARE p FROM SELECT 1").kind()).isEqualTo("PREPARE");
    assertThat(StatementFacts.of(session, "DEALLOCATE PREPARE p").kind()).isEqualTo("DEALLOCATE");
  }
}
