package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SQE servers over one REST catalog and one S3-compatible server, sharing their users and
 * signing key: a token from one works on all, as do its tickets and prepared statements,
 * concurrent writers through all three lose and duplicate nothing, and every conflict is reported.
 */
class ScaleOutTest {
  private static final int SERVERS = 3;
  private static final int BATCHES = 8;
  private static final int ROWS_PER_BATCH = 25;
  private static final int INCREMENTS = 6;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private S3Fixture s3;
  private RestCatalogFixture rest;
  private final List<TestServer> servers = new ArrayList<>();
  private final List<FlightClient> clients = new ArrayList<>();
  private Map<String, String> settings;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    s3 = S3Fixture.start(dir.resolve("s3"));
    rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("lake"));
    settings = S3Fixture.sqeSettings(rest, s3.fileIoProperties());
    settings.put("catalog.cache-ttl", "1s");
    TestServer first = TestServer.start(dir.resolve("sqe-1"), settings);
    servers.add(first);
    for (int i = 2; i <= SERVERS; i++) {
      // The same users and signing key on every server, as docs/deploy.md says.
      Path security = Files.createDirectories(dir.resolve("sqe-" + i).resolve("security"));
      for (String file : List.of("users.json", "signing-keys.jwks")) {
        Files.copy(dir.resolve("sqe-1/security").resolve(file), security.resolve(file));
      }
      servers.add(TestServer.start(dir.resolve("sqe-" + i), settings, first.adminPassword()));
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    for (FlightClient client : clients) {
      client.close();
    }
    for (TestServer server : servers) {
      server.close();
    }
    rest.close();
    s3.close();
    allocator.close();
  }

  /** One login, on the first server; its token works on all three. */
  private CallOption loginOnFirstServer() throws Exception {
    try (FlightClient login = FlightClient.builder(allocator, servers.get(0).server().location()).build()) {
      return login.authenticateBasicToken(TestServer.ADMIN, servers.get(0).adminPassword()).orElseThrow();
    }
  }

  /** A Flight SQL client of each server, in server order, closed after the test. */
  private List<FlightSqlClient> clientsOfEveryServer() {
    List<FlightSqlClient> sql = new ArrayList<>();
    for (TestServer server : servers) {
      FlightClient client = FlightClient.builder(allocator, server.server().location()).build();
      clients.add(client);
      sql.add(new FlightSqlClient(client));
    }
    return sql;
  }

  @Test
  void concurrentWritersOnThreeServersLoseAndDuplicateNothing() throws Exception {
    CallOption token = loginOnFirstServer();
    List<FlightSqlClient> sql = clientsOfEveryServer();
    sql.get(0).executeUpdate("CREATE SCHEMA lake_test", token);
    sql.get(0).executeUpdate("CREATE TABLE lake_test.events (id BIGINT, server INT, payload VARCHAR)", token);
    sql.get(1).executeUpdate("CREATE TABLE lake_test.counter (id INT, n BIGINT)", token);
    sql.get(2).executeUpdate("INSERT INTO lake_test.counter VALUES (1, 0)", token);

    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger increments = new AtomicInteger();
    AtomicInteger conflicts = new AtomicInteger();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(3 * SERVERS);
    List<Future<?>> writers = new ArrayList<>();
    for (int s = 0; s < SERVERS; s++) {
      FlightSqlClient client = sql.get(s);
      int server = s;
      // Appends: never conflict with each other, so every batch must land.
      writers.add(pool.submit(() -> {
        for (int b = 0; b < BATCHES; b++) {
          StringBuilder values = new StringBuilder();
          for (int r = 0; r < ROWS_PER_BATCH; r++) {
            long id = (long) server * 1_000_000 + b * 1_000 + r;
            values.append(values.length() == 0 ? "" : ", ").append("(").append(id).append(", ").append(server).append(", 'x')");
          }
          client.executeUpdate("INSERT INTO lake_test.events VALUES " + values, token);
        }
        return null;
      }));
      // Updates of one row: each either lands or is reported as a conflict.
      writers.add(pool.submit(() -> {
        for (int i = 0; i < INCREMENTS; i++) {
          try {
            client.executeUpdate("UPDATE lake_test.counter SET n = n + 1 WHERE id = 1", token);
            increments.incrementAndGet();
          } catch (FlightRuntimeException e) {
            if (e.getMessage().contains("conflicts") || e.getMessage().contains("kept changing")) {
              conflicts.incrementAndGet();
            } else {
              problems.add("server " + server + ": " + e.getMessage());
            }
          }
        }
        return null;
      }));
      // Readers: a server's count of rows never goes backwards.
      pool.submit(() -> {
        long last = 0;
        while (writing.get()) {
          long count = count(client, token, "SELECT count(*) FROM lake_test.events");
          if (count < last) {
            problems.add("server " + server + " read " + count + " rows after " + last);
          }
          last = count;
        }
        return null;
      });
    }
    for (Future<?> writer : writers) {
      writer.get(10, TimeUnit.MINUTES);
    }
    writing.set(false);
    pool.shutdown();
    assertThat(pool.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
    assertThat(problems).isEmpty();
    assertThat(increments.get() + conflicts.get()).isEqualTo(SERVERS * INCREMENTS);
    assertThat(increments.get()).isPositive();

    Thread.sleep(1_500); // past the table cache lifetime, so every server sees the last commit
    long expected = (long) SERVERS * BATCHES * ROWS_PER_BATCH;
    for (FlightSqlClient client : sql) {
      assertThat(count(client, token, "SELECT count(*) FROM lake_test.events")).isEqualTo(expected);
      assertThat(count(client, token, "SELECT count(DISTINCT id) FROM lake_test.events")).isEqualTo(expected);
      // No update was lost: the counter holds exactly the updates that were acknowledged.
      assertThat(count(client, token, "SELECT n FROM lake_test.counter WHERE id = 1")).isEqualTo(increments.get());
    }
  }

  @Test
  void aTicketOrPreparedStatementIsRedeemedByAnotherServer() throws Exception {
    CallOption token = loginOnFirstServer();
    List<FlightSqlClient> sql = clientsOfEveryServer();
    FlightInfo info = sql.get(0).execute("SELECT 42", token);
    org.apache.arrow.flight.Ticket ticket = info.getEndpoints().get(0).getTicket();
    // Another server plans it again from what the ticket carries; the issuing server still serves it.
    for (int server : new int[] {1, 0}) {
      try (FlightStream stream = sql.get(server).getStream(ticket, token)) {
        assertThat(stream.next()).isTrue();
        assertThat(((Number) stream.getRoot().getVector(0).getObject(0)).longValue()).isEqualTo(42);
      }
    }
    // A ticket no server issued is just unknown.
    org.apache.arrow.flight.Ticket forged = new org.apache.arrow.flight.Ticket(
        com.google.protobuf.Any.pack(org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery.newBuilder()
            .setStatementHandle(com.google.protobuf.ByteString.copyFromUtf8("no-such-query")).build()).toByteArray());
    assertThatThrownBy(() -> drain(sql.get(1).getStream(forged, token)))
        .isInstanceOfSatisfying(FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(org.apache.arrow.flight.FlightStatusCode.NOT_FOUND));

    // The messages a Flight SQL client sends for a prepared statement, the second one to another server.
    com.google.protobuf.ByteString handle = prepare(clients.get(0), "SELECT 7", token);
    org.apache.arrow.flight.FlightDescriptor execute = org.apache.arrow.flight.FlightDescriptor.command(com.google.protobuf.Any.pack(
        org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery.newBuilder().setPreparedStatementHandle(handle).build())
        .toByteArray());
    assertThat(count(sql.get(2), clients.get(2).getInfo(execute, token), token)).isEqualTo(7);
    assertThat(count(sql.get(0), clients.get(0).getInfo(execute, token), token)).isEqualTo(7);
  }

  @Test
  void aJdbcPreparedStatementWhoseServerWasReplacedKeepsWorking() throws Exception {
    TestServer first = servers.get(0);
    int port = first.port();
    try (java.sql.Connection jdbc = java.sql.DriverManager.getConnection(
            first.jdbcUrl() + "&user=" + TestServer.ADMIN + "&password=" + first.adminPassword());
        java.sql.PreparedStatement statement = jdbc.prepareStatement("SELECT 42")) {
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(42);
      }
      // Another server takes over the address, as when a load balancer sends the connection
      // elsewhere: same users and signing key, so the driver's token still works.
      first.close();
      Map<String, String> samePort = new java.util.HashMap<>(settings);
      samePort.put("port", Integer.toString(port));
      servers.set(0, TestServer.start(dir.resolve("sqe-1"), samePort, first.adminPassword()));
      // The new server plans it again from the handle the driver holds.
      try (java.sql.ResultSet rows = statement.executeQuery()) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(42);
      }
      // Preparing it again on the new server works.
      try (java.sql.PreparedStatement again = jdbc.prepareStatement("SELECT 43"); java.sql.ResultSet rows = again.executeQuery()) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(43);
      }
    }
  }

  private static void drain(FlightStream stream) throws Exception {
    try (stream) {
      while (stream.next()) {
        // read it all
      }
    }
  }

  private static com.google.protobuf.ByteString prepare(FlightClient client, String sql, CallOption token) throws Exception {
    var request = org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest.newBuilder().setQuery(sql).build();
    var results = client.doAction(
        new org.apache.arrow.flight.Action("CreatePreparedStatement", com.google.protobuf.Any.pack(request).toByteArray()), token);
    var result = com.google.protobuf.Any.parseFrom(results.next().getBody())
        .unpack(org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult.class);
    while (results.hasNext()) {
      results.next();
    }
    return result.getPreparedStatementHandle();
  }

  private static long count(FlightSqlClient client, FlightInfo info, CallOption token) throws Exception {
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), token)) {
      assertThat(stream.next()).isTrue();
      return ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
    }
  }

  private static long count(FlightSqlClient client, CallOption token, String query) throws Exception {
    FlightInfo info = client.execute(query, token);
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), token)) {
      assertThat(stream.next()).isTrue();
      return ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
    }
  }
}
