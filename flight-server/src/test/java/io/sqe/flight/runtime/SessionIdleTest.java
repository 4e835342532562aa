package io.sqe.flight.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** server.session-idle-timeout through the Flight SQL JDBC driver: a session without a call ends, and its client's next call opens another. */
class SessionIdleTest {
  private static final String PASSWORD = "a-long-enough-password";

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("server.session-idle-timeout", "3s"));
    server.server().authentication().users().addUser("alice", PASSWORD.toCharArray(), Set.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void anIdleSessionEnds() throws Exception {
    try (Connection admin = connect(TestServer.ADMIN, server.adminPassword()); Connection alice = connect("alice", PASSWORD)) {
      String sessions = "select count(*) from system.runtime.sessions where \"user\" = 'alice'";
      // Asked by alice, whose call keeps her session alive: it is listed.
      assertThat(one(alice, sessions)).isEqualTo(1);
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (one(admin, sessions) > 0 && System.nanoTime() < deadline) {
        Thread.sleep(500);
      }
      assertThat(one(admin, sessions)).as("alice's session after 3s without a call").isZero();
      // Her next call opens a new session.
      assertThat(one(alice, "select 5")).isEqualTo(5);
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
