package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.trace.Spans;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.JavaTypeFactory;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.runtime.Bindable;
import org.apache.calcite.schema.SchemaPlus;

/**
 * A plan's row-runtime form compiled when it is first bound, not when the query is planned. A
 * query with a columnar plan runs that plan; it needs Calcite's generated code only on rare paths
 * (a Trino cluster that fails before its first row, a write reading rows of a type its batches do
 * not give as rows), so its planning skips the code generator and Janino, which took a fifth of
 * the CPU of an incremental MERGE with no new row. The objects the compilation stashes for the
 * generated code (Calcite puts them in the parameter map it is given) are answered by the data
 * context the plan is bound with; everything else comes from that context. Thread-safe: the first
 * bind compiles, the others wait for it.
 */
final class DeferredCompile implements Bindable<Object> {
  private final EnumerableRel plan;
  private final Map<String, Object> internalParameters;
  private final String sql;
  private volatile Compiled compiled;

  private record Compiled(Bindable<Object> plan, Map<String, Object> stashed) {}

  DeferredCompile(EnumerableRel plan, Map<String, Object> internalParameters, String sql) {
    this.plan = requireNonNull(plan, "plan is null");
    this.internalParameters = Map.copyOf(internalParameters);
    this.sql = requireNonNull(sql, "sql is null");
  }

  /** Compiles {@code plan} now, failing as planning does when it cannot be compiled. */
  static Bindable<Object> now(EnumerableRel plan, Map<String, Object> internalParameters, String sql) {
    return Spans.traced("sqe.compile", () -> new InitializerFailures(PlanCompiler.compile(plan, internalParameters, sql)));
  }

  @Override
  public Enumerable<Object> bind(DataContext context) {
    Compiled done = compile();
    return done.plan().bind(done.stashed().isEmpty() ? context : new Stashed(context, done.stashed()));
  }

  private Compiled compile() {
    Compiled done = compiled;
    if (done == null) {
      synchronized (this) {
        done = compiled;
        if (done == null) {
          Map<String, Object> parameters = new HashMap<>(internalParameters);
          Bindable<Object> bindable = now(plan, parameters, sql);
          parameters.keySet().removeAll(internalParameters.keySet());
          done = new Compiled(bindable, Collections.unmodifiableMap(parameters));
          compiled = done;
        }
      }
    }
    return done;
  }

  /** A data context that also answers what the compilation stashed. */
  private static final class Stashed implements DataContext {
    private final DataContext context;
    private final Map<String, Object> stashed;

    Stashed(DataContext context, Map<String, Object> stashed) {
      this.context = context;
      this.stashed = stashed;
    }

    @Override
    public SchemaPlus getRootSchema() {
      return context.getRootSchema();
    }

    @Override
    public JavaTypeFactory getTypeFactory() {
      return context.getTypeFactory();
    }

    @Override
    public QueryProvider getQueryProvider() {
      return context.getQueryProvider();
    }

    @Override
    public Object get(String name) {
      return stashed.containsKey(name) ? stashed.get(name) : context.get(name);
    }
  }
}
