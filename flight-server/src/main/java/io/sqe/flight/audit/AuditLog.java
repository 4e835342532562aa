package io.sqe.flight.audit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.context.Context;
import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.session.Session;
import io.sqe.flight.tracing.StatementTracing;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: one JSON object per line for every statement and every login attempt, appended
 * to a file by a thread of its own, so a slow disk delays the log and not the statements. Lines
 * are built on that thread too (the statement's facts come from parsing its text there). Closing
 * the log writes every line recorded before and flushes the file.
 *
 * <p>Every line has the same keys: {@code time, event, user, client, query_id, kind, tables,
 * outcome, rows, elapsed_ms}, then {@code method} for logins, {@code query_tag} for a statement
 * whose session has one (the session property {@code query_tag}, Trino's client tags) and {@code
 * error} for failures. No
 * line holds a password, a token, a parameter value or the statement's text.
 */
public final class AuditLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  /** Lines waiting for the disk; a recorder waits when this many are queued. */
  private static final int QUEUE_CAPACITY = 65_536;
  private static final long CLOSE_WAIT_SECONDS = 30;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AuditLog DISABLED = new AuditLog(null, null, StatementListener.NONE, StatementTracing.OFF);

  private final Path file;
  private final Writer out;
  private final BlockingQueue<Supplier<Map<String, Object>>> queue;
  private final Thread writer;
  private final Supplier<Map<String, Object>> stop = LinkedHashMap::new;
  private final StatementListener listener;
  private final StatementTracing tracing;
  // Every statement's kind feeds the metrics, so its facts are needed on the request thread; the
  // statements that come again (those the plan cache serves without parsing) are not parsed again.
  private final Cache<FactsKey, StatementFacts> facts = Caffeine.newBuilder().maximumSize(10_000).build();

  private record FactsKey(String catalog, String schema, String sql) {}
  private volatile boolean closed;

  private AuditLog(Path file, Writer out, StatementListener listener, StatementTracing tracing) {
    this.file = file;
    this.out = out;
    this.listener = requireNonNull(listener, "listener is null");
    this.tracing = requireNonNull(tracing, "tracing is null");
    if (out == null) {
      this.queue = null;
      this.writer = null;
    } else {
      this.queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
      this.writer = new Thread(this::writeLines, "sqe-audit-log");
      this.writer.setDaemon(true);
    }
  }

  /** A log that records nothing. */
  public static AuditLog disabled() {
    return DISABLED;
  }

  /** A log that writes no lines but tells {@code listener} of every statement. */
  public static AuditLog disabled(StatementListener listener) {
    return disabled(listener, StatementTracing.OFF);
  }

  /** A log that writes no lines but tells {@code listener} of every statement and traces it; closing it closes {@code tracing}. */
  public static AuditLog disabled(StatementListener listener, StatementTracing tracing) {
    return new AuditLog(null, null, listener, tracing);
  }

  /** Appends to {@code file}, created readable by its owner only if it does not exist. */
  public static AuditLog open(Path file) throws IOException {
    return open(file, StatementListener.NONE);
  }

  /** As {@link #open(Path)}, telling {@code listener} of every statement too. */
  public static AuditLog open(Path file, StatementListener listener) throws IOException {
    return open(file, listener, StatementTracing.OFF);
  }

  /** As {@link #open(Path, StatementListener)}, tracing every statement too; closing the log closes {@code tracing}. */
  public static AuditLog open(Path file, StatementListener listener, StatementTracing tracing) throws IOException {
    requireNonNull(file, "file is null");
    Path absolute = file.toAbsolutePath();
    if (absolute.getParent() != null) {
      Files.createDirectories(absolute.getParent());
    }
    try {
      if (absolute.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(absolute, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(absolute);
      }
    } catch (FileAlreadyExistsException e) {
      // Appending to the log of an earlier run.
    }
    Writer out = Files.newBufferedWriter(absolute, UTF_8, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    AuditLog log = new AuditLog(absolute, out, listener, tracing);
    log.writer.start();
    return log;
  }

  public boolean enabled() {
    return out != null;
  }

  /** Whether statements need a record: for the log's lines or for its listener. */
  public boolean recordsStatements() {
    return enabled() || listener != StatementListener.NONE || tracing.enabled();
  }

  StatementListener listener() {
    return listener;
  }

  /** The tracer of statements, which finds the trace a client's call continues. */
  public StatementTracing tracing() {
    return tracing;
  }

  /** The facts of {@code sql} as {@code session} runs it, parsed once per catalog, schema and text. */
  StatementFacts facts(Session session, String sql) {
    return facts.get(new FactsKey(session.catalog(), session.schema(), sql), key -> StatementFacts.of(session, sql));
  }

  /** The file it appends to; null when disabled. */
  public Path file() {
    return file;
  }

  /**
   * Records a login attempt.
   *
   * @param user the name the client gave; null when it gave none (a token)
   * @param method how it authenticated: {@code password}, {@code oidc-password}, {@code oidc-token}, {@code token}
   * @param failure why it was refused; null when it succeeded
   */
  public void login(String user, String client, String method, Throwable failure, Instant start, long elapsedNanos) {
    if (!enabled()) {
      return;
    }
    String outcome = failure == null ? "ok" : Outcomes.code(failure);
    String error = failure == null ? null : Outcomes.message(failure);
    record(() -> {
      Map<String, Object> line = line(start, "login", user, client, null, null, null, outcome, null, elapsedNanos);
      line.put("method", method);
      if (error != null) {
        line.put("error", error);
      }
      return line;
    });
  }

  /**
   * Starts the record of a statement, to be finished once with its outcome.
   *
   * @param session the session it runs in, whose defaults qualify the tables it names
   * @param sql its text, which the log never holds: it gives the statement's kind and tables
   */
  public StatementAudit statement(String user, String client, Session session, String sql) {
    return statement(user, client, session, sql, Context.root());
  }

  /**
   * As {@link #statement(String, String, Session, String)}, its trace continuing {@code
   * trace}, the client's ({@link StatementTracing#clientContext}).
   */
  public StatementAudit statement(String user, String client, Session session, String sql, Context trace) {
    if (!recordsStatements()) {
      return StatementAudit.NONE;
    }
    return new StatementAudit(this, user, client, session, sql, null, List.of(), trace);
  }

  /** Starts the record of a statement that has no text, whose facts the caller knows (a bulk ingest). */
  public StatementAudit statement(String user, String client, StatementFacts facts) {
    return statement(user, client, facts, Context.root());
  }

  /** As {@link #statement(String, String, StatementFacts)}, its trace continuing {@code trace}, the client's. */
  public StatementAudit statement(String user, String client, StatementFacts facts, Context trace) {
    if (!recordsStatements()) {
      return StatementAudit.NONE;
    }
    return new StatementAudit(this, user, client, null, null, requireNonNull(facts, "facts is null"), List.of(), trace);
  }

  static Map<String, Object> line(
      Instant time,
      String event,
      String user,
      String client,
      String queryId,
      String kind,
      Object tables,
      String outcome,
      Long rows,
      long elapsedNanos) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("time", time.toString());
    line.put("event", event);
    line.put("user", user);
    line.put("client", client);
    line.put("query_id", queryId);
    line.put("kind", kind);
    line.put("tables", tables);
    line.put("outcome", outcome);
    line.put("rows", rows);
    line.put("elapsed_ms", TimeUnit.NANOSECONDS.toMillis(elapsedNanos));
    return line;
  }

  /** Queues a line, built later on the writer's thread. */
  void record(Supplier<Map<String, Object>> line) {
    if (closed) {
      LOG.warn("An audit line was recorded after the audit log closed; it is lost");
      return;
    }
    try {
      queue.put(line);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Interrupted while recording an audit line; it is lost");
    }
  }

  private void writeLines() {
    while (true) {
      Supplier<Map<String, Object>> next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        // Only close() stops the writer, through the stop marker.
        continue;
      }
      if (next == stop) {
        flush();
        return;
      }
      write(next);
      if (queue.isEmpty()) {
        flush();
      }
    }
  }

  private void write(Supplier<Map<String, Object>> line) {
    try {
      out.write(JSON.writeValueAsString(line.get()));
      out.write('\n');
    } catch (JsonProcessingException | RuntimeException e) {
      LOG.error("Cannot build an audit line: {}", e.toString());
    } catch (IOException e) {
      LOG.error("Cannot write to the audit log {}: {}", file, e.toString());
    }
  }

  private void flush() {
    try {
      out.flush();
    } catch (IOException e) {
      LOG.error("Cannot write to the audit log {}: {}", file, e.toString());
    }
  }

  /** Writes every line recorded so far, then closes the file. */
  @Override
  public void close() {
    // Statements have ended by now: their spans leave before the server stops.
    tracing.close();
    if (!enabled() || closed) {
      return;
    }
    closed = true;
    try {
      queue.put(stop);
      writer.join(TimeUnit.SECONDS.toMillis(CLOSE_WAIT_SECONDS));
      if (writer.isAlive()) {
        LOG.warn("The audit log {} did not finish writing within {} s", file, CLOSE_WAIT_SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      out.close();
    } catch (IOException e) {
      LOG.error("Cannot close the audit log {}: {}", file, e.toString());
    }
  }
}
