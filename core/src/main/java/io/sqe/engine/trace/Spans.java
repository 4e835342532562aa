package io.sqe.engine.trace;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.function.Supplier;

/**
 * The spans of a statement's trace, as the engine's modules make them: children of the current
 * span, made by the tracer the statement's context carries. A context without a tracer (tracing
 * off, or work that is no statement's) gets spans that record nothing, so no module below the
 * server holds a tracer or a global of its own.
 */
public final class Spans {
  private static final ContextKey<Tracer> TRACER = ContextKey.named("sqe-tracer");

  private Spans() {}

  /** {@code context} carrying {@code tracer}, which the spans of work run in it are made by. */
  public static Context withTracer(Context context, Tracer tracer) {
    return requireNonNull(context, "context is null").with(TRACER, requireNonNull(tracer, "tracer is null"));
  }

  /** Starts a child of the current span; one that records nothing when the context carries no tracer. */
  public static Span start(String name) {
    Tracer tracer = Context.current().get(TRACER);
    return tracer == null ? Span.getInvalid() : tracer.spanBuilder(name).startSpan();
  }

  /** Starts a child of the current span and makes it current until the returned scope closes, which ends it. */
  public static Scoped open(String name) {
    Span span = start(name);
    return new Scoped(span, span.isRecording() ? span.makeCurrent() : Scope.noop());
  }

  /** Runs {@code work} in a child span of the current span, marked failed if the work throws. */
  public static <T> T traced(String name, Supplier<T> work) {
    try (Scoped span = open(name)) {
      try {
        return work.get();
      } catch (RuntimeException | Error e) {
        span.failed(e);
        throw e;
      }
    }
  }

  /**
   * {@code work} to run on another thread in the current context, in a child span of the current
   * span named {@code name}: a part of a query that a pool's thread runs.
   */
  public static Runnable carried(String name, Runnable work) {
    requireNonNull(work, "work is null");
    Runnable inSpan = () -> {
      try (Scoped span = open(name)) {
        try {
          work.run();
        } catch (RuntimeException | Error e) {
          span.failed(e);
          throw e;
        }
      }
    };
    return Context.current().wrap(inSpan);
  }

  /**
   * Marks {@code span} failed with {@code error}'s code (an {@link ErrorCode} name, or its class
   * for any other error). The message stays out: it may quote the statement's literals.
   */
  public static void failed(Span span, Throwable error) {
    span.setStatus(StatusCode.ERROR, code(error));
  }

  /** The error code a failure reports: its {@link ErrorCode}'s name, or its class's simple name. */
  public static String code(Throwable error) {
    return error instanceof SqeException ? ((SqeException) error).code().name() : error.getClass().getSimpleName();
  }

  /** A span that is current until it is closed, which ends it. */
  public static final class Scoped implements AutoCloseable {
    private final Span span;
    private final Scope scope;

    private Scoped(Span span, Scope scope) {
      this.span = span;
      this.scope = scope;
    }

    public Span span() {
      return span;
    }

    /** Marks the span failed, as {@link Spans#failed} does. */
    public void failed(Throwable error) {
      Spans.failed(span, error);
    }

    @Override
    public void close() {
      scope.close();
      span.end();
    }
  }
}
