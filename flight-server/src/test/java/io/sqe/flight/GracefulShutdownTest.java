package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graceful shutdown through real clients: once a shutdown begins, health turns NOT_SERVING and new
 * calls are refused UNAVAILABLE; a statement that finishes within the grace period completes; one
 * still running after it is cancelled, and a cancelled write leaves its table as it was.
 */
class GracefulShutdownTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Hundreds of millions of row pairs: runs far longer than any test waits, unless stopped. */
  private static final String ENDLESS =
      "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";

  @TempDir Path dir;

  @Test
  void aRunningQueryFinishesWithinALongGracePeriodWhileNewCallsAreRefused() throws Exception {
    int rows = 25_000;
    TestServer server = TestServer.start(dir, Map.of("http.port", "0", "server.shutdown-grace-period", "5m"));
    NumberTable.create(catalog(server), "s", "numbers", rows, 5_000);
    CompletableFuture<Void> closing = null;
    try (BufferAllocator allocator = new RootAllocator();
        TestServer.Client client = server.client(allocator);
        TestServer.Client idle = server.client(allocator)) {
      ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      Iterator<HealthCheckResponse> watch = HealthGrpc.newBlockingStub(channel).watch(HealthCheckRequest.getDefaultInstance());
      assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.SERVING);

      // About 50 MB of results (2 KB a row): far more than gRPC buffers for a client that does not read.
      String wide = String.join(" || ", java.util.Collections.nCopies(20, "label"));
      FlightInfo info = client.sql().execute("select n, " + wide + " as wide from s.numbers", client.auth());
      long read = 0;
      try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
        // The first batch is here, the rest waits for this client: the query runs.
        assertThat(stream.next()).isTrue();
        read += stream.getRoot().getRowCount();
        assertThat(read).isLessThan(rows);

        Location location = server.server().location();
        closing = CompletableFuture.runAsync(() -> close(server));
        assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        HttpResponse<String> health = health(server);
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body()).contains("shutting down");
        // A new call on a connection that was open, and a new connection: both refused.
        assertUnavailable(() -> idle.sql().execute("select 1", idle.auth()));
        try (FlightClient fresh = FlightClient.builder(allocator, location).build()) {
          assertUnavailable(() -> fresh.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()));
        }
        assertThat(closing).isNotDone();

        while (stream.next()) {
          read += stream.getRoot().getRowCount();
        }
      }
      assertThat(read).as("every row of the query that was running").isEqualTo(rows);
      closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } finally {
      if (closing == null) {
        server.close();
      }
    }
  }

  @Test
  void statementsStillRunningAfterAShortGracePeriodAreCancelledAndAWriteIsAllOrNothing() throws Exception {
    TestServer server = TestServer.start(dir, Map.of("server.shutdown-grace-period", "500ms"));
    LakehouseCatalog catalog = catalog(server);
    NumberTable.create(catalog, "s", "numbers", 20_000, 5_000);
    long writeRows = 20_000L * 500;
    CompletableFuture<Void> closing = null;
    try (BufferAllocator allocator = new RootAllocator();
        TestServer.Client reader = server.client(allocator);
        TestServer.Client writer = server.client(allocator)) {
      writer.sql().executeUpdate("create table s.target (n bigint)", writer.auth());
      CompletableFuture<List<Long>> query = CompletableFuture.supplyAsync(() -> counts(reader, ENDLESS));
      CompletableFuture<Long> write = CompletableFuture.supplyAsync(() -> writer.sql().executeUpdate(
          "insert into s.target select a.n from s.numbers a cross join s.numbers b where b.n < 500", writer.auth()));
      awaitRunning(server, 2);

      closing = CompletableFuture.runAsync(() -> close(server));
      closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      assertThat(query).isCompletedExceptionally();
      assertThatThrownBy(query::join)
          .hasCauseInstanceOf(FlightRuntimeException.class)
          .satisfies(e -> assertThat(((FlightRuntimeException) e.getCause()).status().code())
              .isIn(FlightStatusCode.CANCELLED, FlightStatusCode.UNAVAILABLE));
      assertThat(write).isDone();
    } finally {
      if (closing == null) {
        server.close();
      }
    }
    // What the write left, read from the catalog afresh: all of its rows in one snapshot, or nothing.
    try (LakehouseCatalog reopened = IcebergCatalogFactory.embedded("iceberg", dir.resolve("warehouse"), Duration.ZERO)) {
      Table target = reopened.loadTable(TableIdentifier.of("s", "target")).orElseThrow();
      List<Snapshot> snapshots = new ArrayList<>();
      target.snapshots().forEach(snapshots::add);
      long total = snapshots.stream()
          .mapToLong(s -> Long.parseLong(s.summary().getOrDefault("added-records", "0")))
          .sum();
      assertThat(total).as("rows the cancelled write committed").isIn(0L, writeRows);
      if (total == 0) {
        assertThat(target.currentSnapshot()).isNull();
      } else {
        assertThat(snapshots).hasSize(1);
      }
    }
  }

  private static LakehouseCatalog catalog(TestServer server) {
    return server.server().catalogs().find("iceberg").orElseThrow();
  }

  private static void close(TestServer server) {
    try {
      server.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Long> counts(TestServer.Client client, String sql) {
    try {
      List<Long> values = new ArrayList<>();
      for (List<Object> row : client.rows(client.sql().execute(sql, client.auth()))) {
        values.add((Long) row.get(0));
      }
      return values;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitRunning(TestServer server, int count) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (server.server().running() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(server.server().running()).as("running statements").isEqualTo(count);
  }

  private static HttpResponse<String> health(TestServer server) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.server().httpPort().orElseThrow() + "/health"))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void assertUnavailable(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
  }
}
