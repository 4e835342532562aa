package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.runtime.Bindable;

/**
 * A compiled plan that fails every run the same way when its generated class cannot be
 * initialised. Calcite computes a plan's constant expressions once, in a static initializer of
 * the generated code, so a constant that fails ({@code 1 / 0}) fails the class: the first run
 * gets the cause inside an ExceptionInInitializerError, and every later run of the same plan (a
 * cached plan, a prepared statement) only NoClassDefFoundError, which says nothing of the
 * statement. Those runs get the first run's cause again.
 */
final class InitializerFailures implements Bindable<Object> {
  private final Bindable<Object> plan;
  private volatile RuntimeException cause;

  InitializerFailures(Bindable<Object> plan) {
    this.plan = requireNonNull(plan, "plan is null");
  }

  @Override
  public Enumerable<Object> bind(DataContext context) {
    Enumerable<Object> rows;
    try {
      rows = plan.bind(context);
    } catch (ExceptionInInitializerError e) {
      throw remember(e);
    } catch (NoClassDefFoundError e) {
      throw again(e);
    }
    return new AbstractEnumerable<>() {
      @Override
      public Enumerator<Object> enumerator() {
        try {
          return new Guarded(rows.enumerator());
        } catch (ExceptionInInitializerError e) {
          throw remember(e);
        } catch (NoClassDefFoundError e) {
          throw again(e);
        }
      }
    };
  }

  private ExceptionInInitializerError remember(ExceptionInInitializerError e) {
    if (e.getCause() instanceof RuntimeException failure) {
      cause = failure;
    }
    return e;
  }

  /** The first run's cause in place of {@code e}, when there was one. */
  private RuntimeException again(NoClassDefFoundError e) {
    RuntimeException first = cause;
    if (first == null) {
      throw e;
    }
    return first;
  }

  /** An enumerator whose class initialisations (of nested generated classes) are guarded too. */
  private final class Guarded implements Enumerator<Object> {
    private final Enumerator<Object> rows;

    Guarded(Enumerator<Object> rows) {
      this.rows = rows;
    }

    @Override
    public Object current() {
      try {
        return rows.current();
      } catch (ExceptionInInitializerError e) {
        throw remember(e);
      } catch (NoClassDefFoundError e) {
        throw again(e);
      }
    }

    @Override
    public boolean moveNext() {
      try {
        return rows.moveNext();
      } catch (ExceptionInInitializerError e) {
        throw remember(e);
      } catch (NoClassDefFoundError e) {
        throw again(e);
      }
    }

    @Override
    public void reset() {
      rows.reset();
    }

    @Override
    public void close() {
      rows.close();
    }
  }
}
