package io.sqe.engine.offload;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.plan.offload.TrinoStatements;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.linq4j.Enumerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs offloaded statements on the Trino cluster through Trino's JDBC driver as the service user,
 * and hands their rows on one at a time, as SQE's row runtime represents them, so the result is
 * turned into Arrow batches as it arrives and never held whole. Cancelling the statement's run
 * cancels the query on Trino; a failure of the cluster is UNAVAILABLE (RESOURCE_EXHAUSTED when it
 * ran out of memory or time), naming it, or, with {@code offload.fallback} and before Trino sent a
 * row, a run here.
 */
public final class TrinoOffload {
  private static final Logger LOG = LoggerFactory.getLogger(TrinoOffload.class);
  /**
   * How long Trino's JDBC client retries one request to a coordinator that does not answer before
   * it fails the query (its connection's network timeout, which it takes as its client request
   * timeout). Its default, two minutes, kept a client waiting that long after the coordinator
   * died; a live coordinator answers each poll of a running query within about a second.
   */
  private static final int REQUEST_TIMEOUT_MILLIS = 20_000;
  /**
   * Trino's error codes of errors in a statement's data: GENERIC_USER_ERROR, INVALID_FUNCTION_ARGUMENT,
   * DIVISION_BY_ZERO, INVALID_CAST_ARGUMENT, CONSTRAINT_VIOLATION, NUMERIC_VALUE_OUT_OF_RANGE and
   * SUBQUERY_MULTIPLE_ROWS (its {@code StandardErrorCode}).
   */
  private static final Set<Integer> DATA_ERRORS = Set.of(0, 7, 8, 9, 16, 19, 28);

  private final OffloadConfig config;

  public TrinoOffload(OffloadConfig config) {
    this.config = requireNonNull(config, "config is null");
    config.trinoUri().orElseThrow(() -> new IllegalArgumentException("No Trino cluster is configured"));
  }

  public OffloadConfig config() {
    return config;
  }

  /** What EXPLAIN and the statement's trailers say about where it runs. */
  public String where() {
    return "offloaded to trino " + config.trinoUri().orElseThrow();
  }

  /**
   * Starts {@code sql} on Trino and returns its rows with the types of {@code schema}, recording
   * in {@code run}'s statistics that they come from the cluster; the enumerator's close ends the
   * query there. When the cluster cannot be reached, runs out of resources or fails before its
   * first row, and {@code offload.fallback} allows it, returns the rows of {@code local} instead
   * (the same query run here), and the statistics say it ran here; otherwise that failure is
   * UNAVAILABLE or RESOURCE_EXHAUSTED (or, for an error of the statement itself, INVALID_ARGUMENT,
   * which never falls back).
   */
  public Enumerator<Object> rows(TrinoStatements.Statement sql, Schema schema, QueryRun run, Supplier<Enumerator<Object>> local) {
    Enumerator<Object> rows;
    try {
      rows = rows(sql, schema, run);
    } catch (SqeException e) {
      return fallBack(e, run, local);
    }
    run.stats().offloadedTo(config.trinoUri().orElseThrow());
    return config.fallback() ? new UntilFirstRow(rows, run, local) : rows;
  }

  /** {@code local}'s rows when {@code failure} allows a fallback; else {@code failure}. */
  private Enumerator<Object> fallBack(SqeException failure, QueryRun run, Supplier<Enumerator<Object>> local) {
    if (!fallsBack(failure)) {
      throw failure;
    }
    // The cause's message may quote the statement's literals; the log names the cluster only.
    LOG.warn("Query {} runs here: the Trino cluster {} failed before sending a row (offload.fallback)",
        run.queryId(), config.trinoUri().orElseThrow());
    run.stats().offloadedTo(null);
    return local.get();
  }

  /**
   * Whether {@code offload.fallback} runs here a statement the cluster failed with {@code failure}:
   * the cluster down or failing (UNAVAILABLE), or short of the memory or time the statement needs
   * (RESOURCE_EXHAUSTED: a cluster's limits are its own, and SQE spills what its memory cannot
   * hold); never an error of the statement itself, which would be the same here.
   */
  private boolean fallsBack(SqeException failure) {
    return config.fallback() && (failure.code() == ErrorCode.UNAVAILABLE || failure.code() == ErrorCode.RESOURCE_EXHAUSTED);
  }

  private Enumerator<Object> rows(TrinoStatements.Statement sql, Schema schema, QueryRun run) {
    Connection connection = null;
    try {
      connection = connect();
      Statement statement = connection.createStatement();
      run.onCancel(() -> cancel(statement));
      ResultSet rows = statement.executeQuery(sql.sql());
      return new Rows(connection, rows, schema.getFields(), sql.resultColumns(), run, this);
    } catch (SQLException e) {
      closeQuietly(connection);
      run.checkCancelled();
      throw unavailable(e);
    }
  }

  /**
   * Runs {@code sql}, an INSERT or CREATE TABLE ... AS whose Iceberg commit Trino makes, as the
   * service user, and returns its update count, recording in {@code run}'s statistics that it ran
   * on the cluster; cancelling {@code run} cancels it there. When the cluster fails, {@code
   * offload.fallback} allows it and {@code unchanged} says the target is still as it was (Trino
   * committed nothing), returns empty: the write then runs here. Otherwise the failure names the
   * cluster: INVALID_ARGUMENT for an error of the statement, else as {@link #unavailable} says.
   */
  public OptionalLong write(String sql, QueryRun run, BooleanSupplier unchanged) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      run.onCancel(() -> cancel(statement));
      long count = statement.executeLargeUpdate(sql);
      run.stats().offloadedTo(config.trinoUri().orElseThrow());
      return OptionalLong.of(count);
    } catch (SQLException e) {
      run.checkCancelled();
      SqeException failure = unavailable(e, "write");
      if (fallsBack(failure) && unchanged.getAsBoolean()) {
        // The cause's message may quote the statement's literals; the log names the cluster only.
        LOG.warn("Write {} runs here: the Trino cluster {} failed and committed nothing (offload.fallback)",
            run.queryId(), config.trinoUri().orElseThrow());
        return OptionalLong.empty();
      }
      throw failure;
    }
  }

  /** A connection to the cluster as the service user, whose requests give up on a coordinator that stops answering. */
  private Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", config.user());
    properties.setProperty("source", "sqe");
    Connection connection = DriverManager.getConnection(config.jdbcUrl(), properties);
    try {
      connection.setNetworkTimeout(Runnable::run, REQUEST_TIMEOUT_MILLIS);
      return connection;
    } catch (SQLException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  SqeException unavailable(SQLException e) {
    return unavailable(e, "query");
  }

  /**
   * The status of a failure on the cluster. Trino's JDBC driver gives an error the query raised as
   * a "Query failed" exception with Trino's error code. An error of the statement's data (Trino's
   * {@link #DATA_ERRORS}: a division by zero, a failed cast, a value out of range, a scalar
   * sub-query of several rows) would be the same here, so it is INVALID_ARGUMENT and never a reason
   * to run the statement here instead; Trino's insufficient-resources codes (0x20000 to 0x2FFFF:
   * memory, time, a full queue) are RESOURCE_EXHAUSTED. Everything else is UNAVAILABLE: the
   * cluster unreachable, its internal errors, a connector's codes, and user errors that are the
   * deployment's (the service user's rights, a table Trino does not find, a query it abandoned).
   */
  private SqeException unavailable(SQLException e, String what) {
    String cluster = "The Trino cluster " + config.trinoUri().orElseThrow();
    boolean raised = e.getMessage() != null && e.getMessage().startsWith("Query failed (#");
    int code = e.getErrorCode();
    if (raised && DATA_ERRORS.contains(code)) {
      return new SqeException(ErrorCode.INVALID_ARGUMENT, cluster + " rejected the offloaded " + what + ": " + e.getMessage(), e);
    }
    if (raised && code >= 0x2_0000 && code < 0x3_0000) {
      return new SqeException(ErrorCode.RESOURCE_EXHAUSTED, cluster + " ran out of resources for the offloaded " + what + ": " + e.getMessage(), e);
    }
    return new SqeException(ErrorCode.UNAVAILABLE, cluster + " failed to run the offloaded " + what + ": " + e.getMessage(), e);
  }

  private static void cancel(Statement statement) {
    try {
      statement.cancel();
    } catch (SQLException e) {
      // The query already ended on Trino: nothing is left to cancel.
    }
  }

  private static void closeQuietly(Connection connection) {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // Closing after a failure: the failure is what the client hears of.
      }
    }
  }

  /**
   * Trino's rows, or the local run's when Trino fails before its first row: Trino's JDBC driver
   * returns a result once the query is accepted, and most failures (a worker lost, a coordinator
   * gone) only surface on the first fetch.
   */
  private final class UntilFirstRow implements Enumerator<Object> {
    private final QueryRun run;
    private final Supplier<Enumerator<Object>> local;
    private Enumerator<Object> rows;
    private boolean answered;

    UntilFirstRow(Enumerator<Object> rows, QueryRun run, Supplier<Enumerator<Object>> local) {
      this.rows = rows;
      this.run = run;
      this.local = local;
    }

    @Override
    public Object current() {
      return rows.current();
    }

    @Override
    public boolean moveNext() {
      if (answered) {
        return rows.moveNext();
      }
      boolean more;
      try {
        more = rows.moveNext();
      } catch (SqeException e) {
        rows.close();
        rows = fallBack(e, run, local);
        more = rows.moveNext();
      }
      answered = true;
      return more;
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("A Trino result is read once");
    }

    @Override
    public void close() {
      rows.close();
    }
  }

  /** A Trino result, row by row, in the row runtime's representation of each column's type. */
  private static final class Rows implements Enumerator<Object> {
    private final Connection connection;
    private final ResultSet rows;
    private final List<Field> fields;
    /** Where each result column is in Trino's rows, which may carry columns only sorted by. */
    private final List<Integer> columns;
    private final QueryRun run;
    private final TrinoOffload offload;
    private Object current;

    Rows(Connection connection, ResultSet rows, List<Field> fields, List<Integer> columns, QueryRun run, TrinoOffload offload) {
      this.connection = connection;
      this.rows = rows;
      this.fields = fields;
      this.columns = columns;
      this.run = run;
      this.offload = offload;
    }

    @Override
    public Object current() {
      return current;
    }

    @Override
    public boolean moveNext() {
      try {
        if (!rows.next()) {
          return false;
        }
        Object[] row = new Object[fields.size()];
        for (int i = 0; i < row.length; i++) {
          row[i] = value(columns.get(i) + 1, fields.get(i).getType());
        }
        current = row.length == 1 ? row[0] : row;
        return true;
      } catch (SQLException e) {
        run.checkCancelled();
        throw offload.unavailable(e);
      }
    }

    /** The column's value as SQE's row runtime holds it: dates as days, timestamps as microseconds. */
    private Object value(int column, ArrowType type) throws SQLException {
      if (type instanceof ArrowType.Date) {
        java.sql.Date date = rows.getDate(column);
        return date == null ? null : (int) date.toLocalDate().toEpochDay();
      }
      if (type instanceof ArrowType.Timestamp) {
        Timestamp timestamp = rows.getTimestamp(column);
        if (timestamp == null) {
          return null;
        }
        LocalDateTime local = timestamp.toLocalDateTime();
        return local.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + local.getNano() / 1_000;
      }
      if (type instanceof ArrowType.Time) {
        java.sql.Time time = rows.getTime(column);
        return time == null ? null : (int) (time.toLocalTime().toNanoOfDay() / 1_000_000L);
      }
      return rows.getObject(column);
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("A Trino result is read once");
    }

    @Override
    public void close() {
      closeQuietly(connection);
    }
  }
}
