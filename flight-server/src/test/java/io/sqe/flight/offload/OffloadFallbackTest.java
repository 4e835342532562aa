package io.sqe.flight.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TpchHarness;
import io.sqe.flight.testing.TrailerCapture;
import io.sqe.sample.tpch.TpchQueries;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offload.fallback: true} with the Trino cluster down: an offloaded query runs here, gives
 * DuckDB's answer, and its trailers and audit line say it ran here. No Trino is needed: the
 * configured coordinator is a loopback port nothing listens on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OffloadFallbackTest extends TpchHarness {
  private Path auditFile;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    String nobody;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobody = "http://127.0.0.1:" + socket.getLocalPort();
    }
    auditFile = dir.resolve("audit.jsonl");
    Map<String, String> settings = new HashMap<>();
    settings.put("offload.trino-uri", nobody);
    settings.put("offload.fallback", "true");
    // Every query of TPC-H passes this estimate: 'auto' sends it to the cluster, which is down.
    settings.put("offload.min-scan-bytes", "1");
    settings.put("audit.file", auditFile.toString());
    open(dir.resolve("sqe"), settings);
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @Test
  void aQueryForTheClusterRunsHereWithDuckDbsAnswer() throws Exception {
    try (Statement s = sqe.createStatement()) {
      s.execute("SET SESSION offload = 'always'");
    }
    compare("Q3", TpchQueries.query(3));
    try (Statement s = sqe.createStatement()) {
      s.execute("SET SESSION offload = 'auto'");
    }
    compare("Q6", TpchQueries.query(6));
  }

  @Test
  void trailersAndAuditSayTheQueryRanHere() throws Exception {
    TrailerCapture trailers = new TrailerCapture();
    String queryId;
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator, server.server().location()).intercept(trailers).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption admin = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
      String query = "SELECT count(*) FROM tpch.nation WHERE n_name <> 'FRANCE'";
      try (FlightStream plan = sql.getStream(sql.execute("EXPLAIN " + query, admin).getEndpoints().get(0).getTicket(), admin)) {
        assertThat(plan.next()).isTrue();
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < plan.getRoot().getRowCount(); i++) {
          lines.append(plan.getRoot().getVector(0).getObject(i)).append('\n');
        }
        assertThat(lines.toString()).as("where the query is to run").startsWith("offloaded to trino").contains("-- offload: trino (");
      }
      FlightInfo info = sql.execute(query, admin);
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), admin)) {
        assertThat(stream.next()).isTrue();
        assertThat(((BigIntVector) stream.getRoot().getVector(0)).get(0)).isEqualTo(24);
        while (stream.next()) {
          // drained: the trailers come with the stream's end
        }
      }
      assertThat(trailers.lastDoGet().get("x-sqe-runtime")).isIn("row", "columnar");
      queryId = trailers.lastDoGet().get("x-sqe-query-id");
    }
    String ran = "\"query_id\":\"" + queryId + "\"";
    List<String> lines = awaitAuditLine(ran);
    assertThat(lines).singleElement().satisfies(line -> {
      assertThat(line).contains("\"outcome\":\"ok\"");
      assertThat(line).doesNotContain("offloaded_to");
    });
  }

  private List<String> awaitAuditLine(String ran) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      List<String> lines = Files.readAllLines(auditFile).stream().filter(line -> line.contains(ran)).toList();
      if (!lines.isEmpty() || System.nanoTime() > deadline) {
        return lines;
      }
      Thread.sleep(100);
    }
  }
}
