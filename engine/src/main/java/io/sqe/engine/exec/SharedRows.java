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
   * @param rows the subplan's code; only the consumer that computes the rows runs it (an aggregate's
   *     code reads its input as soon as it runs)
   */
  public static Enumerable<Object> rows(DataContext root, String key, Function0<Enumerable<Object>> rows) {
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        QueryContext context = QueryContext.of(root);
        Computation computation =
            (Computation) context.runtimeState().computeIfAbsent(new Key(key), k -> new Computation());
        return Linq4j.enumerator(computation.rows(context, rows));
      }
    };
  }

  /** The key of a subplan's rows in the execution's state, apart from every other kind of state there. */
  private record Key(String name) {}

  /** One subplan's rows in one execution: computed by the first consumer, awaited by the others. */
  private static final class Computation {
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CompletableFuture<List<Object>> result = new CompletableFuture<>();

    List<Object> rows(QueryContext context, Function0<Enumerable<Object>> rows) {
      if (claimed.compareAndSet(false, true)) {
        return compute(rows);
      }
      return await(context);
    }

    private List<Object> compute(Function0<Enumerable<Object>> rows) {
      try {
        List<Object> list = new ArrayList<>();
        try (Enumerator<Object> enumerator = rows.apply().enumerator()) {
          while (enumerator.moveNext()) {
            list.add(enumerator.current());
          }
        }
        result.complete(list);
        return list;
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
        throw e;
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
        throw rethrow(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SqeException(ErrorCode.CANCELLED, "Interrupted while waiting for the rows of a shared subplan");
      }
    }

    private static RuntimeException rethrow(Throwable failure) {
      if (failure instanceof RuntimeException) {
        throw (RuntimeException) failure;
      }
      if (failure instanceof Error) {
        throw (Error) failure;
      }
      throw new IllegalStateException(failure);
    }
  }
}
