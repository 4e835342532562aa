package io.sqe.engine.exec.join;

import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.parallel.ScanPart;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.EnumerableDefaults;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.EqualityComparer;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.calcite.linq4j.function.Function2;
import org.apache.calcite.linq4j.function.Predicate2;

/**
 * Hash joins whose keys are integers (INTEGER, BIGINT, DATE, or several packed into one long), in
 * place of Calcite's {@code hashJoin}, {@code semiJoin} and {@code antiJoin}: the build (right)
 * input goes into a {@link LongKeyJoinTable} of primitive keys, so a probe reads its row's key
 * fields and finds its chain without a boxed key, a {@code HashMap} or a list per key. The results
 * are Calcite's (the order of the rows aside): a NULL key matches nothing; a LEFT, RIGHT or FULL join
 * returns the rows nothing matched with NULLs for the other side; the join's other conditions
 * ({@code predicate}) are tested on the pairs whose keys match; an anti join returns the probe rows
 * with a NULL key. A build side that a parallel pipeline's parts share ({@code sharedKey}) is made
 * into one table that all parts probe.
 *
 * <p>With {@link ExecutionOptions#longKeyJoin()} off, Calcite's runtime runs instead, with the
 * same arguments; so does a join whose keys do not fit one long.
 */
public final class LongKeyHashJoin {
  private static final int CHECK_EVERY = 4096;

  private LongKeyHashJoin() {}

  /**
   * An inner, left, right or full join: Calcite's {@code EnumerableDefaults.hashJoin} (its
   * arguments first, then the root, the key to share the table under, and each key's accessor on
   * each side). Called from generated code.
   */
  public static Enumerable<Object> hashJoin(
      Enumerable<Object> left,
      Enumerable<Object> right,
      Function1<Object, Object> leftKey,
      Function1<Object, Object> rightKey,
      Function2<Object, Object, Object> resultSelector,
      EqualityComparer<Object> comparer,
      boolean generateNullsOnLeft,
      boolean generateNullsOnRight,
      Predicate2<Object, Object> predicate,
      DataContext root,
      String sharedKey,
      Function1<Object, Object>[] leftKeys,
      Function1<Object, Object>[] rightKeys) {
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        QueryContext context = QueryContext.of(root);
        if (!context.options().longKeyJoin()) {
          return EnumerableDefaults.hashJoin(
                  left, right, leftKey, rightKey, resultSelector, comparer, generateNullsOnLeft, generateNullsOnRight, predicate)
              .enumerator();
        }
        LongKeyJoinTable table = table(root, context, sharedKey, right, rightKeys, true);
        if (!table.packed()) {
          return EnumerableDefaults.hashJoin(
                  left,
                  Linq4j.asEnumerable(table.rowList()),
                  leftKey,
                  rightKey,
                  resultSelector,
                  comparer,
                  generateNullsOnLeft,
                  generateNullsOnRight,
                  predicate)
              .enumerator();
        }
        if (table.rowCount() == 0 && !generateNullsOnRight) {
          // Nothing to match and no probe row to return alone: the probe side is not read.
          return Linq4j.emptyEnumerator();
        }
        return new JoinEnumerator(
            context, table, left.enumerator(), leftKeys, resultSelector, generateNullsOnLeft, generateNullsOnRight, predicate);
      }
    };
  }

  /**
   * A semi or anti join: Calcite's {@code EnumerableDefaults.semiJoin} or {@code antiJoin} (its
   * arguments first, then whether it is an anti join, the root, the key to share the table under,
   * and each key's accessor on each side). Called from generated code.
   */
  public static Enumerable<Object> semiJoin(
      Enumerable<Object> left,
      Enumerable<Object> right,
      Function1<Object, Object> leftKey,
      Function1<Object, Object> rightKey,
      EqualityComparer<Object> comparer,
      Predicate2<Object, Object> predicate,
      boolean anti,
      DataContext root,
      String sharedKey,
      Function1<Object, Object>[] leftKeys,
      Function1<Object, Object>[] rightKeys) {
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        QueryContext context = QueryContext.of(root);
        if (!context.options().longKeyJoin()) {
          return calciteSemiJoin(left, right, leftKey, rightKey, comparer, predicate, anti).enumerator();
        }
        LongKeyJoinTable table = table(root, context, sharedKey, right, rightKeys, predicate != null);
        if (!table.packed()) {
          return calciteSemiJoin(left, Linq4j.asEnumerable(table.rowList()), leftKey, rightKey, comparer, predicate, anti)
              .enumerator();
        }
        if (table.rowCount() == 0 && !anti) {
          return Linq4j.emptyEnumerator();
        }
        return new SemiJoinEnumerator(context, table, left.enumerator(), leftKeys, predicate, anti);
      }
    };
  }

  private static Enumerable<Object> calciteSemiJoin(
      Enumerable<Object> left,
      Enumerable<Object> right,
      Function1<Object, Object> leftKey,
      Function1<Object, Object> rightKey,
      EqualityComparer<Object> comparer,
      Predicate2<Object, Object> predicate,
      boolean anti) {
    return anti
        ? EnumerableDefaults.antiJoin(left, right, leftKey, rightKey, comparer, predicate)
        : EnumerableDefaults.semiJoin(left, right, leftKey, rightKey, comparer, predicate);
  }

  /**
   * The build side's table: made here, or once for all the parts of a parallel pipeline when its
   * build input is shared by them (the parts' inputs then hold the same rows).
   */
  private static LongKeyJoinTable table(
      DataContext root,
      QueryContext context,
      String sharedKey,
      Enumerable<Object> right,
      Function1<Object, Object>[] rightKeys,
      boolean keepRows) {
    ScanPart part = sharedKey == null ? null : ScanPart.of(root);
    if (part == null) {
      return LongKeyJoinTable.build(right.enumerator(), rightKeys, keepRows, context);
    }
    return part.shared(new SharedTable(sharedKey), () -> LongKeyJoinTable.build(right.enumerator(), rightKeys, keepRows, context));
  }

  /** The key of a shared build table among the parts' shared state, apart from every other kind of state there. */
  private record SharedTable(String key) {}

  /**
   * An enumerator over the probe rows and a build table: the probe loop's state and what every
   * join's enumerator does alike (cancellation checks, one read only, closing the probe side).
   */
  private abstract static class ProbeEnumerator implements Enumerator<Object> {
    final QueryContext context;
    final LongKeyJoinTable table;
    final Enumerator<Object> outers;
    final Function1<Object, Object>[] leftKeys;
    private int probed;
    Object current;

    ProbeEnumerator(QueryContext context, LongKeyJoinTable table, Enumerator<Object> outers, Function1<Object, Object>[] leftKeys) {
      this.context = context;
      this.table = table;
      this.outers = outers;
      this.leftKeys = leftKeys;
    }

    /** Moves to the next probe row, checking for cancellation now and then; false at the end. */
    boolean nextOuter() {
      if (!outers.moveNext()) {
        return false;
      }
      if (++probed % CHECK_EVERY == 0) {
        context.checkCancelled();
      }
      return true;
    }

    @Override
    public Object current() {
      return current;
    }

    @Override
    public void reset() {
      throw new UnsupportedOperationException("A hash join is read once per enumeration");
    }

    @Override
    public void close() {
      outers.close();
    }
  }

  /** The rows of an inner, left, right or full join. */
  private static final class JoinEnumerator extends ProbeEnumerator {
    private final Function2<Object, Object, Object> resultSelector;
    private final boolean generateNullsOnRight;
    private final Predicate2<Object, Object> predicate;
    /** Per build row, whether a probe row matched it; only when the join returns the unmatched ones. */
    private final boolean[] matched;
    private Object outer;
    /** The next build row to pair with {@code outer}, plus one; 0 when there is none. */
    private int cursor;
    /** Whether {@code outer} is a probe row not yet finished with: it may still need its NULL-extended row. */
    private boolean outerOpen;
    private boolean outerMatched;
    /** While returning the build rows nothing matched: the next one to look at; -1 before. */
    private int unmatched = -1;

    JoinEnumerator(
        QueryContext context,
        LongKeyJoinTable table,
        Enumerator<Object> outers,
        Function1<Object, Object>[] leftKeys,
        Function2<Object, Object, Object> resultSelector,
        boolean generateNullsOnLeft,
        boolean generateNullsOnRight,
        Predicate2<Object, Object> predicate) {
      super(context, table, outers, leftKeys);
      this.resultSelector = resultSelector;
      this.generateNullsOnRight = generateNullsOnRight;
      this.predicate = predicate;
      this.matched = generateNullsOnLeft ? new boolean[table.rowCount()] : null;
    }

    @Override
    public boolean moveNext() {
      if (unmatched >= 0) {
        return nextUnmatched();
      }
      while (true) {
        while (cursor != 0) {
          int row = cursor - 1;
          cursor = table.next(row);
          Object inner = table.row(row);
          if (predicate == null || predicate.apply(outer, inner)) {
            outerMatched = true;
            if (matched != null) {
              matched[row] = true;
            }
            current = resultSelector.apply(outer, inner);
            return true;
          }
        }
        if (outerOpen) {
          outerOpen = false;
          if (!outerMatched && generateNullsOnRight) {
            current = resultSelector.apply(outer, null);
            return true;
          }
        }
        if (!nextOuter()) {
          outer = null;
          if (matched != null) {
            unmatched = 0;
            return nextUnmatched();
          }
          return false;
        }
        outer = outers.current();
        cursor = table.find(outer, leftKeys);
        outerOpen = true;
        outerMatched = false;
      }
    }

    private boolean nextUnmatched() {
      int rows = table.rowCount();
      while (unmatched < rows) {
        int row = unmatched++;
        if (!matched[row]) {
          current = resultSelector.apply(null, table.row(row));
          return true;
        }
      }
      return false;
    }
  }

  /** The probe rows of a semi join that have a match, or of an anti join that have none. */
  private static final class SemiJoinEnumerator extends ProbeEnumerator {
    private final Predicate2<Object, Object> predicate;
    private final boolean anti;

    SemiJoinEnumerator(
        QueryContext context,
        LongKeyJoinTable table,
        Enumerator<Object> outers,
        Function1<Object, Object>[] leftKeys,
        Predicate2<Object, Object> predicate,
        boolean anti) {
      super(context, table, outers, leftKeys);
      this.predicate = predicate;
      this.anti = anti;
    }

    @Override
    public boolean moveNext() {
      while (nextOuter()) {
        Object outer = outers.current();
        int found = table.find(outer, leftKeys);
        if (predicate != null) {
          while (found != 0 && !predicate.apply(outer, table.row(found - 1))) {
            found = table.next(found - 1);
          }
        }
        if ((found != 0) != anti) {
          current = outer;
          return true;
        }
      }
      return false;
    }
  }
}
