package io.sqe.flight.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** server.max-sessions through the Flight SQL JDBC driver: a session past the limit is refused, a killed one frees its place. */
class SessionLimitTest {
  private static final String PASSWORD = "a-long-enough-password";

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("server.max-sessions", "2"));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of());
    server.server().authentication().users().addUser("bob", PASSWORD.toCharArray(), Set.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void aSessionPastTheLimitIsRefusedUntilOneEnds() throws Exception {
    try (Connection admin = connect(TestServer.ADMIN, server.adminPassword()); Connection alice = connect("alice", PASSWORD);
        Connection bob = connect("bob", PASSWORD)) {
      assertThat(one(admin, "select 1")).isEqualTo(1);
      assertThat(one(alice, "select 2")).isEqualTo(2);
      assertThatThrownBy(() -> one(bob, "select 3"))
          .isInstanceOf(SQLException.class)
          .hasStackTraceContaining("RESOURCE_EXHAUSTED")
          .hasStackTraceContaining("server.max-sessions");
      String aliceSession;
      try (Statement statement = admin.createStatement();
          ResultSet result = statement.executeQuery("select session_id from system.runtime.sessions where \"user\" = 'alice'")) {
        assertThat(result.next()).isTrue();
        aliceSession = result.getString(1);
      }
      try (Statement statement = admin.createStatement()) {
        statement.execute("CALL system.kill_session('" + aliceSession + "')");
      }
      assertThat(one(bob, "select 3")).isEqualTo(3);
    }
  }

  private static Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  private static int one(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getInt(1);
    }
  }
}
