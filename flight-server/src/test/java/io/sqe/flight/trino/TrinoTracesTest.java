package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.opentelemetry.proto.trace.v1.Status.StatusCode;
import io.sqe.flight.testing.OtlpCollector;
import io.sqe.flight.testing.OtlpCollector.CollectedSpan;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A statement sent to the Trino endpoint is traced as a Flight SQL one is: its root span continues
 * the client's traceparent header and carries the client tags and source; the engine's spans are
 * its children.
 */
class TrinoTracesTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
  private static final String CLIENT_SPAN = "b7ad6b7169203331";

  @TempDir static Path dir;
  private static OtlpCollector collector;
  private static TrinoFixture trino;
  private static RawTrinoClient client;

  @BeforeAll
  static void start() throws Exception {
    collector = OtlpCollector.start();
    trino = TrinoFixture.start(dir, Map.of("tracing.otlp-endpoint", collector.endpoint()));
    client = new RawTrinoClient(trino.baseUri(), trino.caCertificate());
  }

  @AfterAll
  static void stop() throws Exception {
    if (trino != null) {
      trino.close();
    }
    collector.close();
  }

  private static Map<String, String> headers() {
    return Map.of(
        "Authorization", RawTrinoClient.basic(TestServer.ADMIN, trino.server().adminPassword()),
        "X-Trino-User", TestServer.ADMIN,
        "X-Trino-Source", "superset",
        "X-Trino-Client-Tags", "finance",
        "traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01");
  }

  @Test
  void aTrinoStatementContinuesTheClientsTrace() throws Exception {
    List<RawTrinoClient.Response> responses = client.run("SELECT count(*) FROM (VALUES 'Kilimanjaro-4411', 'x') AS t(v)", headers());
    assertThat(responses.get(responses.size() - 1).json().get("stats").get("state").asText()).isEqualTo("FINISHED");
    List<CollectedSpan> spans = collector.await(received -> root(received, "ok").isPresent(), WAIT);
    CollectedSpan root = root(spans, "ok").orElseThrow();
    assertThat(root.kind()).isEqualTo(SpanKind.SPAN_KIND_SERVER);
    assertThat(root.parentSpanId()).isEqualTo(CLIENT_SPAN);
    assertThat(root.attribute("sqe.query_tag")).isEqualTo("finance");
    assertThat(root.attribute("sqe.source")).isEqualTo("superset");
    assertThat(root.attribute("sqe.statement.kind")).isEqualTo("SELECT");
    assertThat((String) root.attribute("sqe.query_id")).isEqualTo(responses.get(0).json().get("id").asText());
    Set<String> children = spans.stream()
        .filter(s -> s.traceId().equals(CLIENT_TRACE) && s.parentSpanId().equals(root.spanId()))
        .map(CollectedSpan::name)
        .collect(Collectors.toSet());
    assertThat(children).contains("sqe.parse", "sqe.plan", "sqe.execute");
    assertThat(spans).allSatisfy(span ->
        assertThat(span.attributes().values().stream().map(String::valueOf)).noneMatch(v -> v.contains("Kilimanjaro-4411")));
  }

  @Test
  void aFailedTrinoStatementsSpanHasTheErrorStatus() throws Exception {
    client.run("SELECT * FROM iceberg.nowhere.missing", headers());
    List<CollectedSpan> spans = collector.await(received -> root(received, "error").isPresent(), WAIT);
    assertThat(root(spans, "error").orElseThrow().status()).isEqualTo(StatusCode.STATUS_CODE_ERROR);
  }

  private static Optional<CollectedSpan> root(List<CollectedSpan> spans, String outcome) {
    return spans.stream()
        .filter(s -> s.name().equals("sqe.statement") && s.traceId().equals(CLIENT_TRACE))
        .filter(s -> outcome.equals("ok") == "ok".equals(s.attribute("sqe.outcome")))
        .findFirst();
  }
}
