package io.sqe.flight.audit;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.sqe.engine.audit.Redaction;
import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.session.Session;
import io.sqe.flight.tracing.StatementSpan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The audit record of one run of a statement, begun when the statement arrives and finished once,
 * when it succeeds or fails; later calls are ignored, so every path may finish it.
 */
public final class StatementAudit {
  /** Records nothing: the audit log is off. */
  public static final StatementAudit NONE = new StatementAudit(null, null, null, null, null, null, List.of(), Context.root());

  private final AuditLog log;
  private final String user;
  private final String client;
  private final Session session;
  private final String sql;
  private final StatementFacts facts;
  private final List<List<Object>> parameterSets;
  /** The client's trace this statement's continues; the root context for a new trace. */
  private final Context parent;
  private final StatementSpan span;
  private final Instant start = Instant.now();
  private final long startNanos = System.nanoTime();
  private final AtomicBoolean finished = new AtomicBoolean();
  /** Whether the statement reused a materialization, and why; null when it materializes none. */
  private volatile CommandResult.Reuse reuse;
  /** The Trino cluster the statement was offloaded to; null when it ran here. */
  private volatile String offloadedTo;

  /**
   * @param sql the statement's text, parsed for its facts when the line is written; null when
   *     {@code facts} are known instead (a statement without text, such as a bulk ingest)
   * @param parent the client's trace the statement's trace continues, or the root context
   */
  StatementAudit(
      AuditLog log,
      String user,
      String client,
      Session session,
      String sql,
      StatementFacts facts,
      List<List<Object>> parameterSets,
      Context parent) {
    this(log, user, client, session, sql, facts, parameterSets, parent,
        log == null ? StatementSpan.NONE : log.tracing().begin(parent, user, client));
  }

  private StatementAudit(
      AuditLog log,
      String user,
      String client,
      Session session,
      String sql,
      StatementFacts facts,
      List<List<Object>> parameterSets,
      Context parent,
      StatementSpan span) {
    this.parent = parent;
    this.span = span;
    this.log = log;
    this.facts = facts;
    this.user = user;
    this.client = client;
    this.session = session;
    this.sql = sql;
    this.parameterSets = parameterSets;
  }

  /** The same statement run again from now, with the same parameters. */
  public StatementAudit again() {
    return log == null ? NONE : new StatementAudit(log, user, client, session, sql, facts, parameterSets, parent);
  }

  /**
   * This record with the parameter values the statement runs with, which an error message might
   * quote: the log replaces them there. The values themselves are never logged.
   */
  public StatementAudit withParameters(List<List<Object>> sets) {
    return log == null ? NONE : new StatementAudit(log, user, client, session, sql, facts, sets, parent, span);
  }

  /** The statement materialized a table, reusing what an earlier run committed or not as {@code reuse} says; null: none. */
  public void materialized(CommandResult.Reuse reuse) {
    this.reuse = reuse;
  }

  /** The statement ran on the Trino cluster at {@code uri}; null: it ran here. */
  public void offloadedTo(String uri) {
    this.offloadedTo = uri;
  }

  /**
   * The statement's trace context, its root span current: the statement's work runs in it, so
   * that the engine's spans (parse, plan, scans, commits) are its children.
   */
  public Context trace() {
    return span.context();
  }

  /** The statement's root span, which its end ends. */
  public StatementSpan span() {
    return span;
  }

  /** The statement ended well, having returned or written {@code rows} rows. */
  public void succeeded(String queryId, long rows) {
    finish(queryId, null, rows, false);
  }

  /** The query ended well, having returned {@code rows} rows from the result cache: the line says {@code "cached": true}. */
  public void succeededFromCache(String queryId, long rows) {
    finish(queryId, null, rows, true);
  }

  /**
   * Runs a statement that writes rows, in its trace, and records how it ended: succeeded with the
   * count it returns, or failed with what it threw (which is thrown on).
   */
  public long recordUpdate(String queryId, LongSupplier statement) {
    long rows;
    try (Scope scope = trace().makeCurrent()) {
      rows = statement.getAsLong();
    } catch (RuntimeException | Error e) {
      failed(queryId, e, null);
      throw e;
    }
    succeeded(queryId, rows);
    return rows;
  }

  /**
   * The statement failed.
   *
   * @param rows rows returned before it failed; null when it failed before running
   */
  public void failed(String queryId, Throwable error, Long rows) {
    finish(queryId, error, rows, false);
  }

  private void finish(String queryId, Throwable error, Long rows, boolean cached) {
    if (log == null || !finished.compareAndSet(false, true)) {
      return;
    }
    long elapsed = System.nanoTime() - startNanos;
    String outcome = error == null ? StatementListener.OK : Outcomes.code(error);
    // Parsed here rather than on the log's thread: the listener needs the statement's kind now.
    StatementFacts facts = this.facts != null ? this.facts : log.facts(session, sql);
    log.listener().statementEnded(
        facts.kind(), outcome, session != null && session.openTransaction().isPresent(), elapsed);
    CommandResult.Reuse materialization = error == null ? reuse : null;
    String offloaded = offloadedTo;
    if (materialization != null) {
      log.listener().materialized(materialization);
    }
    if (error == null && offloaded != null) {
      log.listener().offloaded(facts.kind());
    }
    String tag = session == null ? null : session.options().get(SessionCommands.QUERY_TAG);
    span.end(queryId, facts.kind(), sql, tag, facts.read(), facts.written(), outcome, rows, cached);
    String message = error == null ? null : Outcomes.message(error);
    if (message != null && queryId != null) {
      log.listener().statementFailed(queryId, outcome, Redaction.redact(message, sql, values()));
    }
    if (!log.enabled()) {
      return;
    }
    log.record(() -> {
      Map<String, Object> tables = new LinkedHashMap<>();
      tables.put("read", facts.read());
      tables.put("written", facts.written());
      Map<String, Object> line =
          AuditLog.line(start, "statement", user, client, queryId, facts.kind(), tables, outcome, rows, elapsed);
      if (tag != null) {
        line.put("query_tag", tag);
      }
      if (message != null) {
        line.put("error", Redaction.redact(message, sql, values()));
      }
      if (cached) {
        line.put("cached", true);
      }
      if (offloaded != null) {
        line.put("offloaded_to", offloaded);
      }
      if (materialization != null) {
        Map<String, Object> reused = new LinkedHashMap<>();
        reused.put("reused", materialization.reused());
        reused.put("reason", materialization.reason());
        reused.put("detail", materialization.detail());
        line.put("materialization", reused);
      }
      return line;
    });
  }

  private List<Object> values() {
    List<Object> values = new ArrayList<>();
    for (List<Object> set : parameterSets) {
      values.addAll(set);
    }
    return values;
  }
}
