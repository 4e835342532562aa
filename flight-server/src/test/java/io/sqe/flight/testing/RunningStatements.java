package io.sqe.flight.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Statements left running in the background, and their ids as system.runtime.queries shows them. */
public final class RunningStatements {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private RunningStatements() {}

  /** Runs {@code sql} on another thread, reading its rows to the end. */
  public static CompletableFuture<Void> runAsync(Connection connection, String sql) {
    return CompletableFuture.runAsync(() -> {
      try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
        while (result.next()) {
          // Read to the end, as a client would.
        }
      } catch (SQLException e) {
        throw new RuntimeException(e);
      }
    });
  }

  /** The id of the running statement with that text, waiting for it to run. */
  public static String awaitRunning(Connection admin, String sql) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String query = "select query_id from system.runtime.queries where state = 'RUNNING' and query = '" + sql.replace("'", "''") + "'";
    while (System.nanoTime() < deadline) {
      try (Statement statement = admin.createStatement(); ResultSet result = statement.executeQuery(query)) {
        if (result.next()) {
          return result.getString(1);
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("No statement running within " + WAIT + ": " + sql);
  }
}
