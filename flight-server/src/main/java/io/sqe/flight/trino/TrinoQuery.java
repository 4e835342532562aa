package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.TrinoType;
import io.sqe.engine.session.Principal;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One statement a Trino client runs, between the task that runs it and the client that pages
 * through its results: the result's columns once known, the encoded pages not yet fetched (at most
 * a few, so a slow client holds the statement back rather than filling memory), and how it ended.
 *
 * <p>Each page a client fetches answers one {@code nextUri} token; the client may ask for the same
 * token again (a retry after a lost response) and gets the same answer, or for the next one.
 */
final class TrinoQuery {
  /** Trino's target for the data of one response. */
  static final long TARGET_PAGE_BYTES = 1 << 20;
  /** Encoded rows waiting for the client beyond which the statement waits for the client. */
  private static final long MAX_BUFFERED_BYTES = 4 * TARGET_PAGE_BYTES;

  /** Where a statement is, as Trino's query states name it. */
  enum State {
    QUEUED,
    RUNNING,
    FINISHED,
    FAILED
  }

  /** A result column: its name and Trino type. */
  record Column(String name, TrinoType type) {}

  /** What one response says of the statement. */
  record Progress(
      State state, List<Column> columns, byte[] data, long rows, TrinoError error, String updateType, Long updateCount,
      SessionChanges changes, boolean last) {}

  private final String id;
  private final String slug;
  private final Principal owner;
  private final long createdNanos = System.nanoTime();
  private volatile long lastAccessNanos = createdNanos;
  private volatile long startedNanos;

  // The results, guarded by this.
  private State state = State.QUEUED;
  private List<Column> columns;
  private final ArrayDeque<byte[]> pages = new ArrayDeque<>();
  private final ArrayDeque<Long> pageRows = new ArrayDeque<>();
  private long bufferedBytes;
  private long rowsProduced;
  private boolean done;
  private TrinoError error;
  private String updateType;
  private Long updateCount;
  private SessionChanges changes = SessionChanges.NONE;

  /** A response sent to the client: its body, and the session headers that go with it. */
  record Served(byte[] body, SessionChanges changes) {}

  // The pages handed out, guarded by fetching.
  private final Object fetching = new Object();
  private long servedToken;
  private Served served;
  private boolean drained;

  TrinoQuery(String id, String slug, Principal owner) {
    this.id = requireNonNull(id, "id is null");
    this.slug = requireNonNull(slug, "slug is null");
    this.owner = requireNonNull(owner, "owner is null");
  }

  String id() {
    return id;
  }

  String slug() {
    return slug;
  }

  Principal owner() {
    return owner;
  }

  // ---- the running statement's side

  synchronized void started() {
    startedNanos = System.nanoTime();
    if (state == State.QUEUED) {
      state = State.RUNNING;
    }
  }

  synchronized void columns(List<Column> columns) {
    this.columns = List.copyOf(columns);
    notifyAll();
  }

  /**
   * Adds a page of encoded rows, waiting while the client has more than a few pages to fetch.
   *
   * @param stopped whether the statement was cancelled, which ends the wait
   */
  synchronized void page(byte[] rows, long rowCount, BooleanSupplier stopped) {
    while (bufferedBytes >= MAX_BUFFERED_BYTES && !stopped.getAsBoolean()) {
      try {
        wait(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    pages.add(rows);
    pageRows.add(rowCount);
    bufferedBytes += rows.length;
    rowsProduced += rowCount;
    notifyAll();
  }

  /**
   * The kind of command the statement is ({@code INSERT}, {@code CREATE TABLE}), known before it
   * runs: Trino's JDBC driver tells a command from a query by it in the response that first has
   * the result's columns.
   */
  synchronized void updateType(String updateType) {
    this.updateType = updateType;
  }

  /** The rows a command wrote, known when it has run, before its row is handed out. */
  synchronized void updateCount(long updateCount) {
    this.updateCount = updateCount;
  }

  /** The statement ended well. */
  synchronized void finished(SessionChanges changes) {
    this.changes = requireNonNull(changes, "changes is null");
    state = State.FINISHED;
    done = true;
    notifyAll();
  }

  /** The statement failed; pages produced before stay to be fetched first. */
  synchronized void failed(TrinoError error, SessionChanges changes) {
    if (done) {
      return;
    }
    this.error = requireNonNull(error, "error is null");
    this.changes = requireNonNull(changes, "changes is null");
    state = State.FAILED;
    done = true;
    notifyAll();
  }

  /** Wakes a statement waiting for the client, so it sees that it was cancelled. */
  synchronized void wake() {
    notifyAll();
  }

  synchronized boolean done() {
    return done;
  }

  // ---- the client's side

  /**
   * The response to the {@code nextUri} with {@code token}: the one sent for it already when
   * asked again, else the next, built by {@code respond} once results are ready or {@code wait}
   * has passed.
   *
   * @return the response; null for a token that is neither the last one nor the next
   */
  Served fetch(long token, Duration wait, Function<Progress, byte[]> respond) {
    synchronized (fetching) {
      lastAccessNanos = System.nanoTime();
      if (token == servedToken && served != null) {
        return served;
      }
      if (token != servedToken + 1 || drained) {
        return null;
      }
      Progress progress = next(wait);
      served = new Served(respond.apply(progress), progress.changes());
      servedToken = token;
      drained = progress.last();
      return served;
    }
  }

  /** The first response, to the statement's POST: it has not run yet. */
  Progress queued() {
    return new Progress(State.QUEUED, null, null, 0, null, null, null, SessionChanges.NONE, false);
  }

  private synchronized Progress next(Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (pages.isEmpty() && !done) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    byte[] data = null;
    long rows = 0;
    if (!pages.isEmpty()) {
      ByteArrayOutputStream merged = new ByteArrayOutputStream();
      merged.write('[');
      while (!pages.isEmpty() && (rows == 0 || merged.size() + pages.peek().length < TARGET_PAGE_BYTES)) {
        byte[] page = pages.poll();
        if (rows > 0) {
          merged.write(',');
        }
        merged.writeBytes(page);
        bufferedBytes -= page.length;
        rows += pageRows.poll();
      }
      merged.write(']');
      data = merged.toByteArray();
      notifyAll();
    }
    boolean last = done && pages.isEmpty();
    // Until its last response a statement is running: pages produced before a failure come first.
    State shown = last || state == State.QUEUED ? state : State.RUNNING;
    return new Progress(shown, columns, data, rows, last ? error : null, updateType, updateCount, changes, last);
  }

  // ---- figures and housekeeping

  synchronized long rowsProduced() {
    return rowsProduced;
  }

  long elapsedNanos() {
    return System.nanoTime() - createdNanos;
  }

  /** How long it waited before it started running; so far, if it has not. */
  long queuedNanos() {
    long started = startedNanos;
    return (started == 0 ? System.nanoTime() : started) - createdNanos;
  }

  /** How long since its client last asked for results. */
  long idleNanos() {
    return System.nanoTime() - lastAccessNanos;
  }

  /** Whether its client has fetched the response that ends it. */
  boolean drained() {
    synchronized (fetching) {
      return drained;
    }
  }
}
