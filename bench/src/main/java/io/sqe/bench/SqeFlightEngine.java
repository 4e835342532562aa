package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * SQE as a client sees it: Flight SQL over gRPC. One execution is GetFlightInfo, then DoGet on
 * each endpoint until the last batch has been read and its values taken out of the vectors.
 */
final class SqeFlightEngine implements Engine {
  private final BufferAllocator allocator;
  private final FlightSqlClient client;
  private final CallOption auth;

  private SqeFlightEngine(BufferAllocator allocator, FlightSqlClient client, CallOption auth) {
    this.allocator = allocator;
    this.client = client;
    this.auth = auth;
  }

  /** Logs in and makes {@code schema} the session's default schema. */
  static SqeFlightEngine connect(
      BufferAllocator parent, Location location, String user, String password, String schema) {
    requireNonNull(parent, "parent is null");
    BufferAllocator allocator = parent.newChildAllocator("bench-flight-client", 0, Long.MAX_VALUE);
    FlightSqlClient client = null;
    try {
      FlightClient flight = FlightClient.builder(allocator, location).build();
      client = new FlightSqlClient(flight);
      CallOption auth =
          flight
              .authenticateBasicToken(user, password)
              .orElseThrow(() -> new IllegalStateException("SQE returned no bearer token for user " + user));
      SetSessionOptionsResult result =
          client.setSessionOptions(
              new SetSessionOptionsRequest(
                  Map.of("schema", SessionOptionValueFactory.makeSessionOptionValue(schema))),
              auth);
      if (result.hasErrors()) {
        throw new IllegalStateException("SQE refused schema " + schema + ": " + result.getErrors());
      }
      return new SqeFlightEngine(allocator, client, auth);
    } catch (RuntimeException e) {
      closeQuietly(client, e);
      allocator.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return "SQE";
  }

  @Override
  public ResultRows execute(String sql, Cancellation cancellation) throws Exception {
    long start = System.nanoTime();
    FlightInfo info = client.execute(sql, auth);
    long prepareNanos = System.nanoTime() - start;
    List<List<Object>> rows = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(endpoint.getTicket(), auth)) {
        cancellation.onCancel(() -> stream.cancel("Cancelled by the benchmark: timeout", null));
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          List<FieldVector> vectors = root.getFieldVectors();
          for (int r = 0; r < root.getRowCount(); r++) {
            List<Object> row = new ArrayList<>(vectors.size());
            for (FieldVector vector : vectors) {
              row.add(ResultValues.fromArrow(vector, r));
            }
            rows.add(row);
          }
        }
      } finally {
        cancellation.onCancel(() -> {});
      }
    }
    return new ResultRows(rows, prepareNanos);
  }

  /** Runs a statement without a result set (DDL, DML) and returns its update count. */
  long update(String sql) {
    return client.executeUpdate(sql, auth);
  }

  /** The lines of SQE's plan for a query, as {@code EXPLAIN PLAN FOR} returns them. */
  List<String> explain(String sql) throws Exception {
    List<String> lines = new ArrayList<>();
    for (List<Object> row : execute("EXPLAIN PLAN FOR " + sql, new Cancellation()).rows()) {
      lines.add(String.valueOf(row.get(0)));
    }
    return lines;
  }

  @Override
  public void close() throws Exception {
    try {
      client.close();
    } finally {
      allocator.close();
    }
  }

  private static void closeQuietly(AutoCloseable closeable, Exception failure) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }
}
