package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino's client tags and source (the JDBC driver's {@code clientTags} and {@code source}, sent as
 * {@code X-Trino-Client-Tags} and {@code X-Trino-Source}) label a statement in
 * system.runtime.queries and the audit log, as the session property query_tag does on Flight SQL.
 */
class TrinoQueryTagsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static TrinoFixture trino;

  @BeforeAll
  static void start() throws Exception {
    trino = TrinoFixture.start(dir, Map.of("audit.file", dir.resolve("audit.log").toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    trino.close();
  }

  @Test
  void clientTagsAndSourceLabelTheStatement() throws Exception {
    Map<String, String> labels = Map.of("clientTags", "nightly,finance", "source", "superset");
    try (Connection connection = trino.connect(TestServer.ADMIN, trino.server().adminPassword(), labels);
        Statement statement = connection.createStatement()) {
      String sql = "SELECT 4242";
      try (ResultSet result = statement.executeQuery(sql)) {
        assertThat(result.next()).isTrue();
      }
      try (ResultSet result = statement.executeQuery(
          "SELECT query_id, source, query_tag FROM system.runtime.queries WHERE query = '" + sql + "'")) {
        assertThat(result.next()).isTrue();
        assertThat(result.getString("source")).isEqualTo("superset");
        assertThat(result.getString("query_tag")).isEqualTo("nightly,finance");
        String line = awaitAuditLine(result.getString("query_id"));
        assertThat(line).contains("\"query_tag\":\"nightly,finance\"");
      }
    }
  }

  @Test
  void theSessionPropertyWinsOverClientTagsAndABadTagIsRefused() throws Exception {
    Map<String, String> labels = Map.of("clientTags", "nightly", "sessionProperties", "query_tag:dbt-run-7");
    try (Connection connection = trino.connect(TestServer.ADMIN, trino.server().adminPassword(), labels);
        Statement statement = connection.createStatement()) {
      String sql = "SELECT 4343";
      statement.executeQuery(sql).close();
      try (ResultSet result = statement.executeQuery(
          "SELECT query_tag FROM system.runtime.queries WHERE query = '" + sql + "'")) {
        assertThat(result.next()).isTrue();
        assertThat(result.getString("query_tag")).isEqualTo("dbt-run-7");
      }
      assertThatThrownBy(() -> statement.execute("SET SESSION query_tag = '" + "y".repeat(300) + "'"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("at most 256 characters");
    }
  }

  private static String awaitAuditLine(String queryId) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      for (String line : Files.readAllLines(dir.resolve("audit.log"))) {
        if (line.contains("\"query_id\":\"" + queryId + "\"")) {
          return line;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("No audit line for " + queryId + " within " + WAIT);
  }
}
