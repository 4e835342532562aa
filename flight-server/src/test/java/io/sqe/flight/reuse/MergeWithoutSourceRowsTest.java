package io.sqe.flight.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An incremental model's MERGE with nothing new in its source (dbt's unchanged run) answers from
 * the source's key query alone: no plan of the whole MERGE, no scan of the target, no commit, and
 * the trailers say the target was reused because the source had no rows. With new source rows it
 * merges as before.
 */
class MergeWithoutSourceRowsTest {
  private static final String MERGE = """
      MERGE INTO c.target AS t
      USING (SELECT * FROM c.src WHERE ts > (SELECT max(ts) FROM c.target)) AS s
      ON (s.id = t.id)
      WHEN MATCHED THEN UPDATE SET v = s.v, ts = s.ts
      WHEN NOT MATCHED THEN INSERT (id, v, ts) VALUES (s.id, s.v, s.ts)""";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;

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

  @Test
  void anEmptySourceChangesNothingAndANewRowStillMerges() throws Exception {
    TrailerCapture trailers = new TrailerCapture();
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.src (id BIGINT, v VARCHAR, ts BIGINT)", admin);
      sql.executeUpdate("INSERT INTO c.src VALUES (1, 'a', 10), (2, 'b', 20)", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.target AS SELECT * FROM c.src", admin);
      long built = snapshot("target");

      assertThat(sql.executeUpdate(MERGE, admin)).isZero();
      assertThat(trailers.lastDoPut())
          .containsEntry("x-sqe-materialization", "reused")
          .containsEntry("x-sqe-materialization-reason", "no_source_rows");
      assertThat(snapshot("target")).isEqualTo(built);

      // A source row with no key can still be inserted: the source is not empty, so the MERGE runs.
      sql.executeUpdate("INSERT INTO c.src VALUES (NULL, 'n', 25)", admin);
      assertThat(sql.executeUpdate(MERGE, admin)).isEqualTo(1);
      assertThat(trailers.lastDoPut()).doesNotContainKey("x-sqe-materialization");

      // A changed and a new row: both merged.
      sql.executeUpdate("INSERT INTO c.src VALUES (2, 'B', 30), (3, 'c', 30)", admin);
      assertThat(sql.executeUpdate(MERGE, admin)).isEqualTo(2);
      assertThat(trailers.lastDoPut()).doesNotContainKey("x-sqe-materialization");
      assertThat(snapshot("target")).isNotEqualTo(built);
    }
    assertThat(rows("SELECT id, v, ts FROM c.target ORDER BY ts, id"))
        .containsExactly(row(1L, "a", 10L), row(null, "n", 25L), row(2L, "B", 30L), row(3L, "c", 30L));
  }

  private static List<Object> row(Object... values) {
    List<Object> row = new ArrayList<>();
    for (Object value : values) {
      row.add(value);
    }
    return row;
  }

  private static long snapshot(String table) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("c", table))
        .currentSnapshot().snapshotId();
  }

  private static List<List<Object>> rows(String query) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement();
        ResultSet result = s.executeQuery(query)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }
}
