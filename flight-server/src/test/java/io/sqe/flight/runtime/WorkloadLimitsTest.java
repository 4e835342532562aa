package io.sqe.flight.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission queue through the Flight SQL JDBC driver, on a server that runs two statements at
 * once and two per user: a third waits in state QUEUED until a place frees or its queue timeout
 * passes, a user's third is refused at once, and an admin's statements never wait.
 */
class WorkloadLimitsTest {
  private static final String PASSWORD = "a-long-enough-password";
  private static final String ENDLESS = RuntimeTablesTest.ENDLESS;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of(
        "server.max-running-statements", "2",
        "server.max-running-statements-per-user", "2",
        "server.queue-timeout", "15s"));
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 2_500);
    for (String user : List.of("alice", "bob")) {
      server.server().authentication().users().addUser(user, PASSWORD.toCharArray(), Set.of());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void aThirdStatementWaitsAsQueuedUntilAPlaceFrees() throws Exception {
    try (Connection alice1 = connect("alice"); Connection alice2 = connect("alice"); Connection bob = connect("bob");
        Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Long> first = count(alice1, ENDLESS);
      CompletableFuture<Long> second = count(alice2, ENDLESS);
      List<String> running = awaitStates(admin, ENDLESS, "RUNNING", 2);
      // Alice's third is over her limit: refused at once, not queued.
      try (Connection alice3 = connect("alice")) {
        assertThatThrownBy(() -> count(alice3, "select count(*) from s.numbers").join())
            .hasStackTraceContaining("RESOURCE_EXHAUSTED")
            .hasStackTraceContaining("server.max-running-statements-per-user");
      }
      String third = "select count(*) from s.numbers where n < 500";
      CompletableFuture<Long> queued = count(bob, third);
      awaitStates(admin, third, "QUEUED", 1);
      assertThat(queued).isNotDone();
      execute(admin, "CALL system.kill_query('" + running.get(0) + "', 'make room')");
      assertThat(queued.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(500L);
      execute(admin, "CALL system.kill_query('" + running.get(1) + "', 'done')");
      assertThatThrownBy(first::join).hasStackTraceContaining("Query killed");
      assertThatThrownBy(second::join).hasStackTraceContaining("Query killed");
    }
  }

  @Test
  void aStatementQueuedPastTheQueueTimeoutIsRefused() throws Exception {
    try (Connection alice1 = connect("alice"); Connection alice2 = connect("alice"); Connection bob = connect("bob");
        Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Long> first = count(alice1, ENDLESS);
      CompletableFuture<Long> second = count(alice2, ENDLESS);
      List<String> running = awaitStates(admin, ENDLESS, "RUNNING", 2);
      assertThatThrownBy(() -> count(bob, "select count(*) from s.numbers where n < 600").get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .hasStackTraceContaining("RESOURCE_EXHAUSTED")
          .hasStackTraceContaining("was queued for 15s");
      for (String id : running) {
        execute(admin, "CALL system.kill_query('" + id + "')");
      }
      assertThatThrownBy(first::join).hasStackTraceContaining("Query killed");
      assertThatThrownBy(second::join).hasStackTraceContaining("Query killed");
    }
  }

  private static Connection connect(String user) throws SQLException {
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** Runs a query of one count on another thread. */
  private static CompletableFuture<Long> count(Connection connection, String sql) {
    return CompletableFuture.supplyAsync(() -> {
      try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
        result.next();
        return result.getLong(1);
      } catch (SQLException e) {
        throw new RuntimeException(e);
      }
    });
  }

  /** The ids of {@code count} statements with that text in that state, waiting for them. */
  private static List<String> awaitStates(Connection admin, String sql, String state, int count) throws Exception {
    String query = "select query_id from system.runtime.queries where state = '" + state + "' and query = '"
        + sql.replace("'", "''") + "' order by created";
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> ids = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      ids.clear();
      try (Statement statement = admin.createStatement(); ResultSet result = statement.executeQuery(query)) {
        while (result.next()) {
          ids.add(result.getString(1));
        }
      }
      if (ids.size() >= count) {
        return List.copyOf(ids);
      }
      Thread.sleep(50);
    }
    throw new AssertionError(count + " statements " + state + " expected within " + WAIT + ", saw " + ids + ": " + sql);
  }
}
