package io.sqe.engine.exec;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.exec.spill.QuerySpill;
import io.sqe.engine.exec.spill.SpillSpace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.schema.SchemaPlus;

/**
 * Everything one execution of a compiled plan sees: the parameter values, the clock and time
 * zone, the cancel flag (and the {@link Checkpoint} a long evaluation of one value calls) and the
 * statistics it collects. It is Calcite's {@link DataContext}, so generated code reads from it
 * directly.
 */
public final class QueryContext implements DataContext {
  private static final String KEY = "sqe.queryContext";

  private final String queryId;
  private final SchemaPlus rootSchema;
  private final JavaTypeFactory typeFactory;
  private final Map<String, Object> values;
  private final QueryRun run;
  private final ExecutionOptions options;
  private final ConcurrentMap<Object, Object> runtimeState;
  /** The data context of the part of a parallel pipeline this context runs, or null for the whole query. */
  private final DataContext part;
  /** The whole query's context when this is a part's, whose spill the parts share; else null. */
  private final QueryContext whole;
  private final SpillSpace spillSpace;
  /** Made at the first {@link #spill()}, so that a query that spills nothing touches no disk. */
  private QuerySpill spill;
  /** What this execution keeps until it ends, such as a shared subplan's batches; the whole query's. */
  private final List<AutoCloseable> held;

  /**
   * An execution with the default {@link ExecutionOptions}: expressions the planner evaluates
   * while it plans.
   */
  public QueryContext(
      String queryId,
      SchemaPlus rootSchema,
      JavaTypeFactory typeFactory,
      Map<String, Object> values,
      QueryRun run) {
    this(queryId, rootSchema, typeFactory, values, run, ExecutionOptions.DEFAULT);
  }

  /**
   * @param run the run this execution belongs to: its cancel flag and figures; a command's
   *     queries share their statement's run
   * @param options the execution options of the statement's session
   */
  public QueryContext(
      String queryId,
      SchemaPlus rootSchema,
      JavaTypeFactory typeFactory,
      Map<String, Object> values,
      QueryRun run,
      ExecutionOptions options) {
    this(queryId, rootSchema, typeFactory, values, run, options, SpillSpace.temporary());
  }

  /** @param spillSpace where this execution's operators write what does not fit in its memory */
  public QueryContext(
      String queryId,
      SchemaPlus rootSchema,
      JavaTypeFactory typeFactory,
      Map<String, Object> values,
      QueryRun run,
      ExecutionOptions options,
      SpillSpace spillSpace) {
    this.spillSpace = requireNonNull(spillSpace, "spillSpace is null");
    this.options = requireNonNull(options, "options is null");
    this.queryId = requireNonNull(queryId, "queryId is null");
    this.rootSchema = requireNonNull(rootSchema, "rootSchema is null");
    this.typeFactory = requireNonNull(typeFactory, "typeFactory is null");
    this.values = new HashMap<>(values);
    this.run = requireNonNull(run, "run is null");
    this.values.put(Variable.CANCEL_FLAG.camelName, run.cancelFlag());
    this.values.put(Checkpoint.VARIABLE, (Checkpoint) run::checkCancelled);
    this.runtimeState = new ConcurrentHashMap<>();
    this.part = null;
    this.whole = null;
    this.held = new ArrayList<>();
  }

  private QueryContext(QueryContext query, DataContext part, ConcurrentMap<Object, Object> runtimeState) {
    this.options = query.options;
    this.queryId = query.queryId;
    this.rootSchema = query.rootSchema;
    this.typeFactory = query.typeFactory;
    this.values = query.values;
    this.run = query.run;
    this.runtimeState = runtimeState;
    this.part = part;
    this.whole = query.whole != null ? query.whole : query;
    this.spillSpace = query.spillSpace;
    this.held = null;
  }

  /**
   * This execution as one part of a parallel pipeline of columnar operators: the same execution,
   * whose {@link #get} answers {@code part}'s keys (so a split scan finds its part, see {@code
   * ScanPart.of}) and whose runtime state is the part's own.
   */
  public QueryContext forPart(DataContext part, ConcurrentMap<Object, Object> partState) {
    return new QueryContext(this, requireNonNull(part, "part is null"), requireNonNull(partState, "partState is null"));
  }

  /** The whole execution's context: this one, or the query's when this is a part's. */
  public QueryContext whole() {
    return whole != null ? whole : this;
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

  /** The execution options this execution runs with. */
  public ExecutionOptions options() {
    return options;
  }

  /**
   * State that parts of a compiled plan share during this execution only (a join's build-side keys
   * for a scan, say), keyed by an object of the plan; one compiled plan runs many times.
   */
  public ConcurrentMap<Object, Object> runtimeState() {
    return runtimeState;
  }

  /** This execution's part of the spill space; {@link #releaseSpill()} removes it when the execution ends. */
  public synchronized QuerySpill spill() {
    if (whole != null) {
      return whole.spill();
    }
    if (spill == null) {
      spill = spillSpace.forQuery(queryId, stats());
    }
    return spill;
  }

  /** Keeps {@code resource} until the execution ends, when {@link #releaseHeld()} closes it. */
  public void holdUntilEnd(AutoCloseable resource) {
    requireNonNull(resource, "resource is null");
    if (whole != null) {
      whole.holdUntilEnd(resource);
      return;
    }
    synchronized (held) {
      held.add(resource);
    }
  }

  /** Closes what the execution held until its end: called once its operators are closed, however it ended. */
  public void releaseHeld() {
    if (whole != null) {
      whole.releaseHeld();
      return;
    }
    List<AutoCloseable> resources;
    synchronized (held) {
      resources = new ArrayList<>(held);
      held.clear();
    }
    RuntimeException failure = null;
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Removes whatever this execution spilled: called once its operators are closed, however it ended. */
  public synchronized void releaseSpill() {
    if (whole != null) {
      whole.releaseSpill();
    } else if (spill != null) {
      spill.close();
    }
  }

  public QueryStats stats() {
    return run.stats();
  }

  public QueryRun run() {
    return run;
  }

  /** Asks the running query to stop; it fails with {@code code} at its next check. */
  public void cancel(ErrorCode code, String reason) {
    run.cancel(code, reason);
  }

  public boolean isCancelled() {
    return run.isCancelled();
  }

  public void checkCancelled() {
    run.checkCancelled();
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
    return part != null ? part.get(name) : values.get(name);
  }
}
