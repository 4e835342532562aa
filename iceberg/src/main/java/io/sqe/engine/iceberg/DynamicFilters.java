package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.parallel.ScanPart;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.Function0;
import org.apache.calcite.linq4j.function.Function1;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Dynamic filters: a hash join (inner or semi) that has built its right input hands the set of that
 * input's join keys (or, past {@link #MAX_KEYS}, their minimum and maximum) to the Iceberg scan
 * under its left input before that scan opens. The scan then skips files and row groups whose
 * column bounds cannot hold a key, and drops rows on the vectors whose key is not in the set
 * (rows that could not have joined).
 *
 * <p>At plan time the join offers a {@link Slot} for a scan column ({@link #offer}) while its left
 * input is compiled, and the scan takes it ({@link #claim}). At run time the join's two inputs are
 * wrapped by a {@link Publisher}: the build side collects the keys as the join reads it and
 * publishes them in the execution's {@link QueryContext}; the probe side makes sure the build side
 * has been read before it opens (Calcite's semi join opens its left input first, so there the
 * build side is read ahead into a list that the join then reads).
 *
 * <p>Inside a parallel pipeline every part runs the join's code for itself, over the build rows
 * the parts share: a join's state and the keys it publishes live in the part's own state ({@link
 * ScanPart#runtimeState()}), so parts never see each other's half-read build. A scan looks for its
 * keys in its part's state, then in the enclosing parts' (a parallel pipeline inside a shared
 * build side), then in the query's, where a join above the parallel pipelines publishes them, as
 * does a columnar join whose build side the parts share (read once, its keys published once).
 */
public final class DynamicFilters {
  /**
   * Beyond this many distinct keys only their range is published. Dense keys (TPC-H Q3's 147,000
   * order keys out of 6,000,000) become a bitmap of their range ({@link LongKeySet#frozenOf}).
   */
  static final int MAX_KEYS = 2_000_000;
  /** Build rows whose keys are collected at most (with duplicates): 32 MiB of keys. */
  private static final int MAX_COLLECTED_KEYS = 4 << 20;
  /** Up to this many keys are also given to Iceberg's file planning as an IN list; beyond, a range. */
  static final int IN_LIST_KEYS = 200;

  private static final ThreadLocal<List<Target>> OFFERED = ThreadLocal.withInitial(ArrayList::new);

  private DynamicFilters() {}

  /** Whether a dynamic filter can act on column {@code column} (of its projection) of {@code scan}. */
  public static boolean canFilter(IcebergTableScan scan, int column) {
    if (scan.limit() != null || column >= scan.projection().size() || scan.isMetadataColumn(column)) {
      // Under a LIMIT, dropping rows early would change which rows the limit keeps.
      return false;
    }
    Type.TypeID type = scan.column(column).type().typeId();
    return type == Type.TypeID.INTEGER || type == Type.TypeID.LONG || type == Type.TypeID.DATE;
  }

  /** Offers {@code slot}'s keys to {@code scan}'s column until {@link #withdraw}; plan compilation only. */
  public static void offer(IcebergTableScan scan, int column, Slot slot) {
    OFFERED.get().add(new Target(scan, column, slot));
  }

  /** Withdraws the offers of {@code slot} that no scan took. */
  public static void withdraw(Slot slot) {
    OFFERED.get().removeIf(target -> target.slot == slot);
  }

  /** The offers made to this scan node, which it takes. */
  static List<Target> claim(IcebergTableScan scan) {
    List<Target> claimed = new ArrayList<>();
    for (Iterator<Target> it = OFFERED.get().iterator(); it.hasNext(); ) {
      Target target = it.next();
      if (target.scan == scan) {
        claimed.add(target);
        it.remove();
      }
    }
    return claimed;
  }

  /**
   * Publishes, for one execution, a columnar hash join's build keys to the scan that reads {@code
   * slot}: {@code count} non-null keys with duplicates, or with {@code keys} null only their range.
   */
  public static void publish(QueryContext context, Slot slot, long[] keys, int count, long min, long max) {
    LongKeySet set = keys == null ? null : LongKeySet.frozenOf(keys, count, min, max, MAX_KEYS);
    slot.publish(context, new Keys(set, min, max));
  }

  /** The state of the join code running under {@code root}: its part's inside a parallel pipeline, else the query's. */
  private static ConcurrentMap<Object, Object> state(DataContext root) {
    ScanPart part = ScanPart.of(root);
    return part != null ? part.runtimeState() : QueryContext.of(root).runtimeState();
  }

  /** Where a join publishes one key column's values for one execution. */
  public static final class Slot {
    private final String name;

    public Slot(String name) {
      this.name = requireNonNull(name, "name is null");
    }

    /**
     * The keys published in this execution to the scan running under {@code root}, or null if none
     * are (yet): by a join in the same part, in an enclosing part, or above the parallel pipelines.
     */
    Keys current(DataContext root) {
      for (ScanPart part = ScanPart.of(root); part != null; part = part.outer()) {
        Object keys = part.runtimeState().get(this);
        if (keys != null) {
          return (Keys) keys;
        }
      }
      QueryContext context = QueryContext.of(root);
      Object keys = context.runtimeState().get(this);
      // A columnar part's own context holds its part's state; the whole execution's comes last.
      return (Keys) (keys != null ? keys : context.whole().runtimeState().get(this));
    }

    void publish(DataContext root, Keys keys) {
      state(root).put(this, keys);
    }

    void clear(DataContext root) {
      state(root).remove(this);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** A slot a scan reads, with the table column it filters. */
  record Target(IcebergTableScan scan, int column, Slot slot) {}

  /** The field a slot's keys filter, for the scan's run-time half. */
  record ColumnFilter(Types.NestedField field, Slot slot) {
    /** An Iceberg expression implied by membership in {@code keys}, for file and row-group pruning. */
    Expression expression(Keys keys) {
      if (keys.set != null && keys.set.size() == 0) {
        return Expressions.alwaysFalse();
      }
      String name = field.name();
      boolean ints = field.type().typeId() != Type.TypeID.LONG;
      if (keys.set != null && keys.set.size() <= IN_LIST_KEYS) {
        List<Object> values = new ArrayList<>();
        for (long key : keys.set.toArray()) {
          values.add(ints ? (Object) (int) key : (Object) key);
        }
        return Expressions.in(name, values);
      }
      return Expressions.and(
          Expressions.greaterThanOrEqual(name, ints ? (Object) (int) keys.min : (Object) keys.min),
          Expressions.lessThanOrEqual(name, ints ? (Object) (int) keys.max : (Object) keys.max));
    }
  }

  /**
   * The keys of one build: all of them, or only their range when there were too many ({@code set}
   * holds the distinct non-null keys; null when there were more than {@link #MAX_KEYS}).
   */
  record Keys(LongKeySet set, long min, long max) {}

  /**
   * Collects the non-null keys of one column of the build side, appended to an array (cheaper per
   * build row than a hash set; the set is built once, at the end, often as a bitmap).
   */
  private static final class KeyCollector {
    private long[] keys = new long[1024];
    private int count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private boolean unusable;
    private boolean tooMany;

    void add(Object key) {
      if (key == null || unusable) {
        // A NULL key matches nothing in an inner or semi equi-join.
        return;
      }
      if (!(key instanceof Integer || key instanceof Long)) {
        unusable = true;
        return;
      }
      long value = ((Number) key).longValue();
      min = Math.min(min, value);
      max = Math.max(max, value);
      if (tooMany) {
        return;
      }
      if (count == keys.length) {
        if (count >= MAX_COLLECTED_KEYS) {
          tooMany = true;
          keys = null;
          return;
        }
        keys = Arrays.copyOf(keys, Math.min(count * 2, MAX_COLLECTED_KEYS));
      }
      keys[count++] = value;
    }

    /** The keys to publish, or null when they cannot filter. */
    Keys keys() {
      if (unusable) {
        return null;
      }
      LongKeySet set = tooMany ? null : LongKeySet.frozenOf(keys, count, min, max, MAX_KEYS);
      keys = null;
      return new Keys(set, min, max);
    }
  }

  /**
   * Wraps the two inputs of one hash join in generated code. Its per-execution state lives in the
   * execution's {@link QueryContext} under this object.
   */
  public static final class Publisher {
    private final Slot[] slots;

    public Publisher(List<Slot> slots) {
      this.slots = slots.toArray(new Slot[0]);
    }

    /**
     * The probe (left) input, whose code runs and which opens only once the build input's keys are
     * published: when the join has not read its build input yet, this reads it ahead. Called
     * before {@link #build}.
     */
    public Enumerable<Object> probe(Function0<Enumerable<Object>> input, DataContext root) {
      return new AbstractEnumerable<>() {
        @Override
        public Enumerator<Object> enumerator() {
          State state = state(root);
          if (state.built) {
            state.built = false;
          } else if (state.buildInput != null) {
            List<Object> rows = new ArrayList<>();
            try (Enumerator<Object> build = new CollectingEnumerator(root, state.buildInput.enumerator(), state.keys)) {
              while (build.moveNext()) {
                rows.add(build.current());
              }
            }
            state.readAhead = rows;
          } else {
            clear(root);
          }
          return input.apply().enumerator();
        }
      };
    }

    /** The build (right) input, collecting and publishing its keys as the join reads it. */
    public Enumerable<Object> build(Enumerable<Object> input, DataContext root, Function1<Object, Object>[] keys) {
      State registered = state(root);
      registered.buildInput = input;
      registered.keys = keys;
      return new AbstractEnumerable<>() {
        @Override
        public Enumerator<Object> enumerator() {
          State state = state(root);
          if (state.readAhead != null) {
            // The probe side read this input ahead and published its keys already.
            List<Object> rows = state.readAhead;
            state.readAhead = null;
            return Linq4j.enumerator(rows);
          }
          CollectingEnumerator collecting = new CollectingEnumerator(root, input.enumerator(), keys);
          collecting.onPublished = () -> state.built = true;
          return collecting;
        }
      };
    }

    private void clear(DataContext root) {
      for (Slot slot : slots) {
        slot.clear(root);
      }
    }

    /** This join's state in the execution (or part of one) running under {@code root}. */
    private State state(DataContext root) {
      return (State) DynamicFilters.state(root).computeIfAbsent(this, key -> new State());
    }

    /** Publishes the keys of a build input once it has been read to the end; until then none are. */
    private final class CollectingEnumerator implements Enumerator<Object> {
      private final DataContext root;
      private final Enumerator<Object> input;
      private final Function1<Object, Object>[] keys;
      private final KeyCollector[] collectors;
      private Runnable onPublished = () -> {};
      private boolean published;

      CollectingEnumerator(DataContext root, Enumerator<Object> input, Function1<Object, Object>[] keys) {
        this.root = root;
        this.input = input;
        this.keys = keys;
        this.collectors = new KeyCollector[keys.length];
        for (int i = 0; i < keys.length; i++) {
          collectors[i] = new KeyCollector();
        }
        clear(root);
      }

      @Override
      public Object current() {
        return input.current();
      }

      @Override
      public boolean moveNext() {
        if (input.moveNext()) {
          Object row = input.current();
          for (int i = 0; i < keys.length; i++) {
            collectors[i].add(keys[i].apply(row));
          }
          return true;
        }
        if (!published) {
          published = true;
          for (int i = 0; i < slots.length; i++) {
            Keys collected = collectors[i].keys();
            if (collected != null) {
              slots[i].publish(root, collected);
            }
          }
          onPublished.run();
        }
        return false;
      }

      @Override
      public void reset() {
        throw new UnsupportedOperationException("A join's build input is read once per enumeration");
      }

      @Override
      public void close() {
        input.close();
      }
    }

    /** One execution's state of this join: its build input, and whether it was read or read ahead. */
    private static final class State {
      Enumerable<Object> buildInput;
      Function1<Object, Object>[] keys;
      boolean built;
      List<Object> readAhead;
    }
  }
}
