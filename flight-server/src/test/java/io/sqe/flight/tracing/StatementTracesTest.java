package io.sqe.flight.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.proto.trace.v1.Status.StatusCode;
import io.sqe.flight.testing.OtlpCollector;
import io.sqe.flight.testing.OtlpCollector.CollectedSpan;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.HeaderCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statements sent by the Flight SQL JDBC driver reach an OTLP collector as one trace each: a
 * root span (kind SERVER) continuing the client's traceparent, with the query id, tag, kind and
 * outcome, and the engine's spans below it; never a literal of the statement.
 */
class StatementTracesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  /** The client's trace, sent as the JDBC property (and so call header) traceparent. */
  private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CLIENT_SPAN = "00f067aa0ba902b7";
  /** Literals of the statements, which no span may hold. */
  private static final List<String> LITERALS = List.of("Zanzibar-7731", "987654", "Qwerty-5511", "nightly-load-secret");

  @TempDir static Path dir;
  private static OtlpCollector collector;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    collector = OtlpCollector.start();
    server = TestServer.start(dir.resolve("sqe"), Map.of(
        "tracing.otlp-endpoint", collector.endpoint(),
        "tracing.resource-attributes", "deployment.environment=test"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    collector.close();
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(
        server.jdbcUrl() + "&user=admin&password=" + server.adminPassword()
            + "&traceparent=00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01");
  }

  @Test
  void eachStatementIsATraceOfTheClientsWithTheEnginesSpans() throws Exception {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA traced");
      statement.execute("SET SESSION query_tag = 'nightly-load'");
      statement.execute("CREATE TABLE traced.orders AS SELECT 'Zanzibar-7731' AS secret, 987654 AS n");
      try (ResultSet rows = statement.executeQuery("SELECT n FROM traced.orders WHERE secret = 'Zanzibar-7731'")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong(1)).isEqualTo(987654L);
      }
    }
    List<CollectedSpan> spans = collector.await(
        received -> root(received, "SELECT").isPresent() && root(received, "CREATE TABLE AS").isPresent(), WAIT);

    CollectedSpan select = root(spans, "SELECT").orElseThrow();
    assertThat(select.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
    assertThat(select.traceId()).isEqualTo(CLIENT_TRACE);
    assertThat(select.parentSpanId()).isEqualTo(CLIENT_SPAN);
    assertThat((String) select.attribute("sqe.query_id")).isNotBlank();
    assertThat(select.attribute("sqe.query_tag")).isEqualTo("nightly-load");
    assertThat(select.attribute("sqe.user")).isEqualTo("admin");
    assertThat(select.attribute("sqe.outcome")).isEqualTo("ok");
    assertThat(select.attribute("sqe.rows")).isEqualTo(1L);
    assertThat((Long) select.attribute("sqe.bytes")).isPositive();
    assertThat(select.attribute("sqe.tables.read")).isEqualTo(List.of("iceberg.traced.orders"));
    assertThat((String) select.attribute("sqe.statement.fingerprint")).hasSize(16);
    assertThat(select.resource()).containsEntry("service.name", "sqe").containsEntry("deployment.environment", "test");
    assertThat(select.resource()).containsKeys("service.version", "service.instance.id");

    // The JDBC driver prepares every statement: the preparation, a trace of its own in the
    // client's, parses and plans it; the execution's trace runs it.
    CollectedSpan preparation = spans.stream()
        .filter(s -> s.name().equals("sqe.prepare")
            && s.attribute("sqe.statement.fingerprint").equals(select.attribute("sqe.statement.fingerprint")))
        .findFirst().orElseThrow();
    assertThat(preparation.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
    assertThat(preparation.traceId()).isEqualTo(CLIENT_TRACE);
    assertThat(preparation.parentSpanId()).isEqualTo(CLIENT_SPAN);
    assertThat(preparation.attribute("sqe.query_tag")).isEqualTo("nightly-load");
    // The plan is columnar: Calcite's code for the row runtime is not generated (no sqe.compile).
    assertThat(names(below(spans, preparation))).contains("sqe.parse", "sqe.plan", "sqe.validate", "sqe.optimize")
        .doesNotContain("sqe.compile");
    List<CollectedSpan> selectTree = below(spans, select);
    assertThat(names(selectTree)).contains("sqe.execute", "sqe.scan.plan", "sqe.scan.read_task");
    assertThat(selectTree).filteredOn(s -> s.name().equals("sqe.scan.plan"))
        .allSatisfy(s -> assertThat(s.attribute("sqe.table")).isEqualTo("traced.orders"));

    CollectedSpan ctas = root(spans, "CREATE TABLE AS").orElseThrow();
    assertThat(ctas.attribute("sqe.tables.written")).isEqualTo(List.of("iceberg.traced.orders"));
    List<CollectedSpan> commits = below(spans, ctas).stream().filter(s -> s.name().equals("sqe.commit")).toList();
    assertThat(commits).singleElement().satisfies(commit -> {
      assertThat(commit.attribute("sqe.table")).isEqualTo("iceberg.traced.orders");
      assertThat((Long) commit.attribute("sqe.snapshot_id")).isPositive();
    });

    assertNoLiterals(spans);
  }

  @Test
  void aBulkIngestIsATraceWithItsCommit() throws Exception {
    String ingestTrace = "5bf92f3577b34da6a3ce929d0e0e4736";
    Schema schema = new Schema(List.of(Field.nullable("k", new ArrowType.Int(32, true))));
    try (BufferAllocator allocator = new RootAllocator();
        TestServer.Client client = server.client(allocator);
        VectorSchemaRoot data = VectorSchemaRoot.create(schema, allocator)) {
      IntVector k = (IntVector) data.getVector("k");
      k.allocateNew(3);
      for (int i = 0; i < 3; i++) {
        k.set(i, i);
      }
      data.setRowCount(3);
      client.sql().executeUpdate("CREATE SCHEMA ingest_traced", client.auth());
      CallHeaders headers = new FlightCallHeaders();
      headers.insert("traceparent", "00-" + ingestTrace + "-" + CLIENT_SPAN + "-01");
      ExecuteIngestOptions options = new ExecuteIngestOptions(
          "ingested",
          TableDefinitionOptions.newBuilder()
              .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
              .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
              .build(),
          "iceberg",
          "ingest_traced",
          Map.of());
      assertThat(client.sql().executeIngest(data, options, client.auth(), new HeaderCallOption(headers))).isEqualTo(3);
    }
    List<CollectedSpan> spans = collector.await(
        received -> received.stream().anyMatch(s -> s.name().equals("sqe.statement") && s.traceId().equals(ingestTrace)), WAIT);
    CollectedSpan ingest = spans.stream()
        .filter(s -> s.name().equals("sqe.statement") && s.traceId().equals(ingestTrace)).findFirst().orElseThrow();
    assertThat(ingest.attribute("sqe.statement.kind")).isEqualTo("INGEST");
    assertThat(ingest.attribute("sqe.rows")).isEqualTo(3L);
    assertThat(names(below(spans, ingest))).contains("sqe.commit");
  }

  @Test
  void aTransactionsCommitIsASpanOfTheCommitStatement() throws Exception {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA txn_traced");
      statement.execute("CREATE TABLE txn_traced.t (k INT)");
      statement.execute("SET SESSION query_tag = 'txn-tag'");
      statement.execute("BEGIN");
      statement.execute("INSERT INTO txn_traced.t VALUES (1)");
      statement.execute("COMMIT");
    }
    Predicate<CollectedSpan> commitStatement = s -> s.name().equals("sqe.statement")
        && "COMMIT".equals(s.attribute("sqe.statement.kind")) && "txn-tag".equals(s.attribute("sqe.query_tag"));
    List<CollectedSpan> spans = collector.await(received -> received.stream().anyMatch(commitStatement), WAIT);
    CollectedSpan commit = spans.stream().filter(commitStatement).findFirst().orElseThrow();
    assertThat(below(spans, commit)).filteredOn(s -> s.name().equals("sqe.commit"))
        .singleElement()
        .satisfies(s -> assertThat((String) s.attribute("sqe.table")).contains("txn_traced.t"));
  }

  @Test
  void aFailedStatementsSpanHasTheErrorStatus() throws Exception {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      assertThatThrownBy(() -> statement.executeQuery("SELECT * FROM traced.missing WHERE name = 'Qwerty-5511'"))
          .isInstanceOf(SQLException.class);
    }
    List<CollectedSpan> spans = collector.await(received -> failed(received).isPresent(), WAIT);
    CollectedSpan failed = failed(spans).orElseThrow();
    assertThat(failed.statusMessage()).isEqualTo(failed.attribute("sqe.outcome"));
    assertThat(failed.statusMessage()).isIn("NOT_FOUND", "INVALID_ARGUMENT");
    assertNoLiterals(spans);
  }

  @Test
  void withTracingOffNothingIsSent() throws Exception {
    try (OtlpCollector unused = OtlpCollector.start();
        TestServer untraced = TestServer.start(dir.resolve("untraced"), Map.of())) {
      try (Connection connection = DriverManager.getConnection(
              untraced.jdbcUrl() + "&user=admin&password=" + untraced.adminPassword()
                  + "&traceparent=00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01");
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT 1")) {
        assertThat(rows.next()).isTrue();
      }
      untraced.close();
      assertThat(unused.requests()).isZero();
    }
  }

  private static java.util.Optional<CollectedSpan> root(List<CollectedSpan> spans, String kind) {
    return spans.stream()
        .filter(s -> s.name().equals("sqe.statement") && kind.equals(s.attribute("sqe.statement.kind")))
        .filter(s -> "nightly-load".equals(s.attribute("sqe.query_tag")))
        .findFirst();
  }

  private static java.util.Optional<CollectedSpan> failed(List<CollectedSpan> spans) {
    return spans.stream()
        .filter(s -> s.name().equals("sqe.statement") && s.status() == StatusCode.STATUS_CODE_ERROR)
        .findFirst();
  }

  /** The spans of {@code root}'s trace below it: each reaches it by its parents. */
  private static List<CollectedSpan> below(List<CollectedSpan> spans, CollectedSpan root) {
    Set<String> inTree = new HashSet<>(Set.of(root.spanId()));
    List<CollectedSpan> trace = spans.stream().filter(s -> s.traceId().equals(root.traceId())).toList();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (CollectedSpan span : trace) {
        if (!inTree.contains(span.spanId()) && inTree.contains(span.parentSpanId())) {
          inTree.add(span.spanId());
          grew = true;
        }
      }
    }
    Predicate<CollectedSpan> child = s -> inTree.contains(s.spanId()) && !s.spanId().equals(root.spanId());
    return trace.stream().filter(child).toList();
  }

  private static Set<String> names(List<CollectedSpan> spans) {
    return spans.stream().map(CollectedSpan::name).collect(Collectors.toSet());
  }

  private static void assertNoLiterals(List<CollectedSpan> spans) {
    for (CollectedSpan span : spans) {
      for (Map.Entry<String, Object> attribute : span.attributes().entrySet()) {
        for (String literal : LITERALS) {
          assertThat(String.valueOf(attribute.getValue()))
              .as("attribute %s of span %s", attribute.getKey(), span.name())
              .doesNotContain(literal);
        }
      }
      for (String literal : LITERALS) {
        assertThat(span.statusMessage()).doesNotContain(literal);
      }
    }
  }
}
