package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.NumberTable;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results stream with backpressure in a query's own allocator, and a client that stops early (a
 * closed FlightStream, a JDBC cancel or an abandoned result set) stops the query without leaking:
 * each test closes its server, whose root allocator fails on any buffer left behind.
 */
class StreamingTest {
  private static final int ROWS = 20_000;
  private static final int COPIES = 20;
  /** About 45 MB of results: far more than gRPC and the client buffer between two reads. */
  private static final String BIG =
      "select n, label from s.numbers cross join (values 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20) as v(x)";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final long MAX_QUERY_MEMORY = 64L << 20;
  /** The largest message many gRPC clients accept unless told otherwise. */
  private static final long GRPC_DEFAULT_MAX_MESSAGE = 4L << 20;

  @TempDir Path dir;
  private TestServer server;
  private BufferAllocator allocator;
  private TestServer.Client client;

  @BeforeEach
  void start() {
    server = TestServer.start(dir, Map.of("query.max-memory", "64m"));
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", ROWS, ROWS);
    allocator = new RootAllocator();
    client = server.client(allocator);
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    allocator.close();
  }

  /** Closes the server now, in the test, so that a leak fails the test that caused it. */
  private void closeServer() throws Exception {
    client.close();
    client = null;
    TestServer s = server;
    server = null;
    assertThatCode(s::close).doesNotThrowAnyException();
  }

  @Test
  void aSlowClientHoldsTheQueryBackAndGetsEveryRow() throws Exception {
    FlightInfo info = client.sql().execute(BIG, client.auth());
    long rows = 0;
    long sum = 0;
    int batches = 0;
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      BufferAllocator query = RunningQueries.awaitOne(server, WAIT);
      assertThat(query.getLimit()).isEqualTo(MAX_QUERY_MEMORY);
      // The client pauses; the server must wait for it rather than run ahead to the end.
      Thread.sleep(1_500);
      assertThat(RunningQueries.of(server)).as("query after the client paused").containsExactly(query);
      long resumed = System.nanoTime();
      do {
        long bytes = 0;
        for (FieldVector vector : stream.getRoot().getFieldVectors()) {
          bytes += vector.getBufferSize();
        }
        assertThat(bytes).as("bytes in batch %d", batches).isLessThanOrEqualTo(GRPC_DEFAULT_MAX_MESSAGE);
        BigIntVector n = (BigIntVector) stream.getRoot().getVector("n");
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          sum += n.get(i);
        }
        rows += stream.getRoot().getRowCount();
        batches++;
      } while (stream.next());
      // The server resumes when the client is ready again, not when a wait for it times out.
      assertThat(Duration.ofNanos(System.nanoTime() - resumed)).isLessThan(Duration.ofSeconds(15));
      // One batch at a time: the query never held much more than a batch of the 45 MB result.
      assertThat(query.getPeakMemoryAllocation()).isLessThan(16L << 20);
    }
    assertThat(rows).isEqualTo((long) COPIES * ROWS);
    assertThat(sum).isEqualTo((long) COPIES * ROWS * (ROWS - 1) / 2);
    assertThat(batches).isGreaterThan(10);
    RunningQueries.awaitNone(server, WAIT);
    closeServer();
  }

  @Test
  void closingAFlightStreamEarlyStopsTheQuery() throws Exception {
    FlightInfo info = client.sql().execute(BIG, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      RunningQueries.awaitOne(server, WAIT);
    }
    RunningQueries.awaitNone(server, WAIT);
    assertThat(count("select count(*) from s.numbers")).isEqualTo(ROWS);
    closeServer();
  }

  /**
   * A query that does all its work before its first row (an aggregate over a huge join) stops when
   * the client cancels, although it has not produced anything yet.
   */
  @Test
  void cancellingBeforeTheFirstRowStopsTheQuery() throws Exception {
    FlightInfo info =
        client.sql().execute("select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b", client.auth());
    FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth());
    RunningQueries.awaitOne(server, WAIT);
    stream.cancel("enough", null);
    RunningQueries.awaitNone(server, WAIT);
    stream.close();
    assertThat(count("select count(*) from s.numbers")).isEqualTo(ROWS);
    closeServer();
  }

  @Test
  void theServerClosesCleanlyRightAfterAClientCancels() throws Exception {
    FlightInfo info = client.sql().execute(BIG, client.auth());
    FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth());
    assertThat(stream.next()).isTrue();
    RunningQueries.awaitOne(server, WAIT);
    stream.close();
    closeServer();
  }

  @Test
  void jdbcCancelStopsTheQuery() throws Exception {
    try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
      ResultSet rs = statement.executeQuery(BIG);
      for (int i = 0; i < 100; i++) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString("label")).isEqualTo(NumberTable.label(rs.getLong("n")));
      }
      RunningQueries.awaitOne(server, WAIT);
      statement.cancel();
      RunningQueries.awaitNone(server, WAIT);
      try (Statement again = connection.createStatement();
          ResultSet count = again.executeQuery("select count(*) from s.numbers")) {
        assertThat(count.next()).isTrue();
        assertThat(count.getLong(1)).isEqualTo(ROWS);
      }
    }
    closeServer();
  }

  @Test
  void closingAJdbcResultSetEarlyStopsTheQuery() throws Exception {
    try (Connection connection = jdbc(); Statement statement = connection.createStatement()) {
      try (ResultSet rs = statement.executeQuery(BIG)) {
        assertThat(rs.next()).isTrue();
        RunningQueries.awaitOne(server, WAIT);
      }
      RunningQueries.awaitNone(server, WAIT);
    }
    closeServer();
  }

  private Connection jdbc() throws Exception {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
  }

  private long count(String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      return ((BigIntVector) stream.getRoot().getVector(0)).get(0);
    }
  }
}
