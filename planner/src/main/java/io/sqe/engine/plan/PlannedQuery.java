package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.runtime.Bindable;
import org.apache.calcite.schema.SchemaPlus;

/**
 * A query compiled to Calcite's executable form, ready to run any number of times with different
 * parameter values.
 *
 * @param resultType the row type of the result
 * @param resultSchema the Arrow schema every record batch of the result has
 * @param parameterTypes the types of the {@code ?} parameters, in order
 * @param bindable the compiled plan, on Calcite's row runtime
 * @param batchPlan the plan on SQE's columnar operators, which an execution of the query runs
 *     instead when there is one (see {@link io.sqe.engine.plan.physical.ColumnarLowering}); null
 *     when the plan needs the row runtime. Statements that consume the query's rows (writes) run
 *     it too, and read its batches' rows ({@code QueryServices.rows}), unless a result column has
 *     no row representation there (nested, TIME), when they run {@code bindable}.
 * @param internalParameters objects the compiled code reads from its data context
 * @param rootSchema the schema tree the plan was compiled against
 * @param explain the optimised plan, for EXPLAIN and logs
 * @param profile the same plan's lines with the ids its columnar operators count figures under,
 *     for EXPLAIN ANALYZE and the web console
 * @param planningNanos how long validation, optimisation and compilation took; for a plan from
 *     the plan cache, how long finding it took
 * @param reads what planning read, which decides whether and how long the plan and its results
 *     may be cached
 * @param cached whether the plan came from the plan cache
 * @param trinoStatement the statement a Trino cluster runs instead of this plan when the query is
 *     offloaded ({@link io.sqe.engine.plan.offload.TrinoStatements}); null when it runs here
 */
public record PlannedQuery(
    String sql,
    RelDataType resultType,
    Schema resultSchema,
    List<RelDataType> parameterTypes,
    Bindable<Object> bindable,
    io.sqe.engine.exec.batch.BatchPlan batchPlan,
    Map<String, Object> internalParameters,
    SchemaPlus rootSchema,
    String explain,
    io.sqe.engine.exec.profile.ProfiledPlan profile,
    long planningNanos,
    PlanReads reads,
    boolean cached,
    io.sqe.engine.plan.offload.TrinoStatements.Statement trinoStatement) {
  public PlannedQuery {
    requireNonNull(sql, "sql is null");
    requireNonNull(resultType, "resultType is null");
    requireNonNull(resultSchema, "resultSchema is null");
    parameterTypes = List.copyOf(parameterTypes);
    requireNonNull(bindable, "bindable is null");
    internalParameters = Map.copyOf(internalParameters);
    requireNonNull(rootSchema, "rootSchema is null");
    requireNonNull(explain, "explain is null");
    requireNonNull(profile, "profile is null");
    requireNonNull(reads, "reads is null");
  }

  /** This plan as the plan cache hands it out again, found in {@code lookupNanos}. */
  public PlannedQuery reused(long lookupNanos) {
    return new PlannedQuery(
        sql, resultType, resultSchema, parameterTypes, bindable, batchPlan, internalParameters, rootSchema, explain, profile, lookupNanos, reads, true,
        trinoStatement);
  }

  /** This plan, run on a Trino cluster as {@code statement}. */
  public PlannedQuery offloadedAs(io.sqe.engine.plan.offload.TrinoStatements.Statement statement) {
    return new PlannedQuery(
        sql, resultType, resultSchema, parameterTypes, bindable, batchPlan, internalParameters, rootSchema, explain, profile, planningNanos, reads,
        cached, requireNonNull(statement, "statement is null"));
  }
}
