package io.sqe.flight.console;

import io.sqe.flight.testing.JdbcRows;
import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The console tests' users (Alice and Bob, no admins) and their JDBC statements against a test server. */
final class ConsoleUsers {
  static final String ALICE = "alice";
  static final String BOB = "bob";
  static final String PASSWORD = "a-long-enough-password";
  static final Duration WAIT = Duration.ofSeconds(30);

  private ConsoleUsers() {}

  /** Adds Alice and Bob, and s.numbers, whose self cross join runs for minutes. */
  static void prepare(TestServer server) throws Exception {
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 2_500);
    server.server().authentication().users().addUser(ALICE, PASSWORD.toCharArray(), Set.of());
    server.server().authentication().users().addUser(BOB, PASSWORD.toCharArray(), Set.of());
  }

  static Connection connect(TestServer server, String user) throws SQLException {
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
      rows.addAll(JdbcRows.of(result));
    }
    return rows;
  }
}
