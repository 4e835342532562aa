package io.sqe.engine;

import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;

/** Planner and execution options for tests, set on a session as {@code SET} sets them. */
public final class TestOptions {
  /** An engine whose sessions may ask for up to 16 parallel parts, whatever the machine's cores. */
  public static final EngineConfig WIDE =
      EngineConfig.DEFAULT.withPlannerOptions(PlannerOptions.DEFAULT.with(PlannerOptions.PARALLELISM, "16"));

  private TestOptions() {}

  /** {@code session} with {@code name} set to {@code value}, checked as {@code SET} checks it. */
  public static Session set(Session session, String name, Object value) {
    String text = String.valueOf(value);
    if (PlannerOptions.NAMES.contains(name)) {
      PlannerOptions.DEFAULT.with(name, text);
    } else {
      ExecutionOptions.DEFAULT.with(name, text);
    }
    return session.withOption(name, text);
  }

  /** {@code session} with parallel pipelines of {@code parallelism} parts over scans of at least {@code minRows} rows. */
  public static Session parallel(Session session, int parallelism, long minRows) {
    return set(set(session, PlannerOptions.PARALLELISM, parallelism), PlannerOptions.PARALLEL_MIN_ROWS, minRows);
  }

  /** {@code session} with the machine's cores as parallelism and the default minimum rows, as a server has by default. */
  public static Session defaultParallel(Session session) {
    return parallel(session, Runtime.getRuntime().availableProcessors(), PlannerOptions.DEFAULT_PARALLEL_MIN_ROWS);
  }

  /** {@code session} with shared subplans {@code on} or off, within the bounds given. */
  public static Session sharing(Session session, boolean on, long maxRows, double minCost) {
    return set(
        set(set(session, PlannerOptions.SHARED_SUBPLANS, on), PlannerOptions.SHARED_SUBPLAN_MAX_ROWS, maxRows),
        PlannerOptions.SHARED_SUBPLAN_MIN_COST,
        minCost);
  }
}
