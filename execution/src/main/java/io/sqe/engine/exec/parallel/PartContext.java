package io.sqe.engine.exec.parallel;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.schema.SchemaPlus;

/**
 * The data context of one part of a parallel pipeline: the query's own context (parameters,
 * cancel flag, statistics) plus the part's index and the state its parts share.
 */
final class PartContext implements DataContext, ScanPart {
  static final String PART_KEY = "sqe.scanPart";

  private final DataContext query;
  private final int index;
  private final Shared shared;
  private final ConcurrentMap<Object, Object> runtimeState = new ConcurrentHashMap<>();

  PartContext(DataContext query, int index, Shared shared) {
    this.query = requireNonNull(query, "query is null");
    this.index = index;
    this.shared = requireNonNull(shared, "shared is null");
  }

  @Override
  public int index() {
    return index;
  }

  @Override
  public int parts() {
    return shared.parts;
  }

  @Override
  public <T> T shared(Object key, Supplier<T> create) {
    return shared.get(key, create);
  }

  @Override
  public boolean handingOver(int part) {
    return shared.handingOver.get(part) != 0;
  }

  @Override
  public ConcurrentMap<Object, Object> runtimeState() {
    return runtimeState;
  }

  @Override
  public ScanPart outer() {
    return ScanPart.of(query);
  }

  @Override
  public SchemaPlus getRootSchema() {
    return query.getRootSchema();
  }

  @Override
  public JavaTypeFactory getTypeFactory() {
    return query.getTypeFactory();
  }

  @Override
  public QueryProvider getQueryProvider() {
    return query.getQueryProvider();
  }

  @Override
  public Object get(String name) {
    return PART_KEY.equals(name) ? this : query.get(name);
  }

  /**
   * The state of one execution of a parallel pipeline, each value made once; closing it closes
   * the values that hold resources, once no part runs any more.
   */
  static final class Shared implements AutoCloseable {
    private final int parts;
    private final ConcurrentHashMap<Object, Once> values = new ConcurrentHashMap<>();
    /** Per part, 1 while it waits to hand a batch over to the pipeline's consumer. */
    private final AtomicIntegerArray handingOver;

    Shared(int parts) {
      this.parts = parts;
      this.handingOver = new AtomicIntegerArray(parts);
    }

    /** Marks whether part {@code part} waits to hand a batch over. */
    void handingOver(int part, boolean waiting) {
      handingOver.set(part, waiting ? 1 : 0);
    }

    <T> T get(Object key, Supplier<T> create) {
      @SuppressWarnings("unchecked")
      T value = (T) values.computeIfAbsent(key, k -> new Once()).get(create);
      return value;
    }

    @Override
    public void close() {
      RuntimeException failure = null;
      for (Once once : values.values()) {
        try {
          once.close();
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  private static final class Once {
    private Object value;
    private RuntimeException failure;
    private boolean made;

    synchronized Object get(Supplier<?> create) {
      if (!made) {
        try {
          value = create.get();
        } catch (RuntimeException e) {
          failure = e;
        }
        made = true;
      }
      if (failure != null) {
        throw failure;
      }
      return value;
    }

    synchronized void close() {
      if (value instanceof AutoCloseable resource) {
        try {
          resource.close();
        } catch (RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }
}
