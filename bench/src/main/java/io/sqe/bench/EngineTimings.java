package io.sqe.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The timed executions of one query on one engine, or why they stopped.
 *
 * @param nanos wall time of each timed execution, in run order
 * @param prepareNanos for each timed execution, its time to the first row as the engine reports it, or -1
 * @param failure the execution that timed out or failed, after which the engine ran the query no more; null if none did
 * @param rows the result of the last completed execution, null if none completed
 * @param disturbedRuns executions, warm-ups included, that ran while an earlier cancelled query still kept the process busy
 */
record EngineTimings(List<Long> nanos, List<Long> prepareNanos, Attempt failure, ResultRows rows, int disturbedRuns) {
  EngineTimings {
    nanos = List.copyOf(nanos);
    prepareNanos = List.copyOf(prepareNanos);
    if (failure != null && failure.completed()) {
      throw new IllegalArgumentException("A completed execution is not a failure");
    }
  }

  /** True when every execution completed and at least one was timed. */
  boolean completed() {
    return failure == null && !nanos.isEmpty();
  }

  double minMillis() {
    return nanos.stream().mapToLong(Long::longValue).min().orElseThrow() / 1e6;
  }

  double medianMillis() {
    return median(nanos) / 1e6;
  }

  /** The median time to the first row over the timed runs, if the engine reports it. */
  OptionalDouble medianPrepareMillis() {
    if (prepareNanos.isEmpty() || prepareNanos.contains(-1L)) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(median(prepareNanos) / 1e6);
  }

  /** The middle value; the mean of the two middle values for an even count. */
  private static double median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }
}
