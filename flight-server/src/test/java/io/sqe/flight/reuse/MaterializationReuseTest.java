package io.sqe.flight.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE OR REPLACE TABLE ... AS through a real JDBC client: run again with nothing it reads
 * changed, it commits nothing and answers with the same count, however its text is written; any
 * change to what it reads, to the table itself, time travel, a non-deterministic call or the
 * session option makes it run again, and its rows then equal the query's.
 */
class MaterializationReuseTest {
  private static final String MODEL =
      "CREATE OR REPLACE TABLE c.totals AS SELECT region, sum(amount) AS total, count(*) AS n FROM c.sales GROUP BY region";

  @TempDir static Path dir;
  private static TestServer server;
  private Connection jdbc;
  private Statement statement;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir.resolve("data"), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @BeforeEach
  void connect() throws SQLException {
    jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
    statement = jdbc.createStatement();
    statement.executeUpdate("CREATE SCHEMA IF NOT EXISTS c");
    statement.executeUpdate("DROP TABLE IF EXISTS c.totals");
    statement.executeUpdate("CREATE OR REPLACE TABLE c.sales (region VARCHAR, amount BIGINT)");
    statement.executeUpdate("INSERT INTO c.sales VALUES ('EU', 10), ('EU', 5), ('US', 7), ('APAC', 1)");
  }

  @AfterEach
  void close() throws SQLException {
    statement.close();
    jdbc.close();
  }

  @Test
  void theSameStatementAgainCommitsNothingAndAnswersTheSameCount() throws SQLException {
    assertThat(statement.executeUpdate(MODEL)).isEqualTo(3);
    Snapshot built = current("totals");
    assertThat(built.summary()).containsKeys("sqe.lineage.fingerprint", "sqe.lineage.inputs", "sqe.lineage.policy", "sqe.version");

    // Whitespace, comments, letter case and table aliases are not the plan.
    String rewritten = "/* again */ create or replace table c.totals as\n  select s.region, SUM(s.amount) as total, COUNT(*) as n\n"
        + "  from c.sales s -- the same\n  group by s.region";
    assertThat(statement.executeUpdate(rewritten)).isEqualTo(3);
    assertThat(statement.executeUpdate(MODEL)).isEqualTo(3);
    assertThat(current("totals").snapshotId()).isEqualTo(built.snapshotId());
    assertThat(snapshots("totals")).isEqualTo(1);
    assertEqualsQuery();
  }

  @Test
  void aJoinIsReusedWhenItIsPlannedAgainWithNothingChanged() throws SQLException {
    statement.executeUpdate("CREATE OR REPLACE TABLE c.sizes (amount BIGINT, size VARCHAR)");
    statement.executeUpdate("INSERT INTO c.sizes VALUES (10, 'large')");
    String query = "SELECT s.region, s.amount, z.size FROM c.sales s JOIN c.sizes z ON s.amount = z.amount";
    StringBuilder plan = new StringBuilder();
    try (ResultSet explained = statement.executeQuery("EXPLAIN " + query)) {
      while (explained.next()) {
        plan.append(explained.getString(1)).append('\n');
      }
    }
    assertThat(plan.toString()).contains("dynamicFilter");
    String model = "CREATE OR REPLACE TABLE c.joined AS " + query;
    assertThat(statement.executeUpdate(model)).isEqualTo(1);
    long built = current("joined").snapshotId();
    // A DDL elsewhere empties the plan cache: the join is planned again, and its plan's text must
    // not change (a dynamic filter's slot was once named by the node's id, which every planning moves).
    statement.executeUpdate("CREATE OR REPLACE VIEW c.unrelated AS SELECT 1 AS one");
    assertThat(statement.executeUpdate(model)).isEqualTo(1);
    assertThat(current("joined").snapshotId()).isEqualTo(built);
  }

  @Test
  void aCommitToAnInputRunsItAgain() throws SQLException {
    assertRunsAgainAfter("INSERT INTO c.sales VALUES ('US', 3)", 3);
    assertRunsAgainAfter("DELETE FROM c.sales WHERE region = 'APAC'", 2);
    assertRunsAgainAfter("UPDATE c.sales SET amount = amount + 1 WHERE region = 'EU'", 2);
  }

  /**
   * A model whose sources only had appends reads only the appended rows: a join against an
   * unchanged table adds the new rows' files and keeps the old ones; a grouped model merges the new
   * groups into its stored ones; an average, whose sum and count a table keeps nowhere, and a
   * HAVING are written again in full. Each equals its query afterwards.
   */
  @Test
  void appendsToTheSourcesAreAddedToTheTableWithoutReadingTheRest() throws Exception {
    statement.executeUpdate("CREATE OR REPLACE TABLE c.sizes (amount BIGINT, size VARCHAR)");
    statement.executeUpdate("INSERT INTO c.sizes VALUES (10, 'large'), (5, 'medium'), (3, 'small'), (7, 'medium')");
    String join = "SELECT s.region, s.amount, z.size FROM c.sales s JOIN c.sizes z ON s.amount = z.amount WHERE s.region <> 'APAC'";
    String grouped = "SELECT region, sum(amount) AS total, count(*) AS n, min(amount) AS least, max(amount) AS most FROM c.sales GROUP BY region";
    String averaged = "SELECT region, avg(amount) AS mean FROM c.sales GROUP BY region";
    String having = "SELECT region, count(*) AS n FROM c.sales GROUP BY region HAVING count(*) > 1";
    Map<String, String> models = Map.of("m_join", join, "m_grouped", grouped, "m_avg", averaged, "m_having", having);
    for (Map.Entry<String, String> model : models.entrySet()) {
      statement.executeUpdate("CREATE OR REPLACE TABLE c." + model.getKey() + " AS " + model.getValue());
    }
    Set<String> joinFiles = dataFiles("m_join");
    statement.executeUpdate("INSERT INTO c.sales VALUES ('US', 3), ('EU', 5), ('LATAM', 10)");
    Map<String, Boolean> incremental = new HashMap<>();
    for (Map.Entry<String, String> model : models.entrySet()) {
      double before = incrementalRuns();
      statement.executeUpdate("CREATE OR REPLACE TABLE c." + model.getKey() + " AS " + model.getValue());
      incremental.put(model.getKey(), incrementalRuns() > before);
      assertThat(rows("SELECT * FROM c." + model.getKey())).as(model.getKey())
          .containsExactlyInAnyOrderElementsOf(rows(model.getValue()));
    }
    assertThat(incremental).isEqualTo(Map.of("m_join", true, "m_grouped", true, "m_avg", false, "m_having", false));
    assertThat(dataFiles("m_join")).containsAll(joinFiles).hasSizeGreaterThan(joinFiles.size());
    // An append to the table the join reads second: the delta rule's other term.
    statement.executeUpdate("INSERT INTO c.sizes VALUES (1, 'tiny'), (3, 'three')");
    // EXPLAIN says so first, with the plan of the term that reads the appended rows.
    List<String> explained = rows("EXPLAIN CREATE OR REPLACE TABLE c.m_join AS " + join).stream().map(row -> (String) row.get(0)).toList();
    assertThat(explained.get(1)).matches("-- materialization: incremental \\(rows appended to iceberg\\.c\\.sizes after snapshot \\d+, appended\\)");
    assertThat(explained.get(2)).matches("-- rows appended to iceberg\\.c\\.sizes after snapshot \\d+ up to \\d+");
    assertThat(explained).anySatisfy(line -> assertThat(line).contains("TableScan(table=[[iceberg, c, sizes]]"));
    double before = incrementalRuns();
    statement.executeUpdate("CREATE OR REPLACE TABLE c.m_join AS " + join);
    assertThat(incrementalRuns()).isGreaterThan(before);
    assertThat(rows("SELECT * FROM c.m_join")).containsExactlyInAnyOrderElementsOf(rows(join));
  }

  /** How many statements rewrote a table from its sources' appended rows only, as /metrics counts them. */
  private static double incrementalRuns() throws IOException {
    return server.metric("sqe_materializations_rebuilt_total{reason=\"incremental\"}");
  }

  private static Set<String> dataFiles(String name) {
    Set<String> paths = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table(name).newScan().planFiles()) {
      tasks.forEach(task -> paths.add(task.file().path().toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return paths;
  }

  @Test
  void aSchemaChangeOfAnInputRunsItAgain() throws SQLException {
    assertRunsAgainAfter("ALTER TABLE c.sales ADD COLUMN note VARCHAR", 3);
  }

  @Test
  void aChangeToTheTableItselfRunsItAgain() throws SQLException {
    assertRunsAgainAfter("INSERT INTO c.totals VALUES ('XX', 1, 1)", 3);
    assertRunsAgainAfter("ALTER TABLE c.totals ADD COLUMN extra VARCHAR", 3);
  }

  @Test
  void replacingAViewItReadsRunsItAgain() throws SQLException {
    statement.executeUpdate("CREATE OR REPLACE VIEW c.big AS SELECT * FROM c.sales WHERE amount > 5");
    String model = "CREATE OR REPLACE TABLE c.totals AS SELECT region, sum(amount) AS total, count(*) AS n FROM c.big GROUP BY region";
    assertThat(statement.executeUpdate(model)).isEqualTo(2);
    long built = current("totals").snapshotId();
    assertThat(statement.executeUpdate(model)).isEqualTo(2);
    assertThat(current("totals").snapshotId()).isEqualTo(built);

    statement.executeUpdate("CREATE OR REPLACE VIEW c.big AS SELECT * FROM c.sales WHERE amount > 1");
    assertThat(statement.executeUpdate(model)).isEqualTo(2);
    assertThat(current("totals").snapshotId()).isNotEqualTo(built);
    assertThat(rows("SELECT * FROM c.totals ORDER BY region"))
        .isEqualTo(rows("SELECT region, sum(amount), count(*) FROM c.big GROUP BY region ORDER BY region"));
  }

  @Test
  void theSessionOptionTurnsReuseOff() throws SQLException {
    statement.executeUpdate(MODEL);
    statement.executeUpdate("SET SESSION materialization_reuse = false");
    long built = current("totals").snapshotId();
    assertThat(statement.executeUpdate(MODEL)).isEqualTo(3);
    long again = current("totals").snapshotId();
    assertThat(again).isNotEqualTo(built);

    // Back on, the run made with reuse off is reused.
    statement.executeUpdate("RESET materialization_reuse");
    assertThat(statement.executeUpdate(MODEL)).isEqualTo(3);
    assertThat(current("totals").snapshotId()).isEqualTo(again);
  }

  @Test
  void nonDeterministicCallsAlwaysRun() throws SQLException {
    for (String model : List.of(
        "CREATE OR REPLACE TABLE c.totals AS SELECT region, amount, now() AS at FROM c.sales",
        "CREATE OR REPLACE TABLE c.totals AS SELECT region, amount, rand() AS r FROM c.sales")) {
      statement.executeUpdate(model);
      long built = current("totals").snapshotId();
      assertThat(statement.executeUpdate(model)).isEqualTo(4);
      assertThat(current("totals").snapshotId()).as(model).isNotEqualTo(built);
    }
  }

  @Test
  void timeTravelAlwaysRuns() throws SQLException {
    long version = current("sales").snapshotId();
    String model = "CREATE OR REPLACE TABLE c.totals AS SELECT region, amount FROM c.sales FOR VERSION AS OF " + version;
    statement.executeUpdate(model);
    long built = current("totals").snapshotId();
    assertThat(statement.executeUpdate(model)).isEqualTo(4);
    assertThat(current("totals").snapshotId()).isNotEqualTo(built);
  }

  @Test
  void anInsertRecordsTheLineageOfItsRows() throws SQLException {
    statement.executeUpdate("CREATE OR REPLACE TABLE c.copy (region VARCHAR, amount BIGINT)");
    statement.executeUpdate("INSERT INTO c.copy SELECT region, amount FROM c.sales WHERE amount > 1");
    Snapshot inserted = current("copy");
    assertThat(inserted.summary().get("sqe.lineage.inputs"))
        .contains("table iceberg.c.sales " + table("sales").uuid() + " snapshot " + current("sales").snapshotId());
    assertThat(inserted.summary()).containsEntry("sqe.lineage.rows", "3").containsKey("sqe.lineage.fingerprint");

    // Rows that depend on the clock have no lineage to record.
    statement.executeUpdate("INSERT INTO c.copy SELECT region, amount FROM c.sales WHERE now() > TIMESTAMP '2000-01-01 00:00:00'");
    assertThat(current("copy").summary()).doesNotContainKey("sqe.lineage.fingerprint");
  }

  /** Builds the model, checks a second run reuses it, runs {@code change}, and checks the next run rebuilds it right. */
  private void assertRunsAgainAfter(String change, long groups) throws SQLException {
    statement.executeUpdate(MODEL);
    long built = current("totals").snapshotId();
    statement.executeUpdate(MODEL);
    assertThat(current("totals").snapshotId()).isEqualTo(built);

    statement.executeUpdate(change);
    long changed = current("totals").snapshotId();
    assertThat(statement.executeUpdate(MODEL)).as(change).isEqualTo(groups);
    assertThat(current("totals").snapshotId()).as(change).isNotEqualTo(built).isNotEqualTo(changed);
    assertEqualsQuery();
  }

  private void assertEqualsQuery() throws SQLException {
    assertThat(rows("SELECT region, total, n FROM c.totals ORDER BY region"))
        .isEqualTo(rows("SELECT region, sum(amount), count(*) FROM c.sales GROUP BY region ORDER BY region"));
  }

  private List<List<Object>> rows(String query) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement s = jdbc.createStatement(); ResultSet result = s.executeQuery(query)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }

  private static Table table(String name) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("c", name));
  }

  private static Snapshot current(String name) {
    return table(name).currentSnapshot();
  }

  private static int snapshots(String name) {
    int count = 0;
    for (Snapshot ignored : table(name).snapshots()) {
      count++;
    }
    return count;
  }
}
