package io.sqe.flight.reuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TrailerCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reused materialization tells: the update's trailers, the audit line and /metrics say
 * "reused" or "rebuilt" and why; and a change to the writer's access policy (a row filter) makes
 * the statement run again, since the rows it may read changed.
 */
class MaterializationReuseReportTest {
  private static final String PASSWORD = "a-long-enough-password";
  private static final String MODEL = "CREATE OR REPLACE TABLE c.eu AS SELECT region, sum(amount) AS total FROM c.sales GROUP BY region";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static Path policy;

  @BeforeAll
  static void start() throws Exception {
    policy = dir.resolve("rules.json");
    writePolicy("region = 'EU'");
    server = TestServer.start(
        dir.resolve("data"), Map.of(
            "security.policy-file", policy.toString(),
            "security.refresh-period", "1ms",
            "audit.file", dir.resolve("audit.jsonl").toString()));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of("analyst"));
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @Test
  void trailersAuditAndMetricsSayReusedAndWhy() throws Exception {
    double reusedBefore = metric("sqe_materializations_reused_total{reason=\"unchanged\"}");
    double changedBefore = metric("sqe_materializations_rebuilt_total{reason=\"input_changed\"}");
    TrailerCapture trailers = new TrailerCapture();
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.sales (region VARCHAR, amount BIGINT)", admin);
      sql.executeUpdate("INSERT INTO c.sales VALUES ('EU', 10), ('US', 7)", admin);

      String model = "CREATE OR REPLACE TABLE c.report AS SELECT region, amount FROM c.sales";
      assertThat(sql.executeUpdate(model, admin)).isEqualTo(2);
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "rebuilt").containsEntry("x-sqe-materialization-reason", "new_table");
      assertThat(sql.executeUpdate(model, admin)).isEqualTo(2);
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "reused").containsEntry("x-sqe-materialization-reason", "unchanged");
      sql.executeUpdate("INSERT INTO c.sales VALUES ('US', 1)", admin);
      assertThat(trailers.lastDoPut()).doesNotContainKey("x-sqe-materialization");
      // Its source only had an append: the rows appended are added, the others kept.
      assertThat(sql.executeUpdate(model, admin)).isEqualTo(3);
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "refreshed").containsEntry("x-sqe-materialization-reason", "incremental");
      assertThat(trailers.lastDoPut().get("x-sqe-materialization-detail")).startsWith("rows appended to iceberg.c.sales after snapshot ");
      // A delete is no append: the table is written again.
      sql.executeUpdate("DELETE FROM c.sales WHERE amount = 7", admin);
      assertThat(sql.executeUpdate(model, admin)).isEqualTo(2);
      assertThat(trailers.lastDoPut()).containsEntry("x-sqe-materialization", "rebuilt").containsEntry("x-sqe-materialization-reason", "input_changed");
      assertThat(trailers.lastDoPut().get("x-sqe-materialization-detail")).contains("iceberg.c.sales");
    }

    assertThat(metric("sqe_materializations_reused_total{reason=\"unchanged\"}")).isEqualTo(reusedBefore + 1);
    assertThat(metric("sqe_materializations_rebuilt_total{reason=\"input_changed\"}")).isEqualTo(changedBefore + 1);

    assertThat(auditLines()).anySatisfy(line ->
        assertThat(line).contains("\"materialization\":{\"reused\":true,\"reason\":\"unchanged\""));
  }

  @Test
  void aStatementSentAsAQueryIsCountedAndItsCountCarriesTheTrailers() throws Exception {
    // ADBC and dbt send CREATE OR REPLACE TABLE ... AS as a query: it runs at GetFlightInfo.
    TrailerCapture trailers = new TrailerCapture();
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.sent (id BIGINT)", admin);
      sql.executeUpdate("INSERT INTO c.sent VALUES (1), (2)", admin);
      String model = "CREATE OR REPLACE TABLE c.sent_copy AS SELECT id FROM c.sent";
      sql.execute(model, admin);
      double before = metric("sqe_materializations_reused_total{reason=\"unchanged\"}");
      long built = snapshot("sent_copy");
      FlightInfo info = sql.execute(model, admin);
      assertThat(snapshot("sent_copy")).isEqualTo(built);
      // Its count's DoGet carries the trailers.
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), admin)) {
        while (stream.next()) {
          assertThat(stream.getRoot().getRowCount()).isEqualTo(1);
        }
      }
      assertThat(trailers.lastDoGet()).containsEntry("x-sqe-materialization", "reused");
      assertThat(metric("sqe_materializations_reused_total{reason=\"unchanged\"}")).isEqualTo(before + 1);
    }
  }

  @Test
  void aChangedRowFilterOfTheWriterRunsItAgain() throws Exception {
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      sql.executeUpdate("CREATE SCHEMA IF NOT EXISTS c", admin);
      sql.executeUpdate("CREATE OR REPLACE TABLE c.sales (region VARCHAR, amount BIGINT)", admin);
      sql.executeUpdate("INSERT INTO c.sales VALUES ('EU', 10), ('EU', 2), ('US', 7), ('APAC', 1)", admin);
      CallOption alice = flight.authenticateBasicToken("alice", PASSWORD).orElseThrow();

      assertThat(sql.executeUpdate(MODEL, alice)).isEqualTo(1);
      long built = snapshot("eu");
      assertThat(sql.executeUpdate(MODEL, alice)).isEqualTo(1);
      assertThat(snapshot("eu")).isEqualTo(built);

      writePolicy("region IN ('EU', 'US')");
      assertThat(sql.executeUpdate(MODEL, alice)).isEqualTo(2);
      assertThat(snapshot("eu")).isNotEqualTo(built);
    }
  }

  private static double metric(String name) throws Exception {
    return server.metric(name);
  }

  private static long snapshot(String table) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("c", table))
        .currentSnapshot().snapshotId();
  }

  private static List<String> auditLines() throws Exception {
    // The log writes on a thread of its own; a line may take a moment to reach the file.
    for (int i = 0; i < 100; i++) {
      List<String> lines = Files.readAllLines(dir.resolve("audit.jsonl"));
      if (lines.stream().anyMatch(l -> l.contains("\"materialization\":{\"reused\":true"))) {
        return lines;
      }
      Thread.sleep(50);
    }
    return Files.readAllLines(dir.resolve("audit.jsonl"));
  }

  private static void writePolicy(String filter) throws Exception {
    String rules = """
        {
          "schemas": [{"role": "admin", "owner": true}, {"role": "analyst", "schema": "c", "owner": true}],
          "tables": [
            {"role": "admin", "privileges": ["OWNERSHIP"]},
            {"role": "analyst", "schema": "c", "table": "sales", "privileges": ["SELECT"], "filter": "%s"},
            {"role": "analyst", "schema": "c", "privileges": ["OWNERSHIP"]}
          ]
        }
        """.formatted(filter);
    boolean existed = Files.exists(policy);
    FileTime before = existed ? Files.getLastModifiedTime(policy) : null;
    Files.writeString(policy, rules);
    if (before != null) {
      // The server reloads the file when its time or size changes; make sure the time does.
      Files.setLastModifiedTime(policy, FileTime.from(Instant.now().plusSeconds(5)));
    }
  }
}
