package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.Prepared;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import io.sqe.flight.audit.StatementAudit;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What a ticket stands for: a statement prepared at GetFlightInfo or PollFlightInfo, which each
 * DoGet of the ticket runs again, or the row count of a command that has run.
 */
final class PendingQuery {
  /** Objects, caches and headers a ticket holds besides its statement, about. */
  private static final long OVERHEAD_BYTES = 4_096;

  private final Session session;
  private final Prepared statement;
  private final List<List<Object>> parameterSets;
  private final boolean commandResult;
  private final AtomicReference<CompletableFuture<QueryExecution>> prefetched = new AtomicReference<>();
  private volatile Instant expiresAt;
  private final AtomicReference<StatementAudit> audit = new AtomicReference<>();
  /** Trailers every DoGet of a command's result sends: what the command reported (a reused materialization). */
  private volatile Map<String, String> trailers = Map.of();
  private final long estimatedBytes;

  /**
   * @param parameterSets the parameter rows it runs with, one execution each
   * @param commandResult whether it is the count of a command that already ran (and committed)
   * @param alsoKept bytes the caller keeps for as long as the ticket (a poll's descriptor)
   */
  PendingQuery(
      Session session, Prepared statement, List<List<Object>> parameterSets, boolean commandResult, Instant expiresAt, long alsoKept) {
    this.session = requireNonNull(session, "session is null");
    this.statement = requireNonNull(statement, "statement is null");
    this.parameterSets = List.copyOf(parameterSets);
    this.commandResult = commandResult;
    this.expiresAt = requireNonNull(expiresAt, "expiresAt is null");
    this.estimatedBytes = OVERHEAD_BYTES + estimate(statement, this.parameterSets) + alsoKept;
  }

  /**
   * What the ticket keeps, estimated: its statement's text and plan description as UTF-16 (the
   * most a Java string takes; the statement's text dominates, about a byte per character measured
   * for ASCII statements of a megabyte), its parameter values and rows, and a fixed overhead.
   */
  long estimatedBytes() {
    return estimatedBytes;
  }

  /** What a statement and its parameter rows keep, estimated as for a ticket (without a ticket's own objects). */
  static long estimate(Prepared statement, List<List<Object>> parameterSets) {
    long bytes = 2L * statement.sql().length();
    if (statement instanceof Prepared.Query) {
      bytes += 2L * ((Prepared.Query) statement).plan().explain().length();
    } else if (statement instanceof Prepared.Rows) {
      for (Object[] row : ((Prepared.Rows) statement).rows()) {
        for (Object value : row) {
          bytes += valueBytes(value);
        }
      }
    }
    for (List<Object> set : parameterSets) {
      for (Object value : set) {
        bytes += valueBytes(value);
      }
    }
    return bytes;
  }

  private static long valueBytes(Object value) {
    if (value instanceof CharSequence) {
      return 40 + 2L * ((CharSequence) value).length();
    }
    if (value instanceof byte[]) {
      return 16 + ((byte[]) value).length;
    }
    return 24;
  }

  Session session() {
    return session;
  }

  Prepared statement() {
    return statement;
  }

  List<List<Object>> parameterSets() {
    return parameterSets;
  }

  boolean commandResult() {
    return commandResult;
  }

  Instant expiresAt() {
    return expiresAt;
  }

  void expiresAt(Instant instant) {
    expiresAt = requireNonNull(instant, "instant is null");
  }

  Map<String, String> trailers() {
    return trailers;
  }

  void trailers(Map<String, String> values) {
    trailers = Map.copyOf(values);
  }

  /** The audit record the first DoGet finishes: it began when the statement arrived. */
  void audit(StatementAudit record) {
    audit.set(record);
  }

  /** The audit record begun with the statement, for the first DoGet, which takes it; null if taken. */
  StatementAudit takeAudit() {
    return audit.getAndSet(null);
  }

  /** Hands the first DoGet an execution PollFlightInfo started (with its first batch ready). */
  void prefetched(CompletableFuture<QueryExecution> execution) {
    prefetched.set(execution);
  }

  /** The execution started in the background for the first DoGet, which takes it; null if none. */
  CompletableFuture<QueryExecution> takePrefetched() {
    return prefetched.getAndSet(null);
  }

  /** Closes an execution started in the background that no DoGet took, once it is ready. */
  void discard() {
    CompletableFuture<QueryExecution> execution = takePrefetched();
    if (execution != null) {
      execution.thenAccept(QueryExecution::close);
    }
  }
}
