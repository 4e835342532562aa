package io.sqe.engine.exec.grouping;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.function.Function2;

/**
 * GROUP BY and DISTINCT for the code Calcite generates for an aggregate, in place of
 * {@code Enumerable.groupBy(keySelector, accumulatorInitializer, accumulatorAdder, resultSelector)}
 * and {@code Enumerable.distinct()}: the same keys, accumulators and results, with the groups held
 * in a {@link GroupTable} instead of a {@code HashMap} of boxed keys. Like Calcite's, both read
 * their whole input when called and return the groups in no particular order (here, the order in
 * which they first appeared).
 */
public final class HashGrouping {
  /** Rows between two checks of the query's cancel flag. */
  private static final int CANCEL_CHECK_ROWS = 1 << 14;

  private HashGrouping() {}

  /** {@code input.groupBy(keySelector, initializer, adder, resultSelector)}, as Calcite's. */
  public static <S, K, A, R> Enumerable<R> groupBy(
      Enumerable<S> input,
      Function1<S, K> keySelector,
      Function0<A> initializer,
      Function2<A, S, A> adder,
      Function2<K, A, R> resultSelector,
      DataContext root) {
    AtomicBoolean cancelFlag = DataContext.Variable.CANCEL_FLAG.get(root);
    GroupTable table = new GroupTable();
    int rows = 0;
    try (Enumerator<S> enumerator = input.enumerator()) {
      while (enumerator.moveNext()) {
        if (++rows == CANCEL_CHECK_ROWS) {
          rows = 0;
          checkCancelled(cancelFlag, root);
        }
        S row = enumerator.current();
        int group = table.groupOf(keySelector.apply(row));
        if (group < 0) {
          group = ~group;
          table.setValue(group, adder.apply(initializer.apply(), row));
        } else {
          @SuppressWarnings("unchecked")
          A accumulator = (A) table.value(group);
          table.setValue(group, adder.apply(accumulator, row));
        }
      }
    }
    return new Groups<R>(table.size()) {
      @Override
      @SuppressWarnings("unchecked")
      R result(int group) {
        return resultSelector.apply((K) table.key(group), (A) table.value(group));
      }
    };
  }

  /**
   * {@code input.distinct()}, as Calcite's: rows are equal by {@code equals}, or, for rows of the
   * array format (which Calcite compares with {@code ARRAY_COMPARER}), by {@code Arrays.deepEquals}.
   */
  public static <T> Enumerable<T> distinct(Enumerable<T> input, DataContext root) {
    AtomicBoolean cancelFlag = DataContext.Variable.CANCEL_FLAG.get(root);
    GroupTable table = new GroupTable();
    int rows = 0;
    try (Enumerator<T> enumerator = input.enumerator()) {
      while (enumerator.moveNext()) {
        if (++rows == CANCEL_CHECK_ROWS) {
          rows = 0;
          checkCancelled(cancelFlag, root);
        }
        table.groupOf(enumerator.current());
      }
    }
    return new Groups<T>(table.size()) {
      @Override
      @SuppressWarnings("unchecked")
      T result(int group) {
        return (T) table.key(group);
      }
    };
  }

  private static void checkCancelled(AtomicBoolean cancelFlag, DataContext root) {
    if (cancelFlag != null && cancelFlag.get()) {
      QueryContext context;
      try {
        context = QueryContext.of(root);
      } catch (IllegalStateException e) {
        context = null;
      }
      if (context != null) {
        // The query's own error: cancelled, or timed out.
        context.checkCancelled();
      }
      throw new SqeException(ErrorCode.CANCELLED, "Query cancelled");
    }
  }

  /** The result of each group, computed as it is read; enumerable any number of times. */
  private abstract static class Groups<T> extends AbstractEnumerable<T> {
    private final int count;

    Groups(int count) {
      this.count = count;
    }

    abstract T result(int group);

    @Override
    public Enumerator<T> enumerator() {
      return new Enumerator<>() {
        private int next;
        private T current;
        private boolean positioned;

        @Override
        public T current() {
          if (!positioned) {
            throw new NoSuchElementException();
          }
          return current;
        }

        @Override
        public boolean moveNext() {
          if (next >= count) {
            positioned = false;
            return false;
          }
          current = result(next++);
          positioned = true;
          return true;
        }

        @Override
        public void reset() {
          next = 0;
          positioned = false;
        }

        @Override
        public void close() {}
      };
    }
  }
}
