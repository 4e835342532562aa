package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client sees when object storage or the catalog goes away or refuses SQE's credentials:
 * a clear error with a status that says so, soon, not a hang; and the server keeps serving.
 */
class StorageFailureTest {
  @TempDir Path dir;
  private BufferAllocator allocator;
  private S3Fixture s3;
  private RestCatalogFixture rest;
  private TestServer server;
  private TestServer.Client client;
  private int starts;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    s3 = S3Fixture.start(dir.resolve("s3"));
    rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("rest"));
  }

  private void startServer(Map<String, String> s3Settings) {
    server = TestServer.start(dir.resolve("sqe-" + ++starts), S3Fixture.sqeSettings(rest, s3Settings));
    client = server.client(allocator);
  }

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    rest.close();
    s3.close();
    allocator.close();
  }

  @Test
  void storageThatStopsAnsweringIsUnavailableNotAHang() throws Exception {
    startServer(s3.fileIoProperties());
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t AS SELECT 1 AS x UNION ALL SELECT 2");
    assertThat(count("SELECT count(*) FROM s.t")).isEqualTo(2);

    s3.close();
    Instant start = Instant.now();
    // Not the statement above: its result is cached (the table has not changed), so it would not
    // touch the storage at all.
    assertThatThrownBy(() -> count("SELECT count(*) FROM s.t WHERE x <> 3"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code());
          assertThat(e.getMessage()).containsIgnoringCase("storage");
        });
    assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(60));
  }

  @Test
  void aCatalogThatStopsAnsweringIsUnavailable() throws Exception {
    startServer(s3.fileIoProperties());
    update("CREATE SCHEMA s");
    rest.close();
    assertThatThrownBy(() -> count("SELECT count(*) FROM s.never_loaded"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code());
          assertThat(e.getMessage()).containsIgnoringCase("catalog");
        });
    // The server itself still answers.
    assertThat(count("SELECT 1")).isEqualTo(1);
  }

  @Test
  void credentialsVendedByTheCatalogAreUsedForEachTable() throws Exception {
    rest.close();
    Map<String, String> keys =
        Map.of("s3.access-key-id", S3Fixture.ACCESS_KEY, "s3.secret-access-key", S3Fixture.SECRET_KEY);
    rest = RestCatalogFixture.start(dir.resolve("rest-vending"), s3.catalogBackend("vended"), keys);
    // SQE knows where the storage is, but holds no keys: it asks the catalog for them.
    Map<String, String> noKeys = new HashMap<>(s3.fileIoProperties());
    noKeys.remove("s3.access-key-id");
    noKeys.remove("s3.secret-access-key");
    // Without asking for credentials, SQE has none and says so.
    startServer(noKeys);
    update("CREATE SCHEMA s");
    assertThatThrownBy(() -> update("CREATE TABLE s.t AS SELECT 1 AS x"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHORIZED.code());
          assertThat(e.getMessage()).contains("no credentials for object storage");
        });
    client.close();
    server.close();

    noKeys.put("header.X-Iceberg-Access-Delegation", "vended-credentials");
    startServer(noKeys);
    update("CREATE TABLE s.t AS SELECT 1 AS x UNION ALL SELECT 2");
    update("INSERT INTO s.t VALUES (3)");
    assertThat(count("SELECT sum(x) FROM s.t")).isEqualTo(6);
  }

  @Test
  void storageThatRefusesTheCredentialsIsPermissionDenied() throws Exception {
    Map<String, String> wrongKeys = new HashMap<>(s3.fileIoProperties());
    wrongKeys.put("s3.secret-access-key", "not-the-secret");
    startServer(wrongKeys);
    update("CREATE SCHEMA s");
    assertThatThrownBy(() -> update("CREATE TABLE s.t AS SELECT 1 AS x"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHORIZED.code());
          assertThat(e.getMessage()).containsIgnoringCase("storage").doesNotContain("not-the-secret");
        });
  }

  @Test
  void storageThatAcceptsButNeverAnswersTimesOut() throws Exception {
    startServer(s3.fileIoProperties());
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t AS SELECT 1 AS x UNION ALL SELECT 2");
    client.close();
    server.close();
    // A server that takes connections and never answers: only SQE's timeouts end the wait.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new CopyOnWriteArrayList<>();
      Thread acceptor = new Thread(() -> {
        try {
          while (true) {
            held.add(silent.accept());
          }
        } catch (IOException closed) {
          // the test is over
        }
      }, "silent-s3");
      acceptor.start();
      Map<String, String> silentStorage = new HashMap<>(s3.fileIoProperties());
      silentStorage.put("s3.endpoint", "http://127.0.0.1:" + silent.getLocalPort());
      silentStorage.put("http-client.apache.socket-timeout-ms", "1000");
      silentStorage.put("s3.retry.num-retries", "1");
      startServer(silentStorage);
      Instant start = Instant.now();
      assertThatThrownBy(() -> count("SELECT count(*) FROM s.t"))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code());
            assertThat(e.getMessage()).containsIgnoringCase("storage");
          });
      // Two tries of a second each, and backoff: far from the minutes a hang would take.
      assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(60));
      silent.close();
      acceptor.join(10_000);
      for (Socket socket : held) {
        socket.close();
      }
    }
  }

  @Test
  void aCatalogThatStopsAnsweringTimesOut() throws Exception {
    Map<String, String> settings = new HashMap<>(s3.fileIoProperties());
    settings.put("rest.client.socket-timeout-ms", "1000");
    startServer(settings);
    update("CREATE SCHEMA s");
    CountDownLatch released = new CountDownLatch(1);
    rest.guard(request -> {
      try {
        released.await(2, java.util.concurrent.TimeUnit.MINUTES); // the catalog hangs
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 0;
    });
    try {
      Instant start = Instant.now();
      assertThatThrownBy(() -> count("SELECT count(*) FROM s.never_loaded"))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code());
            assertThat(e.getMessage()).containsIgnoringCase("catalog");
          });
      assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(60));
    } finally {
      released.countDown();
      rest.guard(null);
    }
  }

  private void update(String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  private long count(String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      return ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
    }
  }
}
