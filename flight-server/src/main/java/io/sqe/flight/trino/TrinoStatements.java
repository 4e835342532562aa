package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.flight.auth.HttpAuthentication;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trino's statement resource: {@code POST /v1/statement} starts a statement and answers at once
 * with its first {@code nextUri}; {@code GET} of that URI waits a moment for results and answers
 * with the next page; {@code DELETE} cancels. Each URI carries a secret (the slug) and belongs to
 * the user who started the statement. A statement whose client stops fetching for the client
 * timeout is cancelled as abandoned.
 */
final class TrinoStatements implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrinoStatements.class);
  /** How long a fetch waits for results before it answers with none (Trino's default maxWait). */
  private static final Duration MAX_WAIT = Duration.ofSeconds(1);
  /** How long a statement's last response stays for a client that asks for it again. */
  private static final Duration DRAINED_RETENTION = Duration.ofMinutes(1);
  /** How recently a client must have asked for a statement's results to count as fetching them. */
  private static final Duration FETCHING = MAX_WAIT.multipliedBy(3);
  /** Trino's query.max-length. */
  static final int MAX_SQL_CHARACTERS = 1_000_000;
  private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss");
  private static final String PATH = "/v1/statement/executing/";

  private final StatementTask.Context context;
  private final HttpAuthentication authentication;
  private final Duration clientTimeout;
  private final Map<String, TrinoQuery> queries = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final String serverId;
  private final AtomicInteger sequence = new AtomicInteger();
  private final ExecutorService tasks;
  private final ScheduledExecutorService reaper;
  private volatile boolean refusing;

  /** An answer to one HTTP request. */
  record Answer(int status, String contentType, byte[] body, List<Map.Entry<String, String>> headers) {
    static Answer json(byte[] body, List<Map.Entry<String, String>> headers) {
      return new Answer(200, "application/json", body, headers);
    }

    static Answer text(int status, String message) {
      return new Answer(status, "text/plain; charset=utf-8", message.getBytes(StandardCharsets.UTF_8), List.of());
    }
  }

  TrinoStatements(StatementTask.Context context, HttpAuthentication authentication, Duration clientTimeout) {
    this.context = requireNonNull(context, "context is null");
    this.authentication = requireNonNull(authentication, "authentication is null");
    this.clientTimeout = requireNonNull(clientTimeout, "clientTimeout is null");
    this.serverId = randomLetters(5);
    AtomicInteger threads = new AtomicInteger();
    this.tasks = Executors.newCachedThreadPool(task -> {
      Thread thread = new Thread(task, "trino-statement-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    this.reaper = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "trino-statement-reaper");
      thread.setDaemon(true);
      return thread;
    });
    reaper.scheduleWithFixedDelay(this::reap, 5, 5, TimeUnit.SECONDS);
  }

  /** {@code POST /v1/statement}: starts {@code sql} and answers with its first nextUri. */
  Answer submit(Request request, byte[] body) {
    if (refusing) {
      return Answer.text(503, "The server is shutting down");
    }
    HttpAuthentication.Caller caller;
    try {
      caller = authentication.authenticate(request.authorization(), request.clientAddress());
    } catch (HttpAuthentication.Refused e) {
      return unauthenticated(e);
    }
    ClientHeaders headers;
    try {
      headers = ClientHeaders.read(request.headers());
    } catch (ClientHeaders.BadHeaderException e) {
      return Answer.text(400, e.getMessage());
    }
    if (headers.user() != null && !headers.user().equals(caller.principal().user())) {
      return Answer.text(403, "Access Denied: User " + caller.principal().user() + " cannot impersonate user " + headers.user());
    }
    String sql = new String(body, StandardCharsets.UTF_8);
    if (sql.isBlank()) {
      return Answer.text(400, "SQL statement is empty");
    }
    if (sql.length() > MAX_SQL_CHARACTERS) {
      return Answer.text(400, "Query text length (" + sql.length() + ") exceeds the maximum length (" + MAX_SQL_CHARACTERS + ")");
    }
    TrinoQuery query = new TrinoQuery(newQueryId(), randomLetters(32), caller.principal());
    TrackedQuery tracked = context.engine().queries().track(query.id(), caller.principal(), sql);
    tracked.label(null, headers.source(), headers.queryTag());
    // However it is cancelled (DELETE, CALL system.cancel_query), a statement waiting for its client hears of it.
    tracked.onCancel(query::wake);
    queries.put(query.id(), query);
    try {
      // The task runs in the client's trace (its traceparent header), which the statement's continues.
      io.opentelemetry.context.Context clientTrace = context.audit().tracing().clientContext(name -> {
        List<String> values = request.headers().apply(name);
        return values == null || values.isEmpty() ? null : values.get(0);
      });
      tasks.execute(clientTrace.wrap(new StatementTask(query, sql, headers, caller, request.clientAddress(), context)));
    } catch (RejectedExecutionException e) {
      forget(query);
      return Answer.text(503, "The server is shutting down");
    }
    return Answer.json(response(query, query.queued(), 1, request.baseUri()), List.of());
  }

  /** {@code HEAD /v1/statement}: whether the credentials are good (the JDBC driver's isValid). */
  Answer check(Request request) {
    try {
      authentication.authenticate(request.authorization(), request.clientAddress());
      return new Answer(200, null, new byte[0], List.of());
    } catch (HttpAuthentication.Refused e) {
      return unauthenticated(e);
    }
  }

  /** {@code GET} of a nextUri: the next page of the statement. */
  Answer fetch(Request request, String path) {
    Located located = locate(request, path);
    if (located.answer() != null) {
      return located.answer();
    }
    TrinoQuery query = located.query();
    TrinoQuery.Served served =
        query.fetch(located.token(), MAX_WAIT, progress -> response(query, progress, located.token() + 1, request.baseUri()));
    if (served == null) {
      return Answer.text(410, "Token " + located.token() + " of query " + query.id() + " has been answered already or is out of sequence");
    }
    return Answer.json(served.body(), served.changes().headers());
  }

  /** {@code DELETE} of a nextUri: cancels the statement. */
  Answer cancel(Request request, String path) {
    Located located = locate(request, path);
    if (located.answer() != null) {
      return located.answer();
    }
    TrinoQuery query = located.query();
    if (!query.done()) {
      context.engine().queries().find(query.id()).ifPresent(tracked -> tracked.cancelBy(query.owner()));
    }
    return new Answer(204, null, new byte[0], List.of());
  }

  /** The statement a nextUri names, once the caller is known to be its user. */
  private record Located(TrinoQuery query, long token, Answer answer) {}

  private Located locate(Request request, String path) {
    HttpAuthentication.Caller caller;
    try {
      caller = authentication.authenticate(request.authorization(), request.clientAddress());
    } catch (HttpAuthentication.Refused e) {
      return new Located(null, 0, unauthenticated(e));
    }
    String[] parts = path.substring(PATH.length()).split("/");
    long token;
    try {
      token = parts.length == 3 ? Long.parseLong(parts[2]) : -1;
    } catch (NumberFormatException e) {
      token = -1;
    }
    TrinoQuery query = parts.length == 3 ? queries.get(parts[0]) : null;
    // A wrong slug is a URI this server never issued: as unknown as a wrong query id.
    if (query == null || token < 0 || !query.slug().equals(parts[1])) {
      return new Located(null, 0, Answer.text(404, "Query not found: it never existed, or it ended and expired"));
    }
    if (!query.owner().user().equals(caller.principal().user())) {
      return new Located(null, 0, Answer.text(403, "Access Denied: query " + query.id() + " belongs to another user"));
    }
    return new Located(query, token, null);
  }

  private byte[] response(TrinoQuery query, TrinoQuery.Progress progress, long nextToken, String baseUri) {
    String nextUri = progress.last() ? null : baseUri + PATH + query.id() + "/" + query.slug() + "/" + nextToken;
    Optional<QueryStats> stats = context.engine().queries().find(query.id()).flatMap(TrackedQuery::stats);
    QueryResultsWriter.Figures figures = new QueryResultsWriter.Figures(
        TimeUnit.NANOSECONDS.toMillis(query.elapsedNanos()),
        TimeUnit.NANOSECONDS.toMillis(query.queuedNanos()),
        query.rowsProduced(),
        stats.map(QueryStats::bytesScanned).orElse(0L),
        stats.map(QueryStats::peakMemoryBytes).orElse(0L),
        stats.map(QueryStats::filesPlanned).orElse(0L),
        stats.map(QueryStats::filesScanned).orElse(0L));
    return QueryResultsWriter.write(query.id(), baseUri + "/ui/query.html?" + query.id(), nextUri, progress, figures);
  }

  private static Answer unauthenticated(HttpAuthentication.Refused e) {
    Answer text = Answer.text(e.status(), e.getMessage());
    if (e.status() != 401) {
      return text;
    }
    return new Answer(401, text.contentType(), text.body(),
        List.of(Map.entry("WWW-Authenticate", "Basic realm=\"SQE\""), Map.entry("WWW-Authenticate", "Bearer realm=\"SQE\"")));
  }

  /**
   * Cancels the statements whose clients stopped fetching for the client timeout (Trino's
   * {@code query.client.timeout}), and drops those whose last response was fetched a while ago.
   */
  private void reap() {
    try {
      for (TrinoQuery query : queries.values()) {
        if (query.drained() && query.done()) {
          if (query.idleNanos() > DRAINED_RETENTION.toNanos()) {
            forget(query);
          }
        } else if (query.idleNanos() > clientTimeout.toNanos()) {
          LOG.info("Cancelling query {} of {}: its client has not fetched results for {}", query.id(), query.owner().user(), clientTimeout);
          context.engine().queries().find(query.id()).ifPresent(tracked -> tracked.cancel(
              ErrorCode.CANCELLED, "Query " + query.id() + " was abandoned by its client: no results fetched for " + clientTimeout));
          forget(query);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot reap Trino statements", e);
    }
  }

  private void forget(TrinoQuery query) {
    queries.remove(query.id(), query);
    context.engine().queries().forget(query.id());
  }

  /** Answers new statements with 503 from now on; running ones go on. */
  void refuseNew() {
    refusing = true;
  }

  /**
   * Waits until no statement is running and no client is still fetching one's results, or until
   * {@code timeout} has passed. A statement that has ended is waited for while its client fetches
   * (it asked within the last {@link #FETCHING} and has not had the last response), not when its
   * client has gone quiet.
   *
   * @return whether none is left
   */
  boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (queries.values().stream().anyMatch(query -> !query.done() || (!query.drained() && query.idleNanos() < FETCHING.toNanos()))) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /**
   * Cancels the statements still running and waits for them to end, so that none holds memory
   * after this returns; rolls back the transactions clients still hold.
   */
  @Override
  public void close() {
    refusing = true;
    reaper.shutdownNow();
    for (TrinoQuery query : queries.values()) {
      context.engine().queries().find(query.id()).ifPresent(tracked -> tracked.cancel(ErrorCode.CANCELLED, "The server is shutting down"));
    }
    tasks.shutdown();
    try {
      if (!tasks.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("Trino statements still running 10 s after they were cancelled");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (TrinoQuery query : queries.values()) {
      forget(query);
    }
    context.transactions().close();
  }

  /** A query id in Trino's form: start time, a sequence number and this server's id. */
  private String newQueryId() {
    int next = Math.floorMod(sequence.getAndIncrement(), 100_000);
    return ID_TIME.format(LocalDateTime.now(ZoneOffset.UTC)) + "_" + String.format("%05d", next) + "_" + serverId;
  }

  private String randomLetters(int length) {
    byte[] bytes = new byte[(length + 1) / 2];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes).substring(0, length);
  }

  /** What the statement resource reads of an HTTP request. */
  interface Request {
    /** The {@code Authorization} header; null when absent. */
    String authorization();

    /** The address the request came from. */
    String clientAddress();

    /** Every value of a header, by name. */
    Function<String, List<String>> headers();

    /** The scheme, host and port the client addressed, for the URIs in responses. */
    String baseUri();
  }
}
