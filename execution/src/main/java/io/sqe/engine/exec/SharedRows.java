package io.sqe.engine.exec;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.Function0;

/**
 * The rows of a subplan that a plan uses more than once, computed once per execution and replayed
 * to every consumer. The first consumer to open it (on whatever thread, a parallel part's
 * included) reads the subplan to its end into a list; the others wait for that list, checking for
 * cancellation while they wait, and fail with the computation's error if it fails. The rows live
 * in the execution's {@link QueryContext#runtimeState()} and go with it when the query ends; a
 * compiled plan holds only the key.
 */
public final class SharedRows {
  private static final long WAIT_MILLIS = 50;

  private SharedRows() {}

  /**
   * The rows of {@code rows}, computed once per execution under {@code key}. Called from
   * generated code.
   *
   * @param key the subplan's key: all occurrences of one subplan in one plan have the same key,
   *     and no other subplan has it
   * @param maxRows the most rows kept: past them the first consumer streams the rest and every
   *     other consumer computes its own (an estimate let a large subplan through)
   * @param rows the subplan's code; only the consumer that computes the rows runs it (an aggregate's
   *     code reads its input as soon as it runs)
   */
  public static Enumerable<Object> rows(DataContext root, String key, long maxRows, Function0<Enumerable<Object>> rows) {
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        QueryContext context = QueryContext.of(root);
        Computation computation =
            (Computation) context.runtimeState().computeIfAbsent(new Key(key), k -> new Computation());
        return computation.enumerator(context, rows, maxRows);
      }
    };
  }

  /** The key of a subplan's rows in the execution's state, apart from every other kind of state there. */
  private record Key(String name) {}

  /** One subplan's rows in one execution: computed by the first consumer, awaited by the others. */
  private static final class Computation {
    private final AtomicBoolean claimed = new AtomicBoolean();
    /** The rows, or null when there were too many to keep. */
    private final CompletableFuture<List<Object>> result = new CompletableFuture<>();

    Enumerator<Object> enumerator(QueryContext context, Function0<Enumerable<Object>> rows, long maxRows) {
      if (claimed.compareAndSet(false, true)) {
        return compute(rows, maxRows);
      }
      List<Object> stored = await(context);
      return stored != null ? Linq4j.enumerator(stored) : rows.apply().enumerator();
    }

    private Enumerator<Object> compute(Function0<Enumerable<Object>> rows, long maxRows) {
      Enumerator<Object> enumerator = null;
      try {
        enumerator = rows.apply().enumerator();
        List<Object> list = new ArrayList<>();
        while (enumerator.moveNext()) {
          list.add(enumerator.current());
          if (list.size() > maxRows) {
            result.complete(null);
            Enumerator<Object> rest = enumerator;
            enumerator = null;
            return new ReadThenRest(list, rest);
          }
        }
        result.complete(list);
        return Linq4j.enumerator(list);
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
        throw e;
      } finally {
        if (enumerator != null) {
          enumerator.close();
        }
      }
    }

    /**
     * Waits for the consumer computing the rows. It needs nothing from this thread: a shared
     * subplan is whole (no part of a split scan, no state of an enclosing pipeline), so it cannot
     * wait on the consumers that wait on it.
     */
    private List<Object> await(QueryContext context) {
      try {
        while (true) {
          context.checkCancelled();
          try {
            return result.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
          } catch (TimeoutException e) {
            // Still computing: check for cancellation and wait on.
          }
        }
      } catch (ExecutionException e) {
        throw ExecutionErrors.rethrow(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SqeException(ErrorCode.CANCELLED, "Interrupted while waiting for the rows of a shared subplan");
      }
    }
  }

  /** The rows read so far, then the rest of the subplan's. */
  private static final class ReadThenRest implements Enumerator<Object> {
    private final List<Object> read;
    private final Enumerator<Object> rest;
    private int next;
    private Object current;

    ReadThenRest(List<Object> read, Enumerator<Object> rest) {
      this.read = read;
      this.rest = rest;
    }

    @Override
    public Object current() {
      return current;
    }

    @Override
    public boolean moveNext() {
      if (next < read.size()) {
        current = read.get(next);
        read.set(next++, null);
        return true;
      }
      if (rest.moveNext()) {
        current = rest.current();
        return true;
      }
      return false;
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("A shared subplan's rows cannot be rewound");
    }

    @Override
    public void close() {
      rest.close();
    }
  }
}
