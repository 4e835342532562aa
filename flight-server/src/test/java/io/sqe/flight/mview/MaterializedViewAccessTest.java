package io.sqe.flight.mview;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may make and read a materialized view under an access policy, and what a refresh tells.
 * Materialized views run with the reader's rights, as SQE's views do: a reader needs SELECT on the
 * view and on its sources; the storage table answers only readers whose access to every source is
 * unrestricted, and the others read the query under their own row filters. A user whose access to
 * a source is restricted cannot store its rows.
 */
class MaterializedViewAccessTest {
  private static final String PASSWORD = "a-long-enough-password";
  private static final String QUERY = "SELECT region, sum(amount) AS total FROM c.sales GROUP BY region";
  private static final String STORAGE_SCAN = "SqeTableScan(table=[[iceberg, c, totals]]";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, """
        {
          "schemas": [
            {"role": "admin", "owner": true},
            {"role": "analyst", "schema": "c", "owner": true},
            {"role": "reader", "schema": "c", "owner": false},
            {"role": "full", "schema": "c", "owner": false}
          ],
          "tables": [
            {"role": "admin", "privileges": ["OWNERSHIP"]},
            {"role": "analyst", "schema": "c", "table": "sales", "privileges": ["SELECT"], "filter": "region = 'EU'"},
            {"role": "analyst", "schema": "c", "privileges": ["OWNERSHIP"]},
            {"role": "reader", "schema": "c", "table": "totals", "privileges": ["SELECT"]},
            {"role": "full", "schema": "c", "table": "totals", "privileges": ["SELECT"]},
            {"role": "full", "schema": "c", "table": "sales", "privileges": ["SELECT"]}
          ]
        }
        """);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of("analyst"));
    server.server().authentication().users().addUser("bob", PASSWORD.toCharArray(), Set.of("reader"));
    server.server().authentication().users().addUser("carol", PASSWORD.toCharArray(), Set.of("full"));
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @Test
  void readersGetTheirOwnRowsAndARefreshSaysWhetherItRewrote() throws Exception {
    TrailerCapture trailers = new TrailerCapture();
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.sales (region VARCHAR, amount BIGINT)", admin);
      sql.executeUpdate("INSERT INTO c.sales VALUES ('EU', 10), ('EU', 2), ('US', 7), ('APAC', 1)", admin);
      assertThat(sql.executeUpdate("CREATE MATERIALIZED VIEW c.totals AS " + QUERY, admin)).isEqualTo(3);

      assertThat(sql.executeUpdate("REFRESH MATERIALIZED VIEW c.totals", admin)).isEqualTo(3);
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "reused").containsEntry("x-sqe-materialization-reason", "unchanged");
      sql.executeUpdate("INSERT INTO c.sales VALUES ('LATAM', 4)", admin);
      assertThat(sql.executeUpdate("REFRESH MATERIALIZED VIEW c.totals", admin)).isEqualTo(4);
      // Only an append since: the new rows' groups are merged in.
      assertThat(trailers.lastDoPut())
          .containsEntry("x-sqe-materialization", "refreshed")
          .containsEntry("x-sqe-materialization-reason", "incremental");
      assertThat(trailers.lastDoPut().get("x-sqe-materialization-detail")).contains("iceberg.c.sales");
      sql.executeUpdate("DELETE FROM c.sales WHERE region = 'LATAM'", admin);
      assertThat(sql.executeUpdate("REFRESH MATERIALIZED VIEW c.totals", admin)).isEqualTo(3);
      // The new rows may also change the plan (its statistics): either reason is a rebuild.
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "rebuilt");
      assertThat(trailers.lastDoPut().get("x-sqe-materialization-reason")).isIn("input_changed", "plan_changed");
      assertThat(trailers.lastDoPut().get("x-sqe-materialization-detail")).contains("rewritten in full: iceberg.c.sales had a commit that is not an append");

      // carol reads every row of sales: the storage table answers her.
      CallOption carol = flight.authenticateBasicToken("carol", PASSWORD).orElseThrow();
      assertThat(rows(sql, "EXPLAIN SELECT * FROM c.totals", carol).toString()).contains(STORAGE_SCAN);
      assertThat(rows(sql, "SELECT * FROM c.totals ORDER BY region", carol)).isEqualTo(rows(sql, QUERY + " ORDER BY region", admin));

      // alice sees only EU rows of sales: she reads the query, under her row filter.
      CallOption alice = flight.authenticateBasicToken("alice", PASSWORD).orElseThrow();
      assertThat(rows(sql, "EXPLAIN SELECT * FROM c.totals", alice).toString()).doesNotContain(STORAGE_SCAN)
          .contains("its query (the user's access to iceberg.c.sales is restricted)");
      assertThat(rows(sql, "SELECT * FROM c.totals", alice)).containsExactly(List.of("EU", 12L));

      // bob may read the view but not sales.
      CallOption bob = flight.authenticateBasicToken("bob", PASSWORD).orElseThrow();
      assertThatThrownBy(() -> rows(sql, "SELECT * FROM c.totals", bob))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code())
              .as(e.getMessage()).isIn(FlightStatusCode.UNAUTHORIZED, FlightStatusCode.NOT_FOUND));
      assertThatThrownBy(() -> sql.executeUpdate("REFRESH MATERIALIZED VIEW c.totals", bob))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code())
              .as(e.getMessage()).isEqualTo(FlightStatusCode.UNAUTHORIZED));

      // alice's rows of sales are filtered: she cannot store them for others.
      assertThatThrownBy(() -> sql.executeUpdate("CREATE MATERIALIZED VIEW c.mine AS " + QUERY, alice))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
            assertThat(e.getMessage()).contains("cannot materialize iceberg.c.sales");
          });
    }
  }

  private static List<List<Object>> rows(FlightSqlClient sql, String query, CallOption auth) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    var info = sql.execute(query, auth);
    try (var stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      while (stream.next()) {
        var root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value == null ? null : value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }
}
