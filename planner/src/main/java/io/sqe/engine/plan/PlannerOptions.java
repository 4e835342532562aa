package io.sqe.engine.plan;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.OptionText;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.plan.RelOptPlanner;

/**
 * Options that change the plans the planner makes: set for the server in {@code sqe.yaml} ({@code
 * query.parallelism} and the {@code planner.*} keys), overridden per session with {@code SET}, and
 * part of the plan-cache key, so that a cached plan is reused only under the options it was made
 * with. The steps of the planning program read them from the planner's context ({@link #of}).
 *
 * @param parallelism the most threads (the querying thread included) one query's parallel
 *     pipelines use; 1 makes no parallel pipelines
 * @param parallelMinRows the fewest estimated rows a scan needs for its pipeline to be split
 * @param sharedSubplans whether a subplan repeated in a plan runs once and is read by every use
 *     ({@link SharedSubplans}); off only to compare
 * @param sharedSubplanMaxRows the most rows a shared subplan is estimated to return (and may
 *     return and be kept)
 * @param sharedSubplanMinCost the least estimated cost (rows of work) a subplan worth sharing has
 * @param hashGrouping whether aggregates group in SQE's primitive hash tables ({@link
 *     HashGroupingAggregates}) instead of Calcite's; off only to compare
 * @param deriveOrPredicates whether a disjunction over several tables gives each table the
 *     condition it implies for it ({@link FactorOrConditions}); off only to compare
 * @param columnar whether the part of a plan SQE's columnar operators implement runs on them
 *     ({@link io.sqe.engine.plan.physical.ColumnarLowering}) instead of Calcite's row runtime; off
 *     only to compare, while the row runtime is being replaced (issue 27)
 * @param materializedViewRewrite whether a query a fresh materialized view answers reads the
 *     view's storage table ({@link MaterializedViewRewrite})
 */
public record PlannerOptions(
    int parallelism,
    long parallelMinRows,
    boolean sharedSubplans,
    long sharedSubplanMaxRows,
    double sharedSubplanMinCost,
    boolean hashGrouping,
    boolean deriveOrPredicates,
    boolean columnar,
    boolean materializedViewRewrite) {
  public static final String PARALLELISM = "query.parallelism";
  public static final String PARALLEL_MIN_ROWS = "planner.parallel-min-rows";
  public static final String SHARED_SUBPLANS = "planner.shared-subplans";
  public static final String SHARED_SUBPLAN_MAX_ROWS = "planner.shared-subplan-max-rows";
  public static final String SHARED_SUBPLAN_MIN_COST = "planner.shared-subplan-min-cost";
  public static final String HASH_GROUPING = "planner.hash-grouping";
  public static final String DERIVE_OR_PREDICATES = "planner.derive-or-predicates";
  public static final String COLUMNAR = "planner.columnar";
  public static final String MATERIALIZED_VIEW_REWRITE = "materialized-view-rewrite";
  /** The options' names, as {@code sqe.yaml} and {@code SET} write them. */
  public static final Set<String> NAMES =
      Set.of(
          PARALLELISM,
          PARALLEL_MIN_ROWS,
          SHARED_SUBPLANS,
          SHARED_SUBPLAN_MAX_ROWS,
          SHARED_SUBPLAN_MIN_COST,
          HASH_GROUPING,
          DERIVE_OR_PREDICATES,
          COLUMNAR,
          MATERIALIZED_VIEW_REWRITE);

  /** The most {@link #parallelism()} a server or session may set. */
  public static final int MAX_PARALLELISM = 1_024;
  /** Below this many estimated rows a scan's pipeline stays on one thread: starting parts costs more than it saves. */
  public static final long DEFAULT_PARALLEL_MIN_ROWS = 500_000;
  public static final long DEFAULT_SHARED_SUBPLAN_MAX_ROWS = 1_000_000;
  public static final double DEFAULT_SHARED_SUBPLAN_MIN_COST = 10_000;

  /** The defaults, with parallel pipelines as wide as the machine's cores. */
  public static final PlannerOptions DEFAULT =
      new PlannerOptions(
          Math.min(MAX_PARALLELISM, Runtime.getRuntime().availableProcessors()),
          DEFAULT_PARALLEL_MIN_ROWS,
          true,
          DEFAULT_SHARED_SUBPLAN_MAX_ROWS,
          DEFAULT_SHARED_SUBPLAN_MIN_COST,
          true,
          true,
          true,
          true);

  public PlannerOptions {
    if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
      throw new IllegalArgumentException("parallelism must be from 1 to " + MAX_PARALLELISM + ", not " + parallelism);
    }
    if (parallelMinRows < 0 || sharedSubplanMaxRows < 0) {
      throw new IllegalArgumentException("row counts must not be negative");
    }
    if (!(sharedSubplanMinCost >= 0)) {
      throw new IllegalArgumentException("sharedSubplanMinCost must not be negative, not " + sharedSubplanMinCost);
    }
  }

  /** The options the planner planning {@code rel}s was given. */
  public static PlannerOptions of(RelOptPlanner planner) {
    return planner.getContext().maybeUnwrap(PlannerOptions.class)
        .orElseThrow(() -> new IllegalStateException("The planner was given no PlannerOptions"));
  }

  /** Whether the planner splits pipelines into parallel parts at all. */
  public boolean parallel() {
    return parallelism > 1;
  }

  /**
   * These options with {@code name} (normalized, see {@link OptionText#normalize}) set to {@code
   * value}; an INVALID_ARGUMENT {@link io.sqe.engine.SqeException} for a bad value.
   *
   * @throws IllegalArgumentException when {@code name} is not in {@link #NAMES}
   */
  public PlannerOptions with(String name, String value) {
    int p = parallelism;
    long minRows = parallelMinRows;
    boolean shared = sharedSubplans;
    long sharedRows = sharedSubplanMaxRows;
    double sharedCost = sharedSubplanMinCost;
    boolean grouping = hashGrouping;
    boolean derive = deriveOrPredicates;
    boolean columns = columnar;
    boolean rewrite = materializedViewRewrite;
    switch (name) {
      case PARALLELISM:
        long parsed = OptionText.atLeast(name, value, 1);
        if (parsed > MAX_PARALLELISM) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT, "Invalid value '" + value + "' for " + name + ": use 1 to " + MAX_PARALLELISM);
        }
        p = (int) parsed;
        break;
      case PARALLEL_MIN_ROWS:
        minRows = OptionText.atLeast(name, value, 0);
        break;
      case SHARED_SUBPLANS:
        shared = OptionText.bool(name, value);
        break;
      case SHARED_SUBPLAN_MAX_ROWS:
        sharedRows = OptionText.atLeast(name, value, 0);
        break;
      case SHARED_SUBPLAN_MIN_COST:
        sharedCost = OptionText.decimal(name, value, 0, false);
        break;
      case HASH_GROUPING:
        grouping = OptionText.bool(name, value);
        break;
      case DERIVE_OR_PREDICATES:
        derive = OptionText.bool(name, value);
        break;
      case COLUMNAR:
        columns = OptionText.bool(name, value);
        break;
      case MATERIALIZED_VIEW_REWRITE:
        rewrite = OptionText.bool(name, value);
        break;
      default:
        throw new IllegalArgumentException("Not a planner option: " + name);
    }
    return new PlannerOptions(p, minRows, shared, sharedRows, sharedCost, grouping, derive, columns, rewrite);
  }

  /** These options with those of {@code values} (by normalized name) that are planner options. */
  public PlannerOptions withAll(Map<String, String> values) {
    PlannerOptions options = this;
    for (Map.Entry<String, String> value : values.entrySet()) {
      if (NAMES.contains(value.getKey())) {
        options = options.with(value.getKey(), value.getValue());
      }
    }
    return options;
  }
}
