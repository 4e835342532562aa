package io.sqe.flight.tracing;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.sqe.engine.SqeVersion;
import io.sqe.engine.trace.Spans;
import io.sqe.flight.config.ServerConfig.TracingSettings;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The server's OpenTelemetry tracer: one trace per statement, whose root span ({@code
 * sqe.statement}, kind SERVER) begins when the statement arrives and continues the client's
 * trace when its call carries a W3C {@code traceparent}. Spans leave in batches for the
 * configured OTLP collector. Off (the default), statements get spans that record nothing.
 */
public final class StatementTracing implements AutoCloseable {
  /** Traces nothing. */
  public static final StatementTracing OFF = new StatementTracing(null, null);

  private static final String SCOPE = "io.sqe";
  private static final long SHUTDOWN_WAIT_SECONDS = 10;
  private static final TextMapGetter<Function<String, String>> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Function<String, String> headers) {
          return List.of("traceparent", "tracestate");
        }

        @Override
        public String get(Function<String, String> headers, String key) {
          return headers == null ? null : headers.apply(key);
        }
      };

  private final SdkTracerProvider provider;
  private final Tracer tracer;

  private StatementTracing(SdkTracerProvider provider, Tracer tracer) {
    this.provider = provider;
    this.tracer = tracer;
  }

  /** Sends traces as {@code settings} say; {@link #OFF} when they name no collector. */
  public static StatementTracing start(TracingSettings settings) {
    requireNonNull(settings, "settings is null");
    if (!settings.enabled()) {
      return OFF;
    }
    AttributesBuilder resource = Attributes.builder()
        .put(AttributeKey.stringKey("service.name"), settings.serviceName())
        .put(AttributeKey.stringKey("service.version"), SqeVersion.VERSION)
        .put(AttributeKey.stringKey("service.instance.id"), UUID.randomUUID().toString());
    for (Map.Entry<String, String> attribute : settings.resourceAttributes().entrySet()) {
      resource.put(AttributeKey.stringKey(attribute.getKey()), attribute.getValue());
    }
    OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(settings.otlpEndpoint().toString()).build();
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.create(resource.build()))
        // A client's sampled trace is continued whatever the ratio: its other spans are kept.
        .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(settings.sampleRatio())))
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
        .build();
    return new StatementTracing(provider, provider.get(SCOPE, SqeVersion.VERSION));
  }

  public boolean enabled() {
    return tracer != null;
  }

  /**
   * The trace a client's call continues, from its {@code traceparent} and {@code tracestate}
   * headers; the root context (a new trace) without them or with malformed ones.
   *
   * @param headers a header's value by its lower-case name, null when absent
   */
  public Context clientContext(Function<String, String> headers) {
    if (tracer == null) {
      return Context.root();
    }
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HEADERS);
  }

  /**
   * Begins the trace of a statement that arrives now.
   *
   * @param parent the client's trace ({@link #clientContext}), or the root context
   */
  public StatementSpan begin(Context parent, String user, String client) {
    return begin("sqe.statement", parent, user, client);
  }

  /**
   * Begins the trace of a statement's preparation (CreatePreparedStatement), {@code
   * sqe.prepare}: its parsing and planning, which the executions of its handle, traces of their
   * own, do not repeat.
   */
  public StatementSpan beginPreparation(Context parent, String user, String client) {
    return begin("sqe.prepare", parent, user, client);
  }

  private StatementSpan begin(String name, Context parent, String user, String client) {
    if (tracer == null) {
      return StatementSpan.NONE;
    }
    Span span = tracer.spanBuilder(name)
        .setParent(requireNonNull(parent, "parent is null"))
        .setSpanKind(SpanKind.SERVER)
        .startSpan();
    if (user != null) {
      span.setAttribute(StatementSpan.USER, user);
    }
    if (client != null) {
      span.setAttribute(StatementSpan.CLIENT, client);
    }
    return new StatementSpan(span, Spans.withTracer(parent.with(span), tracer));
  }

  /** Sends the spans that have ended and stops. */
  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }
}
