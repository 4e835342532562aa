package io.sqe.flight.mview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Materialized views through a real server and the JDBC driver: created, they hold their query's
 * rows in a storage table; read, they answer with the query's current rows whether a source moved
 * or not (the storage table only while none did, as EXPLAIN shows); refreshed, they rewrite the
 * storage table, or commit nothing when no source moved; dropped, both parts go.
 */
class MaterializedViewTest {
  /** How EXPLAIN shows a read of the storage table: a scan of the materialized view itself. */
  private static final String STORAGE_SCAN = "SqeTableScan(table=[[iceberg, c, totals]]";
  private static final String QUERY = "SELECT region, sum(amount) AS total, count(*) AS n FROM c.sales GROUP BY region";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private Connection jdbc;
  private Statement statement;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir.resolve("data"), Map.of());
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @BeforeEach
  void connect() throws SQLException {
    jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
    statement = jdbc.createStatement();
    // The queries compared with the view read their sources, not the view's storage.
    statement.executeUpdate("SET SESSION materialized_view_rewrite = false");
    statement.executeUpdate("CREATE SCHEMA IF NOT EXISTS c");
    statement.executeUpdate("DROP MATERIALIZED VIEW IF EXISTS c.totals");
    statement.executeUpdate("CREATE OR REPLACE TABLE c.sales (region VARCHAR, amount BIGINT)");
    statement.executeUpdate("INSERT INTO c.sales VALUES ('EU', 10), ('EU', 5), ('US', 7), ('APAC', 1)");
  }

  @AfterEach
  void close() throws SQLException {
    statement.close();
    jdbc.close();
  }

  @Test
  void readsEqualTheQueryBeforeAndAfterASourceMovesAndARefresh() throws SQLException {
    assertThat(statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS " + QUERY)).isEqualTo(3);
    TableIdentifier storage = storage("totals");
    long built = table(storage).currentSnapshot().snapshotId();
    assertThat(table(storage).currentSnapshot().summary()).containsKey("sqe.lineage.inputs");
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN).doesNotContain("sales")
        .contains("-- materialized view iceberg.c.totals: storage table c." + storage.name() + " (no source moved since the refresh)");
    assertEqualsQuery();

    statement.executeUpdate("INSERT INTO c.sales VALUES ('US', 3), ('LATAM', 4)");
    assertThat(explain("SELECT * FROM c.totals")).doesNotContain(STORAGE_SCAN).contains("sales")
        .contains("-- materialized view iceberg.c.totals: its query (iceberg.c.sales moved since the refresh)");
    assertEqualsQuery();
    assertThat(table(storage).currentSnapshot().snapshotId()).isEqualTo(built);

    assertThat(statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals")).isEqualTo(4);
    long refreshed = table(storage).currentSnapshot().snapshotId();
    assertThat(refreshed).isNotEqualTo(built);
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN).doesNotContain("sales");
    assertEqualsQuery();
    assertThat(rows("SELECT region, total, n FROM c." + storage.name() + " ORDER BY region"))
        .isEqualTo(rows(QUERY + " ORDER BY region"));

    // Nothing moved: the refresh commits nothing and answers with the same count.
    assertThat(statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals")).isEqualTo(4);
    assertThat(table(storage).currentSnapshot().snapshotId()).isEqualTo(refreshed);
  }

  @Test
  void aDeleteOrASchemaChangeOfASourceIsSeen() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS " + QUERY);
    statement.executeUpdate("DELETE FROM c.sales WHERE region = 'EU'");
    assertEqualsQuery();
    statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals");
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN);
    statement.executeUpdate("ALTER TABLE c.sales ADD COLUMN note VARCHAR");
    assertThat(explain("SELECT * FROM c.totals")).doesNotContain(STORAGE_SCAN).contains("the schema of iceberg.c.sales changed");
    assertEqualsQuery();
  }

  @Test
  void aRefreshAfterAColumnTypeChangeGivesTheViewTheNewColumns() throws SQLException {
    statement.executeUpdate("CREATE OR REPLACE TABLE c.small (id INT, amount INT)");
    statement.executeUpdate("INSERT INTO c.small VALUES (1, 10), (2, 20)");
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS SELECT id AS region, amount AS total FROM c.small");
    assertThat(rows("SELECT total FROM c.totals ORDER BY total")).containsExactly(List.of(10), List.of(20));
    statement.executeUpdate("ALTER TABLE c.small ALTER COLUMN amount SET DATA TYPE BIGINT");
    assertThat(explain("SELECT * FROM c.totals")).doesNotContain(STORAGE_SCAN);
    statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals");
    // The storage table and the view now have a BIGINT column, and the storage table answers.
    assertThat(views().loadView(TableIdentifier.of("c", "totals")).schema().findField("total").type())
        .isEqualTo(org.apache.iceberg.types.Types.LongType.get());
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN);
    statement.executeUpdate("INSERT INTO c.small VALUES (3, 3000000000)");
    statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals");
    assertThat(rows("SELECT total FROM c.totals ORDER BY total")).containsExactly(List.of(10L), List.of(20L), List.of(3000000000L));
    statement.executeUpdate("DROP TABLE c.small");
  }

  @Test
  void maxStalenessLetsReadsUseTheStorageTableAfterASourceMoved() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals WITH (max_staleness = '1h') AS " + QUERY);
    List<List<Object>> before = rows("SELECT * FROM c.totals ORDER BY region");
    statement.executeUpdate("INSERT INTO c.sales VALUES ('US', 3)");
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN).contains("within the view's max_staleness of PT1H");
    assertThat(rows("SELECT * FROM c.totals ORDER BY region")).isEqualTo(before);
  }

  @Test
  void dropRemovesTheViewAndItsStorageTable() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals COMMENT 'by region' AS " + QUERY);
    TableIdentifier storage = storage("totals");
    statement.executeUpdate("DROP MATERIALIZED VIEW c.totals");
    assertThat(views().viewExists(TableIdentifier.of("c", "totals"))).isFalse();
    assertThat(catalog().tableExists(storage)).isFalse();
    statement.executeUpdate("DROP MATERIALIZED VIEW IF EXISTS c.totals");
  }

  @Test
  void replacingItReplacesTheStorageTable() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals WITH (max_staleness = '1h') AS " + QUERY);
    TableIdentifier first = storage("totals");
    statement.executeUpdate("CREATE OR REPLACE MATERIALIZED VIEW c.totals AS SELECT region FROM c.sales WHERE amount > 5");
    assertThat(catalog().tableExists(first)).isFalse();
    assertThat(views().loadView(TableIdentifier.of("c", "totals")).properties()).doesNotContainKey("max_staleness");
    assertThat(rows("SELECT * FROM c.totals ORDER BY region")).isEqualTo(rows("SELECT region FROM c.sales WHERE amount > 5 ORDER BY region"));
    // IF NOT EXISTS leaves it as it is.
    statement.executeUpdate("CREATE MATERIALIZED VIEW IF NOT EXISTS c.totals AS " + QUERY);
    assertThat(storage("totals")).isNotEqualTo(first);
  }

  @Test
  void replacingItWithTheSameQueryKeepsTheStorageTable() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals WITH (max_staleness = '1h') AS " + QUERY);
    TableIdentifier storage = storage("totals");
    long built = table(storage).currentSnapshot().snapshotId();
    // Another layout of the same query, a new comment and max_staleness: the properties change, the
    // storage table stays, and with no source moved it gets no commit (dbt's ALTER of a view).
    assertThat(statement.executeUpdate("CREATE OR REPLACE MATERIALIZED VIEW c.totals COMMENT 'by region' WITH (max_staleness = '10m') AS\n"
        + "select region,  SUM(amount) as total, count(*) as n from c.sales group by region")).isEqualTo(3);
    assertThat(storage("totals")).isEqualTo(storage);
    assertThat(table(storage).currentSnapshot().snapshotId()).isEqualTo(built);
    assertThat(views().loadView(TableIdentifier.of("c", "totals")).properties())
        .containsEntry("max_staleness", "10m").containsEntry("comment", "by region");
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN);

    // A source moved: the same replace refreshes the kept storage table, and drops no property it names.
    statement.executeUpdate("INSERT INTO c.sales VALUES ('US', 3)");
    statement.executeUpdate("CREATE OR REPLACE MATERIALIZED VIEW c.totals AS " + QUERY);
    assertThat(storage("totals")).isEqualTo(storage);
    assertThat(table(storage).currentSnapshot().snapshotId()).isNotEqualTo(built);
    assertThat(views().loadView(TableIdentifier.of("c", "totals")).properties())
        .doesNotContainKey("max_staleness").doesNotContainKey("comment");
    assertThat(explain("SELECT * FROM c.totals")).contains(STORAGE_SCAN);
    assertEqualsQuery();
  }

  @Test
  void metadataListsItWithItsFreshness() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals COMMENT 'by region' AS " + QUERY);
    String listing = "SELECT name, storage_schema, storage_table, freshness, comment FROM system.metadata.materialized_views"
        + " WHERE catalog_name = 'iceberg' AND schema_name = 'c'";
    assertThat(rows(listing)).containsExactly(List.of("totals", "c", storage("totals").name(), "FRESH", "by region"));
    statement.executeUpdate("INSERT INTO c.sales VALUES ('US', 3)");
    assertThat(rows(listing)).extracting(row -> row.get(3)).containsExactly("STALE");
    // Stored as an Iceberg view, it is listed as one, as other engines reading the catalog see it.
    assertThat(rows("SELECT table_type FROM information_schema.tables WHERE table_schema = 'c' AND table_name = 'totals'"))
        .containsExactly(List.of("VIEW"));
  }

  @Test
  void showCreateGivesAStatementThatMakesItAgain() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals COMMENT 'by region' WITH (max_staleness = '10m') AS " + QUERY);
    String ddl = rows("SHOW CREATE MATERIALIZED VIEW c.totals").get(0).get(0).toString();
    assertThat(ddl).startsWith("CREATE MATERIALIZED VIEW iceberg.c.totals\nCOMMENT 'by region'\nWITH (\n   max_staleness = '10m'\n) AS\n");
    statement.executeUpdate("DROP MATERIALIZED VIEW c.totals");
    statement.executeUpdate(ddl);
    assertEqualsQuery();
    assertThat(views().loadView(TableIdentifier.of("c", "totals")).properties()).containsEntry("max_staleness", "10m");
  }

  @Test
  void badStatementsFailWithTheirStatus() throws Exception {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS " + QUERY);
    statement.executeUpdate("CREATE OR REPLACE VIEW c.plain AS SELECT 1 AS one");
    try (TestServer.Client client = server.client(allocator)) {
      check(client, "CREATE MATERIALIZED VIEW c.totals AS " + QUERY, FlightStatusCode.ALREADY_EXISTS,
          "Materialized view 'iceberg.c.totals' already exists (line 1, column 26)");
      check(client, "CREATE MATERIALIZED VIEW c.sales AS " + QUERY, FlightStatusCode.ALREADY_EXISTS, "A table named 'iceberg.c.sales'");
      check(client, "CREATE MATERIALIZED VIEW c.plain AS " + QUERY, FlightStatusCode.ALREADY_EXISTS, "it is not a materialized view");
      check(client, "CREATE MATERIALIZED VIEW c.m WITH (format = 'ORC') AS " + QUERY, FlightStatusCode.INVALID_ARGUMENT,
          "Unknown materialized view property 'format'; the one supported is max_staleness (line 1, column 36)");
      check(client, "CREATE MATERIALIZED VIEW c.m WITH (max_staleness = 'soon') AS " + QUERY, FlightStatusCode.INVALID_ARGUMENT,
          "max_staleness must be a duration");
      check(client, "CREATE MATERIALIZED VIEW c.m AS SELECT nope FROM c.sales", FlightStatusCode.INVALID_ARGUMENT, "nope");
      check(client, "CREATE MATERIALIZED VIEW c.m AS SELECT * FROM c.missing", FlightStatusCode.NOT_FOUND, "missing");
      check(client, "REFRESH MATERIALIZED VIEW c.missing", FlightStatusCode.NOT_FOUND,
          "Materialized view 'iceberg.c.missing' does not exist (line 1, column 27)");
      check(client, "REFRESH MATERIALIZED VIEW c.plain", FlightStatusCode.INVALID_ARGUMENT, "is a view, not a materialized view");
      check(client, "DROP MATERIALIZED VIEW c.plain", FlightStatusCode.INVALID_ARGUMENT, "is a view, not a materialized view");
      check(client, "DROP MATERIALIZED VIEW c.sales", FlightStatusCode.NOT_FOUND, "it is a table");
      check(client, "DROP VIEW c.totals", FlightStatusCode.INVALID_ARGUMENT, "is a materialized view");
      check(client, "CREATE OR REPLACE VIEW c.totals AS SELECT 1 AS one", FlightStatusCode.INVALID_ARGUMENT, "is a materialized view");
      check(client, "SHOW CREATE VIEW c.totals", FlightStatusCode.INVALID_ARGUMENT, "use SHOW CREATE MATERIALIZED VIEW");
      check(client, "SHOW CREATE MATERIALIZED VIEW c.plain", FlightStatusCode.INVALID_ARGUMENT, "use SHOW CREATE VIEW");
    }
    // Nothing was left behind by the failed statements.
    assertThat(views().viewExists(TableIdentifier.of("c", "m"))).isFalse();
  }

  private static void check(TestServer.Client client, String sql, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> client.sql().executeUpdate(sql, client.auth()))
        .as(sql)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code);
          assertThat(e.getMessage()).contains(message);
        });
  }

  private void assertEqualsQuery() throws SQLException {
    assertThat(rows("SELECT region, total, n FROM c.totals ORDER BY region")).isEqualTo(rows(QUERY + " ORDER BY region"));
  }

  private String explain(String query) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (ResultSet explained = statement.executeQuery("EXPLAIN " + query)) {
      while (explained.next()) {
        plan.append(explained.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  @Test
  void explainRefreshSaysWhatTheRefreshWouldDoAndChangesNothing() throws SQLException {
    statement.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS " + QUERY);
    assertThat(explainRefresh().get(0)).startsWith("-- refresh: none (unchanged");

    statement.executeUpdate("INSERT INTO c.sales VALUES ('LATAM', 4)");
    long before = table(storage("totals")).currentSnapshot().snapshotId();
    List<String> incremental = explainRefresh();
    assertThat(incremental.get(0)).startsWith("-- refresh: incremental (rows appended to iceberg.c.sales after snapshot ");
    assertThat(String.join("\n", incremental)).contains("appendedAfter=");
    assertThat(table(storage("totals")).currentSnapshot().snapshotId()).isEqualTo(before);

    statement.executeUpdate("DELETE FROM c.sales WHERE region = 'US'");
    List<String> full = explainRefresh();
    assertThat(full.get(0)).startsWith("-- refresh: full (").contains("rewritten in full: iceberg.c.sales had a commit that is not an append");
    assertThat(String.join("\n", full)).doesNotContain("appendedAfter=");
    statement.executeUpdate("REFRESH MATERIALIZED VIEW c.totals");
    assertThat(rows("SELECT * FROM c.totals ORDER BY region")).isEqualTo(rows(QUERY + " ORDER BY region"));
  }

  private List<String> explainRefresh() throws SQLException {
    return rows("EXPLAIN REFRESH MATERIALIZED VIEW c.totals").stream().map(row -> (String) row.get(0)).toList();
  }

  private List<List<Object>> rows(String query) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement s = jdbc.createStatement(); ResultSet result = s.executeQuery(query)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }

  private static Catalog catalog() {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg();
  }

  private static ViewCatalog views() {
    return server.server().catalogs().find("iceberg").orElseThrow().views().orElseThrow();
  }

  private static TableIdentifier storage(String view) {
    View loaded = views().loadView(TableIdentifier.of("c", view));
    return TableIdentifier.of(loaded.properties().get("storage_schema"), loaded.properties().get("storage_table"));
  }

  private static Table table(TableIdentifier id) {
    return catalog().loadTable(id);
  }
}
