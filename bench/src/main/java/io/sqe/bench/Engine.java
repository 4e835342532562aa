package io.sqe.bench;

/** One engine under test: runs a query and consumes its whole result. */
interface Engine extends AutoCloseable {
  /** The name shown in reports. */
  String name();

  /**
   * Runs {@code sql} on the calling thread and reads every row.
   *
   * @param cancellation lets another thread stop the query; the engine registers how
   */
  ResultRows execute(String sql, Cancellation cancellation) throws Exception;
}
