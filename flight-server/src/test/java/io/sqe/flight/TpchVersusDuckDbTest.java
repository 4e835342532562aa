package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.ResultComparison;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import io.sqe.sample.tpch.TpchLoader;
import io.sqe.sample.tpch.TpchQueries;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The 22 TPC-H queries at scale 0.01 through the Flight SQL JDBC driver, compared row by row with
 * DuckDB reading the same Parquet files, in both catalog modes.
 */
class TpchVersusDuckDbTest {
  static Stream<Integer> queries() {
    return TpchQueries.numbers().stream();
  }

  /** Everything a comparison needs: our server, a JDBC connection to it, and DuckDB over the files. */
  abstract static class Harness {
    TestServer server;
    Connection sqe;
    Connection duckdb;

    void open(Path dir, Map<String, String> settings) throws Exception {
      Map<String, String> all = new HashMap<>(settings);
      all.put("sample-data.tpch-scale", "0.01");
      server = TestServer.start(dir, all);
      Properties props = new Properties();
      props.put("user", TestServer.ADMIN);
      props.put("password", server.adminPassword());
      sqe = DriverManager.getConnection(server.jdbcUrl() + "&schema=tpch", props);
      duckdb = DriverManager.getConnection("jdbc:duckdb:");
      LakehouseCatalog catalog = server.server().catalogs().find("iceberg").orElseThrow();
      try (Statement s = duckdb.createStatement()) {
        for (String name : TpchLoader.tableNames()) {
          Table table = catalog.loadTable(TableIdentifier.of("tpch", name)).orElseThrow();
          List<String> files = new ArrayList<>();
          try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
              files.add("'" + task.file().location().replaceFirst("^file:", "") + "'");
            }
          }
          s.execute("create view " + name + " as select * from read_parquet([" + String.join(", ", files) + "])");
        }
      }
    }

    void compare(int query) throws Exception {
      String sql = TpchQueries.query(query);
      List<List<Object>> expected;
      List<List<Object>> actual;
      try (Statement s = duckdb.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        expected = ResultComparison.rows(rs);
      }
      try (Statement s = sqe.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        actual = ResultComparison.rows(rs);
      }
      assertThat(expected).as("DuckDB returns rows for Q%d", query).isNotEmpty();
      ResultComparison.assertSameRows("Q" + query, actual, expected);
    }

    void close() throws Exception {
      if (sqe != null) {
        sqe.close();
      }
      if (duckdb != null) {
        duckdb.close();
      }
      if (server != null) {
        server.close();
      }
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class EmbeddedCatalog extends Harness {
    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
      open(dir, Map.of());
    }

    @AfterAll
    void stop() throws Exception {
      close();
    }

    @ParameterizedTest(name = "Q{0}")
    @MethodSource("io.sqe.flight.TpchVersusDuckDbTest#queries")
    void matchesDuckDb(int query) throws Exception {
      compare(query);
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class RestCatalog extends Harness {
    RestCatalogFixture rest;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
      rest = RestCatalogFixture.start(dir.resolve("rest"));
      open(dir.resolve("sqe"), rest.sqeSettings());
    }

    @AfterAll
    void stop() throws Exception {
      close();
      rest.close();
    }

    @ParameterizedTest(name = "Q{0}")
    @MethodSource("io.sqe.flight.TpchVersusDuckDbTest#queries")
    void matchesDuckDb(int query) throws Exception {
      compare(query);
    }
  }
}
