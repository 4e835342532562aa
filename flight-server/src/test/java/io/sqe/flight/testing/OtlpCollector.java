package io.sqe.flight.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An OpenTelemetry collector in the test's process: OTLP over HTTP/protobuf on 127.0.0.1, decoded
 * with the OTLP protocol's own classes, keeping every span it is sent.
 */
public final class OtlpCollector implements AutoCloseable {
  private final HttpServer server;
  private final List<CollectedSpan> spans = new CopyOnWriteArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();

  /** A span as the collector received it; ids in hex, attribute values as Java values. */
  public record CollectedSpan(
      String traceId,
      String spanId,
      String parentSpanId,
      String name,
      Span.SpanKind kind,
      Map<String, Object> attributes,
      io.opentelemetry.proto.trace.v1.Status.StatusCode status,
      String statusMessage,
      Map<String, Object> resource) {
    public Object attribute(String key) {
      return attributes.get(key);
    }
  }

  private OtlpCollector(HttpServer server) {
    this.server = server;
  }

  public static OtlpCollector start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    OtlpCollector collector = new OtlpCollector(server);
    server.createContext("/v1/traces", collector::receive);
    server.start();
    return collector;
  }

  /** Where an exporter sends traces: the collector's address, without the path. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Export requests received so far. */
  public int requests() {
    return requests.get();
  }

  public List<CollectedSpan> spans() {
    return List.copyOf(spans);
  }

  /** The spans received once {@code done} holds of them; fails after {@code timeout}. */
  public List<CollectedSpan> await(Predicate<List<CollectedSpan>> done, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<CollectedSpan> received = spans();
      if (done.test(received)) {
        return received;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("The collector did not receive the spans expected within " + timeout + "; it has " + received);
      }
      Thread.sleep(50);
    }
  }

  private void receive(HttpExchange exchange) throws IOException {
    try (exchange) {
      ExportTraceServiceRequest request;
      try (InputStream body = exchange.getRequestBody()) {
        request = ExportTraceServiceRequest.parseFrom(body);
      }
      requests.incrementAndGet();
      for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
        Map<String, Object> resource = values(resourceSpans.getResource().getAttributesList());
        for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            spans.add(new CollectedSpan(
                hex(span.getTraceId().toByteArray()),
                hex(span.getSpanId().toByteArray()),
                hex(span.getParentSpanId().toByteArray()),
                span.getName(),
                span.getKind(),
                values(span.getAttributesList()),
                span.getStatus().getCode(),
                span.getStatus().getMessage(),
                resource));
          }
        }
      }
      byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
      exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(answer);
        }
      }
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static Map<String, Object> values(List<KeyValue> attributes) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (KeyValue attribute : attributes) {
      values.put(attribute.getKey(), value(attribute.getValue()));
    }
    return values;
  }

  private static Object value(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case INT_VALUE -> value.getIntValue();
      case BOOL_VALUE -> value.getBoolValue();
      case DOUBLE_VALUE -> value.getDoubleValue();
      case ARRAY_VALUE -> value.getArrayValue().getValuesList().stream().map(OtlpCollector::value).toList();
      default -> value.toString();
    };
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
