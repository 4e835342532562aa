package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.schema.SchemaPlus;

/**
 * Everything one execution of a compiled plan sees: the parameter values, the clock and time
 * zone, the cancel flag and the statistics it collects. It is Calcite's {@link DataContext}, so
 * generated code reads from it directly.
 */
public final class QueryContext implements DataContext {
  private static final String KEY = "sqe.queryContext";

  private final String queryId;
  private final SchemaPlus rootSchema;
  private final JavaTypeFactory typeFactory;
  private final Map<String, Object> values;
  private final AtomicBoolean cancelled;
  private final QueryStats stats;
  private volatile String cancelReason = "Query was cancelled";
  private volatile ErrorCode cancelCode = ErrorCode.CANCELLED;

  public QueryContext(
      String queryId,
      SchemaPlus rootSchema,
      JavaTypeFactory typeFactory,
      Map<String, Object> values,
      QueryStats stats) {
    this.queryId = requireNonNull(queryId, "queryId is null");
    this.rootSchema = requireNonNull(rootSchema, "rootSchema is null");
    this.typeFactory = requireNonNull(typeFactory, "typeFactory is null");
    this.values = new HashMap<>(values);
    this.cancelled = new AtomicBoolean();
    this.stats = requireNonNull(stats, "stats is null");
    this.values.put(Variable.CANCEL_FLAG.camelName, cancelled);
  }

  /** The context of the execution that {@code dataContext} belongs to. */
  public static QueryContext of(DataContext dataContext) {
    if (dataContext instanceof QueryContext) {
      return (QueryContext) dataContext;
    }
    Object context = dataContext.get(KEY);
    if (context instanceof QueryContext) {
      return (QueryContext) context;
    }
    throw new IllegalStateException("No SQE query context in " + dataContext);
  }

  public String queryId() {
    return queryId;
  }

  public QueryStats stats() {
    return stats;
  }

  /** Asks the running query to stop; it fails with {@code code} at its next check. */
  public void cancel(ErrorCode code, String reason) {
    cancelCode = code;
    cancelReason = reason;
    cancelled.set(true);
  }

  public boolean isCancelled() {
    return cancelled.get();
  }

  public void checkCancelled() {
    if (cancelled.get()) {
      throw new SqeException(cancelCode, cancelReason);
    }
  }

  @Override
  public SchemaPlus getRootSchema() {
    return rootSchema;
  }

  @Override
  public JavaTypeFactory getTypeFactory() {
    return typeFactory;
  }

  @Override
  public QueryProvider getQueryProvider() {
    throw new UnsupportedOperationException("SQE plans do not use a query provider");
  }

  @Override
  public Object get(String name) {
    if (KEY.equals(name)) {
      return this;
    }
    return values.get(name);
  }
}
