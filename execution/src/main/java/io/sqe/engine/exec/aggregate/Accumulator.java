package io.sqe.engine.exec.aggregate;

import org.apache.arrow.vector.FieldVector;

/**
 * The running value of one aggregate call for every group of a hash aggregate, indexed by the
 * dense group ids of its key table, kept in Arrow buffers of the query's allocator.
 */
public interface Accumulator extends AutoCloseable {
  /** Makes room for groups 0..groupCount-1; groups added start empty. */
  void grow(int groupCount);

  /**
   * Makes room for {@link #add} of the same rows and groups to allocate nothing, so that a refusal
   * of the allocator comes here, with the states as they were, and not half-way through a batch.
   */
  default void reserve(FieldVector input, int rowCount, int[] groups) {}

  /**
   * Adds rows 0..rowCount-1 of the call's input column (null for COUNT(*)) to their groups:
   * {@code groups[r]}, or none when it is negative (a row the call's FILTER drops).
   */
  void add(FieldVector input, int rowCount, int[] groups);

  /** Writes the results of groups from..from+count-1 at 0..count-1 of {@code out}, which has room for them. */
  void write(int from, int count, FieldVector out);

  @Override
  void close();
}
