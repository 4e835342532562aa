package io.sqe.flight.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.sqe.engine.audit.Redaction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The root span of one statement's trace, ended once with how the statement ended. It never holds
 * the statement's text: only the text's fingerprint (a hash of it with every literal masked, the
 * same for the same statement whatever its values), its kind and the tables it names.
 */
public final class StatementSpan {
  /** Records nothing: tracing is off. */
  public static final StatementSpan NONE = new StatementSpan(Span.getInvalid(), Context.root());

  static final AttributeKey<String> USER = AttributeKey.stringKey("sqe.user");
  static final AttributeKey<String> CLIENT = AttributeKey.stringKey("client.address");
  static final AttributeKey<String> QUERY_ID = AttributeKey.stringKey("sqe.query_id");
  static final AttributeKey<String> KIND = AttributeKey.stringKey("sqe.statement.kind");
  static final AttributeKey<String> FINGERPRINT = AttributeKey.stringKey("sqe.statement.fingerprint");
  static final AttributeKey<String> TAG = AttributeKey.stringKey("sqe.query_tag");
  static final AttributeKey<String> SOURCE = AttributeKey.stringKey("sqe.source");
  static final AttributeKey<List<String>> READ = AttributeKey.stringArrayKey("sqe.tables.read");
  static final AttributeKey<List<String>> WRITTEN = AttributeKey.stringArrayKey("sqe.tables.written");
  static final AttributeKey<Long> ROWS = AttributeKey.longKey("sqe.rows");
  static final AttributeKey<Long> BYTES = AttributeKey.longKey("sqe.bytes");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("sqe.outcome");
  static final AttributeKey<Boolean> CACHED = AttributeKey.booleanKey("sqe.result_cached");

  private final Span span;
  private final Context context;
  private final AtomicBoolean ended = new AtomicBoolean();

  StatementSpan(Span span, Context context) {
    this.span = span;
    this.context = context;
  }

  /** The statement's trace context: its work runs in it, so that its spans are this span's children. */
  public Context context() {
    return context;
  }

  public boolean isRecording() {
    return span.isRecording();
  }

  /** The client application that sent the statement (Trino's {@code X-Trino-Source}). */
  public void source(String source) {
    if (source != null) {
      span.setAttribute(SOURCE, source);
    }
  }

  /** The bytes of the result the statement sent its client. */
  public void bytes(long bytes) {
    span.setAttribute(BYTES, bytes);
  }

  /**
   * Ends the span; later calls are ignored.
   *
   * @param sql the statement's text, of which only the fingerprint is kept; null when it has none
   * @param outcome {@code ok} or the error code it failed with
   * @param rows rows returned or written; null when unknown
   */
  public void end(
      String queryId, String kind, String sql, String tag, List<String> read, List<String> written, String outcome, Long rows, boolean cached) {
    if (!span.isRecording() || !ended.compareAndSet(false, true)) {
      return;
    }
    if (queryId != null) {
      span.setAttribute(QUERY_ID, queryId);
    }
    if (kind != null) {
      span.setAttribute(KIND, kind);
    }
    if (sql != null) {
      span.setAttribute(FINGERPRINT, fingerprint(sql));
    }
    if (tag != null) {
      span.setAttribute(TAG, tag);
    }
    span.setAttribute(READ, read);
    span.setAttribute(WRITTEN, written);
    if (rows != null) {
      span.setAttribute(ROWS, rows);
    }
    if (cached) {
      span.setAttribute(CACHED, true);
    }
    span.setAttribute(OUTCOME, outcome);
    if (!outcome.equals("ok")) {
      // The code only: the message may quote the statement's literals.
      span.setStatus(StatusCode.ERROR, outcome);
    }
    span.end();
  }

  /** The first 16 hex digits of the SHA-256 of {@code sql} with its literals masked. */
  static String fingerprint(String sql) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(Redaction.withoutLiterals(sql).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Every JVM has SHA-256", e);
    }
  }
}
