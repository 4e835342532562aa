package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import io.sqe.flight.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Runs statements against a real server through real clients, each with a client deadline of the
 * statement timeout plus a grace period, and says how each ended ({@link Outcome}). Every value
 * of every result is read, so an answer the client cannot decode is seen too.
 */
final class StatementRunner implements AutoCloseable {
  /** How a statement is sent. */
  enum Path { FLIGHT, PREPARED, JDBC }

  private static final Pattern JDBC_STATUS = Pattern.compile("FlightRuntimeException: ([A-Z_]+): (.*)", Pattern.DOTALL);

  private final TestServer server;
  private final Duration deadline;
  private final TestServer.Client client;
  private final TestServer.Client sessionClient;
  private ExecutorService jdbcThread = jdbcThread();
  private volatile Connection jdbc;

  StatementRunner(TestServer server, BufferAllocator allocator, Duration deadline) {
    this.server = requireNonNull(server, "server is null");
    this.deadline = requireNonNull(deadline, "deadline is null");
    this.client = server.client(allocator);
    this.sessionClient = server.client(allocator);
  }

  /** Runs {@code sql} through {@code path}; {@code update} sends it as an update, else as a query. */
  Outcome run(String sql, boolean update, Path path) {
    return switch (path) {
      case FLIGHT -> flight(client, sql, update, false);
      case PREPARED -> flight(client, sql, update, true);
      case JDBC -> jdbc(sql);
    };
  }

  /** Runs {@code sql} as a query in a session of its own, where session statements go. */
  Outcome inOtherSession(String sql) {
    return flight(sessionClient, sql, false, false);
  }

  private Outcome flight(TestServer.Client on, String sql, boolean update, boolean prepared) {
    long start = System.nanoTime();
    CallOption timeout = CallOptions.timeout(deadline.toMillis(), TimeUnit.MILLISECONDS);
    try {
      if (prepared) {
        FlightSqlClient.PreparedStatement statement = on.sql().prepare(sql, on.auth(), timeout);
        try {
          if (update) {
            statement.executeUpdate(on.auth(), timeout);
          } else {
            read(on, statement.execute(on.auth(), timeout), timeout);
          }
        } finally {
          // close() without options would send ClosePreparedStatement without credentials.
          statement.close(on.auth(), timeout);
        }
      } else if (update) {
        on.sql().executeUpdate(sql, on.auth(), timeout);
      } else {
        read(on, on.sql().execute(sql, on.auth(), timeout), timeout);
      }
      return late(Outcome.ok(since(start)));
    } catch (FlightRuntimeException e) {
      return late(flightError(e, since(start)));
    } catch (RuntimeException e) {
      return clientError(e, since(start));
    }
  }

  private static void read(TestServer.Client on, FlightInfo info, CallOption timeout) {
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = on.sql().getStream(endpoint.getTicket(), on.auth(), timeout)) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          for (FieldVector vector : root.getFieldVectors()) {
            for (int row = 0; row < root.getRowCount(); row++) {
              vector.getObject(row);
            }
          }
        }
      } catch (FlightRuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException("Reading the result failed: " + e, e);
      }
    }
  }

  private Outcome flightError(FlightRuntimeException e, Duration elapsed) {
    FlightStatusCode code = e.status().code();
    if (code == FlightStatusCode.TIMED_OUT && !String.valueOf(e.status().description()).contains("statement timeout")) {
      // gRPC's own deadline, not the server's statement timeout: the statement did not end in time.
      return new Outcome(Outcome.CLIENT_DEADLINE, e.getMessage(), elapsed);
    }
    return new Outcome(code.name(), e.status().description(), elapsed);
  }

  /** A statement that answered only after its deadline counts as one that did not answer. */
  private Outcome late(Outcome outcome) {
    if (outcome.elapsed().compareTo(deadline) > 0 && !outcome.isFailure()) {
      return new Outcome(Outcome.CLIENT_DEADLINE, "answered " + outcome.code() + " after " + outcome.elapsed().toMillis()
          + " ms: " + outcome.message(), outcome.elapsed());
    }
    return outcome;
  }

  private Outcome jdbc(String sql) {
    long start = System.nanoTime();
    Future<Outcome> running = jdbcThread.submit(() -> jdbcStatement(sql, start));
    try {
      return late(running.get(deadline.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      // The thread may stay stuck in the driver: the next statements get a new thread and connection.
      running.cancel(true);
      jdbcThread.shutdownNow();
      jdbcThread = jdbcThread();
      closeJdbc();
      return new Outcome(Outcome.CLIENT_DEADLINE, "no answer through JDBC within " + deadline.toMillis() + " ms", since(start));
    } catch (ExecutionException e) {
      return clientError(e.getCause(), since(start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Outcome jdbcStatement(String sql, long start) throws SQLException {
    if (jdbc == null) {
      jdbc = DriverManager.getConnection(server.jdbcUrl() + "&user=" + TestServer.ADMIN + "&password=" + server.adminPassword());
    }
    try (java.sql.Statement statement = jdbc.createStatement()) {
      if (statement.execute(sql)) {
        try (ResultSet rows = statement.getResultSet()) {
          int columns = rows.getMetaData().getColumnCount();
          while (rows.next()) {
            for (int c = 1; c <= columns; c++) {
              read(rows, c);
            }
          }
        }
      }
      return Outcome.ok(since(start));
    } catch (SQLException e) {
      for (Throwable cause = e; cause != null; cause = cause.getCause()) {
        Matcher status = JDBC_STATUS.matcher(cause.toString());
        if (status.find()) {
          String code = status.group(1);
          if (code.equals("TIMED_OUT") && !status.group(2).contains("statement timeout")) {
            return new Outcome(Outcome.CLIENT_DEADLINE, status.group(2), since(start));
          }
          return new Outcome(code, status.group(2), since(start));
        }
        if (cause.getCause() == cause) {
          break;
        }
      }
      return clientError(e, since(start));
    }
  }

  /** An answer the client could not use: the stack goes to the output, as it shows where. */
  private static Outcome clientError(Throwable e, Duration elapsed) {
    e.printStackTrace(System.out);
    return new Outcome(Outcome.CLIENT_ERROR, e.toString(), elapsed);
  }

  /**
   * Reads a value as getObject does; the driver's getObject throws "not implemented" for some
   * types (TIMESTAMP WITH TIME ZONE, intervals: docs/clients.md), whose text getString gives.
   */
  private static void read(ResultSet rows, int column) throws SQLException {
    try {
      rows.getObject(column);
    } catch (RuntimeException e) {
      if (!"not implemented".equals(e.getMessage())) {
        throw e;
      }
      rows.getString(column);
    }
  }

  private void closeJdbc() {
    try {
      if (jdbc != null) {
        jdbc.close();
      }
    } catch (SQLException | RuntimeException e) {
      // The connection of a statement that hung may be unusable; a new one is made next time.
    }
    jdbc = null;
  }

  private static ExecutorService jdbcThread() {
    return Executors.newSingleThreadExecutor(task -> {
      Thread thread = new Thread(task, "fuzz-jdbc");
      thread.setDaemon(true);
      return thread;
    });
  }

  private static Duration since(long start) {
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Override
  public void close() throws Exception {
    jdbcThread.submit(this::closeJdbc).get(10, TimeUnit.SECONDS);
    jdbcThread.shutdownNow();
    sessionClient.close();
    client.close();
  }
}
