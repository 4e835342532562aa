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
 * runs here with DuckDB's answer. The coordinator is a stand-in speaking Trino's client protocol on
 * a loopback port (a real cluster cannot be made to fail at that moment on demand);
 * {@code OffloadFallbackTest} covers a cluster that cannot be reached at all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OffloadFirstFetchFallbackTest extends TpchHarness {
  private static final String STATS = """
      {"state": "%s", "queued": false, "scheduled": true, "nodes": 1, "totalSplits": 0, "queuedSplits": 0,
       "runningSplits": 0, "completedSplits": 0, "planningTimeMillis": 0, "analysisTimeMillis": 0, "cpuTimeMillis": 0,
       "wallTimeMillis": 0, "queuedTimeMillis": 0, "elapsedTimeMillis": 0, "finishingTimeMillis": 0,
       "physicalInputTimeMillis": 0, "processedRows": 0, "processedBytes": 0, "physicalInputBytes": 0,
       "physicalWrittenBytes": 0, "internalNetworkInputBytes": 0, "peakMemoryBytes": 0, "spilledBytes": 0}""";

  private HttpServer coordinator;
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
             "error": {"message": "Worker lost", "errorCode": 65542, "errorName": "REMOTE_HOST_GONE", "errorType": "EXTERNAL",
                       "failureInfo": {"type": "io.trino.spi.TrinoException", "message": "Worker lost", "suppressed": [], "stack": []}}}"""
            .formatted(id, uri, STATS.formatted("FAILED"));
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
}
