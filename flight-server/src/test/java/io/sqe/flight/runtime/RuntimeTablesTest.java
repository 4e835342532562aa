package io.sqe.flight.runtime;

import static io.sqe.flight.testing.RunningStatements.awaitRunning;
import static io.sqe.flight.testing.RunningStatements.runAsync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * system.runtime.queries and system.runtime.sessions, system.kill_query and system.kill_session,
 * through the Flight SQL JDBC driver, with two users and an admin: each user sees and stops their
 * own statements and sessions, the admin everyone's; ended statements stay listed with their
 * figures and errors.
 */
class RuntimeTablesTest {
  static final String ALICE = "alice";
  static final String BOB = "bob";
  static final String PASSWORD = "a-long-enough-password";
  /** Hundreds of millions of row pairs: runs far longer than any test waits, unless stopped. */
  static final String ENDLESS = "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("audit.file", dir.resolve("audit.log").toString()));
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 2_500);
    server.server().authentication().users().addUser(ALICE, PASSWORD.toCharArray(), Set.of());
    server.server().authentication().users().addUser(BOB, PASSWORD.toCharArray(), Set.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void anEndedQueryIsListedWithItsFiguresToItsUserAndAnAdminOnly() throws Exception {
    try (Connection alice = connect(ALICE); Connection bob = connect(BOB); Connection admin = connect(TestServer.ADMIN)) {
      String sql = "select count(*) from s.numbers where n < 1234";
      assertThat(rows(alice, sql)).containsExactly(List.of(1234L));
      String query = "select query_id, state, \"user\", query, rows, created, started, \"end\", elapsed_ms, error_code"
          + " from system.runtime.queries where query = '" + sql.replace("'", "''") + "'";
      List<Map<String, Object>> mine = records(alice, query);
      assertThat(mine).singleElement().satisfies(row -> {
        assertThat(row.get("state")).isEqualTo("FINISHED");
        assertThat(row.get("user")).isEqualTo(ALICE);
        assertThat(row.get("rows")).isEqualTo(1L);
        assertThat(row.get("started")).isNotNull();
        assertThat(row.get("end")).isNotNull();
        assertThat((Long) row.get("elapsed_ms")).isNotNegative();
        assertThat(row.get("error_code")).isNull();
      });
      assertThat(records(bob, query)).isEmpty();
      assertThat(records(admin, query)).singleElement()
          .satisfies(row -> assertThat(row.get("query_id")).isEqualTo(mine.get(0).get("query_id")));
      // Bob's own listing holds none of Alice's statements.
      assertThat(records(bob, "select \"user\" from system.runtime.queries"))
          .allSatisfy(row -> assertThat(row.get("user")).isEqualTo(BOB));
    }
  }

  @Test
  void theTimelineRunsFromArrivalToTheClosingOfTheClientsStream() throws Exception {
    try (Connection alice = connect(ALICE)) {
      String sql = "select n from s.numbers where n < 4321";
      assertThat(rows(alice, sql)).hasSize(4321);
      List<Map<String, Object>> timeline = records(alice,
          "select created, planned, started, first_batch, last_batch, \"end\", closed from system.runtime.queries"
              + " where query = '" + sql.replace("'", "''") + "'");
      assertThat(timeline).singleElement().satisfies(row -> {
        List<java.sql.Timestamp> moments = new ArrayList<>();
        for (String phase : List.of("created", "started", "first_batch", "last_batch", "end", "closed")) {
          assertThat(row.get(phase)).as(phase).isNotNull();
          moments.add((java.sql.Timestamp) row.get(phase));
        }
        assertThat(moments).as("created, started, first batch, last batch, end, closed").isSorted();
      });

      // A run that fails has no last batch; its stream is closed with the error.
      String failing = "select 10 / (n - 17) from s.numbers";
      assertThatThrownBy(() -> rows(alice, failing)).isInstanceOf(SQLException.class);
      assertThat(records(alice, "select state, last_batch, closed from system.runtime.queries"
              + " where query = '" + failing + "'")).singleElement().satisfies(row -> {
                assertThat(row.get("state")).isEqualTo("FAILED");
                assertThat(row.get("last_batch")).isNull();
                assertThat(row.get("closed")).isNotNull();
              });
    }
  }

  @Test
  void aFailedStatementIsListedWithTheErrorItsClientGot() throws Exception {
    try (Connection alice = connect(ALICE)) {
      String sql = "select * from s.no_such_table";
      assertThatThrownBy(() -> rows(alice, sql)).isInstanceOf(SQLException.class);
      List<Map<String, Object>> failed = records(alice,
          "select state, error_code, error_message from system.runtime.queries where query = '" + sql + "'");
      assertThat(failed).singleElement().satisfies(row -> {
        assertThat(row.get("state")).isEqualTo("FAILED");
        assertThat(row.get("error_code")).isEqualTo("NOT_FOUND");
        assertThat((String) row.get("error_message")).containsIgnoringCase("no_such_table");
      });
    }
  }

  @Test
  void aRunningQueryIsListedAsRunningToItsUserAndAnAdmin() throws Exception {
    try (Connection alice = connect(ALICE); Connection bob = connect(BOB); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      assertThat(records(connect(ALICE), "select query_id from system.runtime.queries where state = 'RUNNING'"))
          .anySatisfy(row -> assertThat(row.get("query_id")).isEqualTo(id));
      assertThat(records(bob, "select query_id from system.runtime.queries")).noneSatisfy(row -> assertThat(row.get("query_id")).isEqualTo(id));
      try (Statement statement = admin.createStatement()) {
        statement.execute("CALL system.cancel_query('" + id + "')");
      }
      assertThatThrownBy(endless::join).hasStackTraceContaining("CANCELLED: Query " + id + " was cancelled by admin");
      assertThat(records(admin, "select state, error_code from system.runtime.queries where query_id = '" + id + "'"))
          .singleElement().satisfies(row -> {
            assertThat(row.get("state")).isEqualTo("CANCELLED");
            assertThat(row.get("error_code")).isEqualTo("CANCELLED");
          });
    }
  }

  @Test
  void sessionsAreListedToTheirUserAndAllToAnAdmin() throws Exception {
    try (Connection alice = connect(ALICE); Connection bob = connect(BOB); Connection admin = connect(TestServer.ADMIN)) {
      rows(bob, "select 1");
      List<Map<String, Object>> mine = records(alice, "select session_id, \"user\", catalog, created, last_used from system.runtime.sessions");
      assertThat(mine).isNotEmpty().allSatisfy(row -> {
        assertThat(row.get("user")).isEqualTo(ALICE);
        assertThat(row.get("catalog")).isEqualTo("iceberg");
        assertThat(row.get("created")).isNotNull();
      });
      assertThat(records(admin, "select \"user\" from system.runtime.sessions"))
          .extracting(row -> row.get("user"))
          .contains(ALICE, BOB, TestServer.ADMIN);
    }
  }

  @Test
  void anAdminKillsAnotherUsersLongQueryAndItsClientGetsTheMessage() throws Exception {
    try (Connection alice = connect(ALICE); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      execute(admin, "CALL system.kill_query(query_id => '" + id + "', message => 'too big for the morning')");
      assertThatThrownBy(endless::join).hasStackTraceContaining("CANCELLED: Query killed. Message: too big for the morning");
      assertThat(records(alice, "select state, error_code, error_message from system.runtime.queries where query_id = '" + id + "'"))
          .singleElement().satisfies(row -> {
            assertThat(row.get("state")).isEqualTo("CANCELLED");
            assertThat(row.get("error_code")).isEqualTo("CANCELLED");
            assertThat(row.get("error_message")).isEqualTo("Query killed. Message: too big for the morning");
          });
    }
  }

  @Test
  void onlyTheOwnerOrAnAdminMayKillAQueryAndAnUnknownIdIsNotFound() throws Exception {
    try (Connection alice = connect(ALICE); Connection bob = connect(BOB); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      assertThatThrownBy(() -> execute(bob, "CALL system.kill_query('" + id + "', 'mine now')"))
          .isInstanceOf(SQLException.class)
          .hasStackTraceContaining("UNAUTHORIZED")
          .hasStackTraceContaining("belongs to another user");
      assertThatThrownBy(() -> execute(bob, "CALL system.kill_query(query_id => 'no-such-query')"))
          .hasStackTraceContaining("NOT_FOUND: Unknown query no-such-query");
      assertThatThrownBy(() -> execute(bob, "CALL system.kill_query(query => 'x')"))
          .hasStackTraceContaining("INVALID_ARGUMENT")
          .hasStackTraceContaining("has no argument 'query'");
      assertThat(endless).isNotDone();
      // Its owner may, positionally, from another connection.
      try (Connection again = connect(ALICE)) {
        execute(again, "CALL system.kill_query('" + id + "', 'my mistake')");
      }
      assertThatThrownBy(endless::join).hasStackTraceContaining("Query killed. Message: my mistake");
    }
  }

  @Test
  void killingASessionStopsItsStatementsAndEndsIt() throws Exception {
    try (Connection alice = connect(ALICE); Connection bob = connect(BOB); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      String session = (String) records(admin, "select session_id from system.runtime.queries where query_id = '" + id + "'")
          .get(0).get("session_id");
      assertThat(session).isNotNull();
      assertThat(records(admin, "select \"user\" from system.runtime.sessions where session_id = '" + session + "'"))
          .singleElement().satisfies(row -> assertThat(row.get("user")).isEqualTo(ALICE));
      assertThatThrownBy(() -> execute(bob, "CALL system.kill_session('" + session + "')"))
          .hasStackTraceContaining("belongs to another user");
      assertThatThrownBy(() -> execute(bob, "CALL system.kill_session(session_id => 'no-such-session')"))
          .hasStackTraceContaining("NOT_FOUND: Unknown session no-such-session");
      execute(admin, "CALL system.kill_session(session_id => '" + session + "', message => 'maintenance')");
      assertThatThrownBy(endless::join).hasStackTraceContaining("CANCELLED: Session killed. Message: maintenance");
      assertThat(records(admin, "select session_id from system.runtime.sessions where session_id = '" + session + "'")).isEmpty();
    }
  }

  @Test
  void aSessionsQueryTagLabelsItsStatementsInTheRuntimeTablesAndTheAuditLog() throws Exception {
    try (Connection alice = connect(ALICE)) {
      execute(alice, "SET SESSION query_tag = 'dbt:orders_daily'");
      String sql = "select count(*) from s.numbers where n < 77";
      assertThat(rows(alice, sql)).containsExactly(List.of(77L));
      Map<String, Object> query = records(alice,
          "select query_id, query_tag from system.runtime.queries where query = '" + sql + "'").get(0);
      assertThat(query.get("query_tag")).isEqualTo("dbt:orders_daily");
      assertThat(records(alice, "select query_tag from system.runtime.sessions"))
          .anySatisfy(row -> assertThat(row.get("query_tag")).isEqualTo("dbt:orders_daily"));
      String line = awaitAuditLine((String) query.get("query_id"));
      assertThat(line).contains("\"query_tag\":\"dbt:orders_daily\"");

      assertThatThrownBy(() -> execute(alice, "SET SESSION query_tag = '" + "x".repeat(300) + "'"))
          .hasStackTraceContaining("INVALID_ARGUMENT")
          .hasStackTraceContaining("at most 256 characters");
      execute(alice, "RESET query_tag");
      String untagged = "select count(*) from s.numbers where n < 78";
      rows(alice, untagged);
      assertThat(records(alice, "select query_tag from system.runtime.queries where query = '" + untagged + "'"))
          .singleElement().satisfies(row -> assertThat(row.get("query_tag")).isNull());
    }
  }

  /** The audit log's line for a statement, waiting for the log's writer. */
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

  // ---- helpers, shared with the other tests of this package

  static Connection connect(String user) throws SQLException {
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static TestServer server() {
    return server;
  }

  static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    for (Map<String, Object> record : records(connection, sql)) {
      rows.add(new ArrayList<>(record.values()));
    }
    return rows;
  }

  static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  static List<Map<String, Object>> records(Connection connection, String sql) throws SQLException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
      ResultSetMetaData meta = result.getMetaData();
      while (result.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          // The Flight SQL JDBC driver's getObject does not read TIMESTAMP WITH TIME ZONE.
          row.put(meta.getColumnLabel(i),
              meta.getColumnType(i) == Types.TIMESTAMP_WITH_TIMEZONE ? result.getTimestamp(i) : result.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
