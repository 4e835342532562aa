package io.sqe.flight.offload;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrinoCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Trino cluster (coordinator and worker) over the REST catalog an SQE server writes reads
 * SQE's tables, TPC-H's and one SQE just wrote, with the same rows SQE returns: the ground the
 * offload of big queries stands on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrinoReadsSqeTablesTest {
  private RestCatalogFixture rest;
  private TestServer server;
  private TrinoCluster trino;
  private Connection sqe;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    Map<String, String> settings = new java.util.HashMap<>(rest.sqeSettings());
    settings.put("sample-data.tpch-scale", "0.01");
    server = TestServer.start(dir.resolve("sqe"), settings);
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    sqe = DriverManager.getConnection(server.jdbcUrl(), props);
    trino = TrinoCluster.start(dir.resolve("trino"), rest.uri());
  }

  @AfterAll
  void stop() throws Exception {
    if (sqe != null) {
      sqe.close();
    }
    if (trino != null) {
      trino.close();
    }
    if (server != null) {
      server.close();
    }
    if (rest != null) {
      rest.close();
    }
  }

  @Test
  void readsTpchTablesSqeLoaded() throws Exception {
    assertSameRows("nation", "SELECT n_nationkey, n_name, n_regionkey, n_comment FROM iceberg.tpch.nation ORDER BY n_nationkey");
    assertSameRows(
        "lineitem by flag",
        "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), sum(l_extendedprice), min(l_shipdate), max(l_shipdate) "
            + "FROM iceberg.tpch.lineitem GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2");
  }

  @Test
  void readsTableSqeWrote() throws Exception {
    try (Statement s = sqe.createStatement()) {
      s.execute("CREATE SCHEMA iceberg.written");
      s.execute("CREATE TABLE iceberg.written.t (id BIGINT, name VARCHAR, amount DECIMAL(12, 2), day DATE, at TIMESTAMP, ok BOOLEAN)");
      s.execute("INSERT INTO iceberg.written.t VALUES "
          + "(1, 'one', 10.50, DATE '2024-01-02', TIMESTAMP '2024-01-02 03:04:05.123456', true), "
          + "(2, NULL, -3.25, DATE '1999-12-31', TIMESTAMP '1999-12-31 23:59:59', false), "
          + "(3, 'três', NULL, NULL, NULL, NULL)");
    }
    assertSameRows("written", "SELECT id, name, amount, day, at, ok FROM iceberg.written.t ORDER BY id");
  }

  private void assertSameRows(String label, String sql) throws Exception {
    List<List<Object>> expected;
    try (Statement s = sqe.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      expected = ResultComparison.rows(rs);
    }
    List<List<Object>> actual;
    try (Connection connection = trino.connect("test"); Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      actual = ResultComparison.rows(rs);
    }
    org.assertj.core.api.Assertions.assertThat(expected).as("SQE returns rows for %s", label).isNotEmpty();
    ResultComparison.assertSameRows(label, actual, expected);
  }
}
