package io.sqe.engine.exec.parallel;

/**
 * How many threads one query's parallel pipelines may use, and from how many estimated rows a scan
 * is worth splitting. Process-wide, like the thread pool the parts run on: set once at start
 * ({@link #configure}) from the server's {@code query.parallelism}, or with {@code
 * -Dsqe.query.parallelism=N} (1 turns parallel pipelines off) and {@code
 * -Dsqe.query.parallel-min-rows=N}. {@code -Dsqe.query.parallel-build=true} also splits the
 * pipelines whose rows are not aggregated in the parts (hash join build sides, sort inputs) and
 * gathers their rows; it is off by default, as on two cores it did not measure faster (see
 * docs/benchmarks.md).
 */
public final class ParallelSettings {
  /** Below this many estimated rows a scan's pipeline stays on one thread: starting parts costs more than it saves. */
  public static final long DEFAULT_MIN_ROWS = 500_000;

  private static volatile int parallelism =
      Integer.getInteger("sqe.query.parallelism", Runtime.getRuntime().availableProcessors());
  private static volatile long minRows = Long.getLong("sqe.query.parallel-min-rows", DEFAULT_MIN_ROWS);

  /** Whether build sides and other fully read inputs are gathered from parts unless told otherwise. */
  public static final boolean DEFAULT_PARALLEL_BUILD =
      Boolean.parseBoolean(System.getProperty("sqe.query.parallel-build", "false"));

  private static volatile boolean parallelBuild = DEFAULT_PARALLEL_BUILD;

  private ParallelSettings() {}

  /** The most threads (the querying thread included) one query's parallel pipeline uses; 1 for none. */
  public static int parallelism() {
    return Math.max(1, parallelism);
  }

  /** The fewest estimated rows a scan needs for its pipeline to be split into parts. */
  public static long minRows() {
    return minRows;
  }

  /**
   * Whether pipelines whose rows are read to the end without an aggregate in the parts (a hash
   * join's build side, a sort's or an unsplit aggregate's input) are split into parts and their
   * rows gathered.
   */
  public static boolean parallelBuild() {
    return parallelBuild;
  }

  /** Turns gathered build sides on or off for plans made from now on. */
  public static void parallelBuild(boolean on) {
    parallelBuild = on;
  }

  /** Whether the planner splits pipelines at all. */
  public static boolean enabled() {
    return parallelism() > 1;
  }

  /**
   * Sets the parallelism of plans made from now on (plans already cached keep their shape, and
   * run with the new thread count).
   */
  public static void configure(int newParallelism, long newMinRows) {
    if (newParallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, not " + newParallelism);
    }
    if (newMinRows < 0) {
      throw new IllegalArgumentException("minRows is negative: " + newMinRows);
    }
    parallelism = newParallelism;
    minRows = newMinRows;
  }
}
