package io.sqe.flight.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sqe.flight.testing.TpchHarness;
import io.sqe.sample.tpch.TpchQueries;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offload.fallback: true} with a coordinator that accepts every query and fails it at the
 * first fetch of its rows, as a cluster that loses its worker does: Trino's JDBC driver returns a
 * result for the accepted query, and the failure only surfaces on its first row. The query then
 * runs here with DuckDB's answer, as it does when the cluster fails it for lack of memory. The
 * coordinator is a stand-in speaking Trino's client protocol on a loopback port (a real cluster
 * cannot be made to fail at that moment on demand); {@code OffloadFallbackTest} covers a cluster
 * that cannot be reached at all, and {@code OffloadToTrinoTest} a real cluster's memory limit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OffloadFirstFetchFallbackTest extends TpchHarness {
  private static final String STATS = """
      {"state": "%s", "queued": false, "scheduled": true, "nodes": 1, "totalSplits": 0, "queuedSplits": 0,
       "runningSplits": 0, "completedSplits": 0, "planningTimeMillis": 0, "analysisTimeMillis": 0, "cpuTimeMillis": 0,
       "wallTimeMillis": 0, "queuedTimeMillis": 0, "elapsedTimeMillis": 0, "finishingTimeMillis": 0,
       "physicalInputTimeMillis": 0, "processedRows": 0, "processedBytes": 0, "physicalInputBytes": 0,
       "physicalWrittenBytes": 0, "internalNetworkInputBytes": 0, "peakMemoryBytes": 0, "spilledBytes": 0}""";

  /** Trino's error for a worker that went away, as a cluster that loses one reports it. */
  private static final String WORKER_LOST = """
      {"message": "Worker lost", "errorCode": 65542, "errorName": "REMOTE_HOST_GONE", "errorType": "EXTERNAL",
       "failureInfo": {"type": "io.trino.spi.TrinoException", "message": "Worker lost", "suppressed": [], "stack": []}}""";
  /** Trino's error for a query past its memory limit on a node (EXCEEDED_LOCAL_MEMORY_LIMIT). */
  private static final String OUT_OF_MEMORY = """
      {"message": "Query exceeded per-node memory limit of 1GB", "errorCode": 131079, "errorName": "EXCEEDED_LOCAL_MEMORY_LIMIT",
       "errorType": "INSUFFICIENT_RESOURCES", "failureInfo": {"type": "io.trino.ExceededMemoryLimitException",
       "message": "Query exceeded per-node memory limit of 1GB", "suppressed": [], "stack": []}}""";

  private HttpServer coordinator;
  /** The error the stand-in fails each first fetch with. */
  private volatile String error = WORKER_LOST;
  private String uri;
  /** Queries the stand-in accepted, and first fetches it failed. */
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    coordinator = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    uri = "http://127.0.0.1:" + coordinator.getAddress().getPort();
    coordinator.createContext("/v1/statement", this::answer);
    coordinator.start();
    Map<String, String> settings = new HashMap<>();
    settings.put("offload.trino-uri", uri);
    settings.put("offload.fallback", "true");
    open(dir.resolve("sqe"), settings);
  }

  @AfterAll
  void stop() throws Exception {
    close();
    if (coordinator != null) {
      coordinator.stop(0);
    }
  }

  /** Accepts a POSTed query with its columns and where to fetch its rows; fails that fetch; takes the cancel. */
  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      String method = exchange.getRequestMethod();
      if (method.equals("DELETE")) {
        exchange.sendResponseHeaders(204, -1);
        return;
      }
      String id = "q" + (method.equals("POST") ? accepted.incrementAndGet() : accepted.get());
      String body;
      if (method.equals("POST")) {
        body = """
            {"id": "%1$s", "infoUri": "%2$s/ui/query.html?%1$s", "nextUri": "%2$s/v1/statement/executing/%1$s/x/1",
             "columns": [{"name": "c", "type": "bigint", "typeSignature": {"rawType": "bigint", "arguments": []}}],
             "stats": %3$s, "warnings": []}""".formatted(id, uri, STATS.formatted("RUNNING"));
      } else {
        failed.incrementAndGet();
        body = """
            {"id": "%1$s", "infoUri": "%2$s/ui/query.html?%1$s", "stats": %3$s, "warnings": [],
             "error": %4$s}"""
            .formatted(id, uri, STATS.formatted("FAILED"), error);
      }
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Test
  void aQueryTheClusterFailsAtItsFirstRowRunsHere() throws Exception {
    // The stand-in does what a failing cluster does: the driver gets a result, its first row fails.
    Properties properties = new Properties();
    properties.setProperty("user", "probe");
    try (Connection trino = DriverManager.getConnection("jdbc:trino://" + uri.substring("http://".length()), properties);
        Statement s = trino.createStatement();
        ResultSet rs = s.executeQuery("SELECT 1")) {
      assertThatThrownBy(rs::next).hasMessageContaining("Worker lost");
    }
    int failedBefore = failed.get();

    try (Statement s = sqe.createStatement()) {
      s.execute("SET SESSION offload = 'always'");
    }
    compare("Q6", TpchQueries.query(6));
    compare("Q3", TpchQueries.query(3));
    assertThat(failed.get()).as("first fetches the cluster failed before SQE ran the queries here").isEqualTo(failedBefore + 2);
  }

  /**
   * A query the cluster has not the memory for runs here too: the cluster's limits are its own, and
   * the local run spills what its memory cannot hold.
   */
  @Test
  void aQueryTheClusterHasNoMemoryForRunsHere() throws Exception {
    error = OUT_OF_MEMORY;
    try {
      int failedBefore = failed.get();
      try (Statement s = sqe.createStatement()) {
        s.execute("SET SESSION offload = 'always'");
      }
      compare("Q18", TpchQueries.query(18));
      assertThat(failed.get()).as("first fetches the cluster failed for memory before SQE ran the query here").isEqualTo(failedBefore + 1);
    } finally {
      error = WORKER_LOST;
    }
  }
}
