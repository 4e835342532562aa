package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.plan.QueryPlanner;
import io.sqe.engine.sql.functions.BoundedFunctions;
import java.time.Duration;

/**
 * Limits the engine applies to every query.
 *
 * @param maxQueryMemoryBytes Arrow memory one query may hold at once
 * @param batchMaxRows most rows in one record batch
 * @param batchMaxBytes approximate largest record batch, kept under gRPC's usual 4 MiB message limit
 * @param statementTimeout how long a statement may run: the limit of sessions that set none, and
 *     the most any session may set ({@link #statementTimeout(Duration)}); zero for no limit
 * @param planCacheMaxEntries how many compiled plans the plan cache keeps; zero turns it off
 * @param resultCacheMaxBytes how many bytes of Arrow results the result cache keeps; zero turns it
 *     off. One result may take at most a quarter of it.
 * @param maxValueSize the longest value (in characters) one call of a function that can grow its
 *     input ({@code repeat}, {@code lpad}, {@code ||}...) may return; from 1 Mi to 1 Gi
 * @param maxReorderedJoins the most tables one join may bring together for the planner to choose
 *     their order; a larger join keeps the FROM list's order
 * @param planner the options statements are planned with, unless their session sets its own
 * @param execution the options plans run with, unless their session sets its own
 * @param offload the Trino cluster big queries may run on, if any
 * @param spill where queries spill what does not fit in their memory, and how much each may
 */
public record EngineConfig(
    long maxQueryMemoryBytes,
    int batchMaxRows,
    long batchMaxBytes,
    Duration statementTimeout,
    int planCacheMaxEntries,
    long resultCacheMaxBytes,
    long maxValueSize,
    int maxReorderedJoins,
    PlannerOptions planner,
    ExecutionOptions execution,
    SpillConfig spill,
    io.sqe.engine.offload.OffloadConfig offload) {
  public static final int DEFAULT_PLAN_CACHE_MAX_ENTRIES = 1_000;
  public static final int DEFAULT_MAX_REORDERED_JOINS = QueryPlanner.DEFAULT_MAX_REORDERED_JOINS;
  public static final long DEFAULT_RESULT_CACHE_MAX_BYTES = 64L << 20;
  public static final long DEFAULT_MAX_VALUE_SIZE = 16L << 20;
  public static final long MIN_MAX_VALUE_SIZE = BoundedFunctions.WHILE_PLANNING;
  public static final long MAX_MAX_VALUE_SIZE = 1L << 30;
  public static final EngineConfig DEFAULT = new EngineConfig(1L << 30, 65_536, 2L << 20, Duration.ZERO);

  public EngineConfig {
    if (maxQueryMemoryBytes <= 0 || batchMaxRows <= 0 || batchMaxBytes <= 0) {
      throw new IllegalArgumentException("Engine limits must be positive");
    }
    requireNonNull(statementTimeout, "statementTimeout is null");
    if (statementTimeout.isNegative()) {
      throw new IllegalArgumentException("statementTimeout is negative: " + statementTimeout);
    }
    if (planCacheMaxEntries < 0) {
      throw new IllegalArgumentException("planCacheMaxEntries is negative: " + planCacheMaxEntries);
    }
    if (resultCacheMaxBytes < 0) {
      throw new IllegalArgumentException("resultCacheMaxBytes is negative: " + resultCacheMaxBytes);
    }
    if (maxValueSize < MIN_MAX_VALUE_SIZE || maxValueSize > MAX_MAX_VALUE_SIZE) {
      throw new IllegalArgumentException("maxValueSize must be from 1 Mi to 1 Gi, not " + maxValueSize);
    }
    if (maxReorderedJoins < 2) {
      throw new IllegalArgumentException("maxReorderedJoins must be at least 2, not " + maxReorderedJoins);
    }
    requireNonNull(planner, "planner is null");
    requireNonNull(execution, "execution is null");
    requireNonNull(spill, "spill is null");
    requireNonNull(offload, "offload is null");
  }

  /** Limits with the default caches. */
  public EngineConfig(long maxQueryMemoryBytes, int batchMaxRows, long batchMaxBytes, Duration statementTimeout) {
    this(
        maxQueryMemoryBytes,
        batchMaxRows,
        batchMaxBytes,
        statementTimeout,
        DEFAULT_PLAN_CACHE_MAX_ENTRIES,
        DEFAULT_RESULT_CACHE_MAX_BYTES,
        DEFAULT_MAX_VALUE_SIZE,
        DEFAULT_MAX_REORDERED_JOINS,
        PlannerOptions.DEFAULT,
        ExecutionOptions.DEFAULT,
        SpillConfig.DEFAULT,
        io.sqe.engine.offload.OffloadConfig.NONE);
  }

  /** Limits without a default statement timeout, with the default caches. */
  public EngineConfig(long maxQueryMemoryBytes, int batchMaxRows, long batchMaxBytes) {
    this(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, Duration.ZERO);
  }

  /**
   * The limit a statement runs under when its session asks for {@code requested} (null: the
   * default; zero: none): the engine's {@link #statementTimeout()}, when it has one, is a ceiling
   * that a session may lower but not raise or lift, as Trino caps its session memory limits at the
   * server's.
   */
  public Duration statementTimeout(Duration requested) {
    if (requested == null) {
      return statementTimeout;
    }
    if (statementTimeout.isZero()) {
      return requested;
    }
    return requested.isZero() || requested.compareTo(statementTimeout) > 0 ? statementTimeout : requested;
  }

  /** The most rows and bytes of one record batch of a result. */
  public QueryExecution.BatchLimits batchLimits() {
    return new QueryExecution.BatchLimits(batchMaxRows, batchMaxBytes);
  }

  public EngineConfig withMaxQueryMemoryBytes(long bytes) {
    return new EngineConfig(bytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withStatementTimeout(Duration timeout) {
    return new EngineConfig(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, timeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withPlanCacheMaxEntries(int entries) {
    return new EngineConfig(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, entries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withResultCacheMaxBytes(long bytes) {
    return new EngineConfig(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, bytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withMaxValueSize(long size) {
    return new EngineConfig(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, size, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withMaxReorderedJoins(int tables) {
    return new EngineConfig(
        maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, tables, planner, execution, spill, offload);
  }

  public EngineConfig withPlannerOptions(PlannerOptions options) {
    return new EngineConfig(
        maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, options, execution, spill, offload);
  }

  public EngineConfig withSpill(SpillConfig spill) {
    return new EngineConfig(
        maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }

  public EngineConfig withExecutionOptions(ExecutionOptions options) {
    return new EngineConfig(
        maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, options, spill, offload);
  }

  public EngineConfig withOffload(io.sqe.engine.offload.OffloadConfig offload) {
    return new EngineConfig(
        maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, statementTimeout, planCacheMaxEntries, resultCacheMaxBytes, maxValueSize, maxReorderedJoins, planner, execution, spill, offload);
  }
}
