package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import org.apache.calcite.linq4j.Enumerator;

/**
 * The rows of a running query, one {@code Object[]} per row whatever the column count, in the
 * engine's value representation (timestamps as microseconds, dates as days, ...). Close it.
 */
public final class RowStream implements AutoCloseable {
  private final Enumerator<Object> rows;
  private final QueryContext context;
  private final boolean scalarRows;
  private Object[] current;

  RowStream(Enumerator<Object> rows, QueryContext context, int columns) {
    this.rows = requireNonNull(rows, "rows is null");
    this.context = requireNonNull(context, "context is null");
    this.scalarRows = columns == 1;
  }

  public QueryContext context() {
    return context;
  }

  public boolean next() {
    context.checkCancelled();
    try {
      if (!rows.moveNext()) {
        return false;
      }
      Object row = rows.current();
      current = scalarRows ? new Object[] {row} : (Object[]) row;
      return true;
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, context.queryId());
    }
  }

  public Object[] current() {
    return current;
  }

  @Override
  public void close() {
    rows.close();
  }
}
