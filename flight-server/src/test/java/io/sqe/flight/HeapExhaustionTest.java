package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.ServerProcess;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query that really fills the heap, in a server process of its own with a small heap (a cross
 * join grouped by concatenated text, as in the review): its client gets RESOURCE_EXHAUSTED naming
 * the query, and the server goes on serving.
 */
class HeapExhaustionTest {
  /** 2,560 squared groups of 90-character keys: over a gigabyte of heap. */
  private static final String HEAP_FILLER =
      "SELECT cast(a.x AS varchar) || '-' || cast(b.x AS varchar) || a.pad, count(*) FROM s.nums a, s.nums b GROUP BY 1";
  /** Far longer than the query takes to fill 256 MB; a hang fails the test instead of stalling it. */
  private static final long CLIENT_DEADLINE_SECONDS = 300;

  @TempDir Path dir;

  @Test
  void aQueryThatFillsTheHeapIsResourceExhaustedAndTheServerServesOn() throws Exception {
    try (ServerProcess server = ServerProcess.start(
            dir.resolve("data"), List.of("-Xmx256m", "-XX:+UseParallelGC"), Map.of());
        RootAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption auth = flight.authenticateBasicToken(TestServer.ADMIN, server.password()).orElseThrow();
      CallOption deadline = CallOptions.timeout(CLIENT_DEADLINE_SECONDS, TimeUnit.SECONDS);
      sql.executeUpdate("CREATE SCHEMA s", auth);
      sql.executeUpdate("CREATE TABLE s.nums (x BIGINT, pad VARCHAR)", auth);
      sql.executeUpdate("INSERT INTO s.nums SELECT x, '" + "p".repeat(80) + "' FROM (VALUES 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) AS v(x)", auth);
      for (int i = 0; i < 8; i++) {
        sql.executeUpdate("INSERT INTO s.nums SELECT x + (SELECT count(*) FROM s.nums), pad FROM s.nums", auth);
      }
      for (int attempt = 1; attempt <= 2; attempt++) {
        FlightInfo info = sql.execute(HEAP_FILLER, auth, deadline);
        String queryId = QueryIdMetadata.queryId(info.getAppMetadata()).orElseThrow();
        assertThatThrownBy(() -> drain(sql.getStream(info.getEndpoints().get(0).getTicket(), auth, deadline)))
            .as("attempt %d", attempt)
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).as(e.getMessage()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
              assertThat(e.getMessage()).contains("Query " + queryId);
            });
        FlightInfo after = sql.execute("SELECT count(*), count(DISTINCT x) FROM s.nums", auth, deadline);
        assertThat(drain(sql.getStream(after.getEndpoints().get(0).getTicket(), auth, deadline)))
            .containsExactly(List.of(2_560L, 2_560L));
      }
      assertThat(server.process().isAlive()).isTrue();
      // Which defence answered, for the record: the heap guard, or the OutOfMemoryError itself.
      server.output().stream().filter(line -> line.contains("HeapGuard") || line.contains("out of heap")).forEach(System.out::println);
    }
  }
}
