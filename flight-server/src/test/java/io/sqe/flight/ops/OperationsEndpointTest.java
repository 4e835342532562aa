package io.sqe.flight.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightConstants;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operations endpoints through real clients: gRPC's health stub on the Flight port without
 * credentials, and an HTTP client on {@code /health}, {@code /metrics} (scraped before and after
 * statements run through Flight SQL, counters compared) and {@code /log-level}.
 */
class OperationsEndpointTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static TestServer.Client client;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("http.port", "0"));
    allocator = new RootAllocator();
    client = server.client(allocator);
    client.sql().executeUpdate("create schema app", client.auth());
    client.sql().executeUpdate("create table app.t (id bigint, name varchar)", client.auth());
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  @Test
  void grpcHealthAnswersServingWithoutCredentials() throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
      assertThat(health.check(HealthCheckRequest.newBuilder().build()).getStatus()).isEqualTo(ServingStatus.SERVING);
      assertThat(health.check(HealthCheckRequest.newBuilder().setService(FlightConstants.SERVICE).build()).getStatus())
          .isEqualTo(ServingStatus.SERVING);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void flightCallsStillNeedCredentials() throws Exception {
    try (FlightClient anonymous = FlightClient.builder(allocator, server.server().location()).build()) {
      assertThatThrownBy(() -> new FlightSqlClient(anonymous).execute("select 1"))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
  }

  @Test
  void healthReportsTheCatalogAndStorage() throws Exception {
    HttpResponse<String> response = get("/health");
    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("status").asText()).isEqualTo("SERVING");
    assertThat(body.at("/catalog/ok").asBoolean()).isTrue();
    assertThat(body.at("/storage/ok").asBoolean()).isTrue();
    // With a table, storage is checked through its metadata file.
    assertThat(body.at("/storage/detail").asText()).isEqualTo("table metadata readable");
  }

  @Test
  void metricsCountWhatStatementsDid() throws Exception {
    Map<String, Double> before = scrape();
    // Rows of our own insert, so that the deltas are known here.
    assertThat(client.sql().executeUpdate("insert into app.t values (1, 'a'), (2, 'b'), (3, 'c')", client.auth())).isEqualTo(3);
    assertThat(client.sql().executeUpdate("insert into app.t values (4, 'd')", client.auth())).isEqualTo(1);
    long rows = 0;
    for (int i = 0; i < 3; i++) {
      rows += client.rows(client.sql().execute("select id, name from app.t where id <= 4", client.auth())).size();
    }
    assertThat(rows).isEqualTo(12);
    assertThatThrownBy(() -> client.sql().execute("selec nothing", client.auth()))
        .isInstanceOfSatisfying(FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> client.sql().execute("select * from app.missing", client.auth()))
        .isInstanceOf(FlightRuntimeException.class);
    Map<String, Double> after = scrape();

    assertThat(delta(before, after, "sqe_statements_total{kind=\"SELECT\",outcome=\"ok\"}")).isEqualTo(3);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"INSERT\",outcome=\"ok\"}")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"UNKNOWN\",outcome=\"INVALID_ARGUMENT\"}")).isEqualTo(1);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"SELECT\",outcome=\"NOT_FOUND\"}")).isEqualTo(1);
    assertThat(delta(before, after, "sqe_statement_duration_seconds_count{kind=\"SELECT\"}")).isEqualTo(4);
    assertThat(delta(before, after, "sqe_statement_duration_seconds_count{kind=\"INSERT\"}")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_commits_total")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_commit_conflicts_total")).isZero();
    assertThat(delta(before, after, "sqe_result_rows_total")).isEqualTo(12);
    // The first run's plan (a scan and a filter) ran on the columnar operators, the others were cached.
    assertThat(delta(before, after, "sqe_query_runtime_total{runtime=\"columnar\"}")).isEqualTo(1);
    assertThat(delta(before, after, "sqe_query_runtime_total{runtime=\"cached\"}")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_result_bytes_total")).isPositive();
    // The second and third runs of the query are answered from the result cache (the table is
    // unchanged since the first), after a plan-cache hit each.
    assertThat(delta(before, after, "sqe_scan_files_total")).as("two data files, read once").isEqualTo(2);
    assertThat(delta(before, after, "sqe_cache_hits_total{cache=\"plan\"}")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_cache_hits_total{cache=\"result\"}")).isEqualTo(2);
    // The run that read files planned them from the new snapshot's files and read their footers.
    assertThat(delta(before, after, "sqe_cache_misses_total{cache=\"scan_planning\"}")).isPositive();
    assertThat(delta(before, after, "sqe_cache_misses_total{cache=\"parquet_footers\"}")
            + delta(before, after, "sqe_cache_hits_total{cache=\"parquet_footers\"}"))
        .isEqualTo(2);
    // The three queries and the inserts load app.t; all but the first load come from the cache.
    assertThat(delta(before, after, "sqe_cache_hits_total{cache=\"tables\"}")).isPositive();
    assertThat(after).containsKey("sqe_cache_misses_total{cache=\"sessions\"}");
    assertThat(after.get("sqe_sessions_active")).isGreaterThanOrEqualTo(1);
    assertThat(after.get("sqe_queries_running")).isZero();
    assertThat(after).containsKey("sqe_arrow_allocated_bytes");
    assertThat(after).containsKey("jvm_memory_used_bytes{area=\"heap\"}");
  }

  @Test
  void commitsThroughFlightSqlTransactionsAndSqlAreCounted() throws Exception {
    client.sql().executeUpdate("create table app.tx (id bigint)", client.auth());
    Map<String, Double> before = scrape();
    // A Flight SQL transaction: the insert inside it commits nothing; EndTransaction(COMMIT) does.
    FlightSqlClient.Transaction committed = client.sql().beginTransaction(client.auth());
    assertThat(client.sql().executeUpdate("insert into app.tx values (1)", committed, client.auth())).isEqualTo(1);
    client.sql().commit(committed, client.auth());
    // One rolled back: no commit.
    FlightSqlClient.Transaction rolledBack = client.sql().beginTransaction(client.auth());
    client.sql().executeUpdate("insert into app.tx values (2)", rolledBack, client.auth());
    client.sql().rollback(rolledBack, client.auth());
    // SQL's own BEGIN ... COMMIT in the session.
    client.sql().executeUpdate("begin", client.auth());
    client.sql().executeUpdate("insert into app.tx values (3)", client.auth());
    client.sql().executeUpdate("commit", client.auth());
    Map<String, Double> after = scrape();

    assertThat(client.rows(client.sql().execute("select id from app.tx order by id", client.auth())))
        .containsExactly(java.util.List.of(1L), java.util.List.of(3L));
    assertThat(delta(before, after, "sqe_commits_total")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"COMMIT\",outcome=\"ok\"}")).isEqualTo(2);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"ROLLBACK\",outcome=\"ok\"}")).isEqualTo(1);
    assertThat(delta(before, after, "sqe_statements_total{kind=\"INSERT\",outcome=\"ok\"}")).isEqualTo(3);
    assertThat(delta(before, after, "sqe_commit_conflicts_total")).isZero();
  }

  @Test
  void ticketAndPreparedStatementCachesAreExported() throws Exception {
    Map<String, Double> before = scrape();
    // One ticket read twice (two hits), and one unknown ticket (a miss).
    FlightInfo info = client.sql().execute("select 1", client.auth());
    assertThat(client.rows(info)).hasSize(1);
    assertThat(client.rows(info)).hasSize(1);
    Ticket unknown = new Ticket(Any.pack(TicketStatementQuery.newBuilder()
        .setStatementHandle(ByteString.copyFromUtf8("no-such-query")).build()).toByteArray());
    assertThatThrownBy(() -> {
          try (FlightStream stream = client.sql().getStream(unknown, client.auth())) {
            stream.next();
          }
        })
        .isInstanceOfSatisfying(FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
    Map<String, Double> afterTickets = scrape();
    assertThat(delta(before, afterTickets, "sqe_cache_hits_total{cache=\"tickets\"}")).isEqualTo(2);
    assertThat(delta(before, afterTickets, "sqe_cache_misses_total{cache=\"tickets\"}")).isEqualTo(1);
    assertThat(afterTickets.get("sqe_cache_entries{cache=\"tickets\"}")).isGreaterThanOrEqualTo(1);

    // A prepared statement executed twice, then closed: each use looks its handle up.
    double preparedBefore = afterTickets.get("sqe_cache_entries{cache=\"prepared_statements\"}");
    FlightSqlClient.PreparedStatement statement = client.sql().prepare("select 2", client.auth());
    assertThat(client.rows(statement.execute(client.auth()))).hasSize(1);
    assertThat(client.rows(statement.execute(client.auth()))).hasSize(1);
    assertThat(scrape().get("sqe_cache_entries{cache=\"prepared_statements\"}")).isEqualTo(preparedBefore + 1);
    statement.close(client.auth());
    Map<String, Double> after = scrape();
    double hits = delta(afterTickets, after, "sqe_cache_hits_total{cache=\"prepared_statements\"}");
    assertThat(hits).as("two executions and the close").isEqualTo(3);
    assertThat(delta(afterTickets, after, "sqe_cache_misses_total{cache=\"prepared_statements\"}")).isZero();
    assertThat(after.get("sqe_cache_entries{cache=\"prepared_statements\"}")).isEqualTo(preparedBefore);
  }

  @Test
  void logLevelsChangeAtRunTimeFromLoopbackForAnAdmin() throws Exception {
    String logger = "io.sqe.flight.ops.test";
    HttpResponse<String> set = post("/log-level?logger=" + logger + "&level=debug");
    assertThat(set.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(set.body()).get("level").asText()).isEqualTo("DEBUG");
    assertThat(org.slf4j.LoggerFactory.getLogger(logger).isDebugEnabled()).isTrue();
    assertThat(JSON.readTree(get("/log-level?logger=" + logger).body()).get("level").asText()).isEqualTo("DEBUG");

    HttpResponse<String> inherit = post("/log-level?logger=" + logger + "&level=inherit");
    assertThat(inherit.statusCode()).isEqualTo(200);
    assertThat(org.slf4j.LoggerFactory.getLogger(logger).isDebugEnabled()).isFalse();

    HttpResponse<String> bad = post("/log-level?logger=" + logger + "&level=loud");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(bad.body()).get("error").asText()).contains("Unknown log level 'loud'");
    assertThat(post("/log-level?logger=" + logger).statusCode()).isEqualTo(400);
  }

  @Test
  void unknownPathsAndMethodsAreRefused() throws Exception {
    assertThat(get("/nothing").statusCode()).isEqualTo(404);
    assertThat(post("/metrics").statusCode()).isEqualTo(405);
  }

  @Test
  void healthIsUnavailableWhenTheCatalogIsGone() throws Exception {
    Path restDir = dir.resolve("rest");
    RestCatalogFixture rest = RestCatalogFixture.start(restDir);
    boolean restClosed = false;
    Map<String, String> settings = new HashMap<>(rest.sqeSettings());
    settings.put("http.port", "0");
    try (TestServer overRest = TestServer.start(dir.resolve("sqe-rest"), settings)) {
      int port = overRest.server().httpPort().orElseThrow();
      assertThat(get(port, "/health").statusCode()).isEqualTo(200);
      rest.close();
      restClosed = true;
      // Answers are reused for a second.
      Thread.sleep(1_100);
      HttpResponse<String> down = get(port, "/health");
      assertThat(down.statusCode()).isEqualTo(503);
      JsonNode body = JSON.readTree(down.body());
      assertThat(body.get("status").asText()).isEqualTo("NOT_SERVING");
      assertThat(body.at("/catalog/ok").asBoolean()).isFalse();
      assertThat(body.at("/catalog/detail").asText()).isNotBlank();
    } finally {
      if (!restClosed) {
        rest.close();
      }
    }
  }

  // ---- helpers

  private static HttpResponse<String> get(String path) throws Exception {
    return get(server.server().httpPort().orElseThrow(), path);
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A POST as admin, whom changing a log level needs (LogLevelSecurityTest). */
  private static HttpResponse<String> post(String path) throws Exception {
    String credentials = TestServer.ADMIN + ":" + server.adminPassword();
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.server().httpPort().orElseThrow() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The samples of a scrape by name and labels, as the text format writes them. */
  static Map<String, Double> scrape() throws Exception {
    HttpResponse<String> response = get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return parse(response.body());
  }

  static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
    }
    return samples;
  }

  private static double delta(Map<String, Double> before, Map<String, Double> after, String sample) {
    String name = sample.contains("{") ? sample.substring(0, sample.indexOf('{')) : sample;
    assertThat(after.containsKey(sample))
        .as("%s among %s", sample, after.keySet().stream().filter(k -> k.startsWith(name)).sorted().toList())
        .isTrue();
    return after.get(sample) - before.getOrDefault(sample, 0.0);
  }
}
