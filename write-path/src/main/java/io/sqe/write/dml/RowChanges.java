package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a row-level statement does to existing rows, by data file and position: delete the row, or
 * replace some of its columns. Rows it does not name stay as they are.
 */
final class RowChanges implements AutoCloseable {
  /** A row's columns to replace: positions in the table's schema, and their new Iceberg values. */
  record Update(int[] columns, Object[] values) {}

  private static final Object DELETE = new Object();
  /**
   * What a changed row holds on the heap, estimated: its map entry and boxed position; an update
   * also its arrays, and a value each (a boxed number, a short string or a decimal).
   */
  private static final long CHANGE_BYTES = 80;
  private static final long UPDATE_BYTES = 64;
  private static final long VALUE_BYTES = 48;
  /** Bytes estimated before they are reserved at once, so that most changes only add a number. */
  private static final long RESERVE_STEP = 256 << 10;

  private final Map<String, Map<Long, Object>> byFile = new HashMap<>();
  private final AllocationReservation reservation;
  private final long limit;
  private final String what;
  private long pending;
  private long deleted;
  private long updated;

  /**
   * @param memory the statement's allocator: the changes are counted against its limit
   *     ({@code query.max-memory}) as an Arrow reservation, though they live on the heap
   * @param what the statement, for the error past the limit ("UPDATE of iceberg.s.t")
   */
  RowChanges(BufferAllocator memory, String what) {
    this.reservation = memory.newReservation();
    this.limit = memory.getLimit();
    this.what = requireNonNull(what, "what is null");
  }

  /** Deletes a row; false if the statement already changed it. */
  boolean delete(String file, long position) {
    if (rows(file).putIfAbsent(position, DELETE) != null) {
      return false;
    }
    deleted++;
    hold(CHANGE_BYTES);
    return true;
  }

  /** Replaces columns of a row; false if the statement already changed it. */
  boolean update(String file, long position, Update update) {
    if (rows(file).putIfAbsent(position, update) != null) {
      return false;
    }
    updated++;
    hold(CHANGE_BYTES + UPDATE_BYTES + VALUE_BYTES * update.values().length);
    return true;
  }

  private void hold(long bytes) {
    pending += bytes;
    if (pending >= RESERVE_STEP) {
      long step = pending;
      pending = 0;
      if (!reservation.add(step)) {
        throw new SqeException(
            ErrorCode.RESOURCE_EXHAUSTED,
            what + " changes " + (deleted + updated) + " rows, more than fit its memory limit of " + limit
                + " bytes (query.max-memory) with what the statement holds besides");
      }
    }
  }

  @Override
  public void close() {
    reservation.close();
  }

  private Map<Long, Object> rows(String file) {
    return byFile.computeIfAbsent(file, f -> new HashMap<>());
  }

  boolean isEmpty() {
    return byFile.isEmpty();
  }

  long deleted() {
    return deleted;
  }

  long updated() {
    return updated;
  }

  /** The data files that have changed rows. */
  Set<String> files() {
    return byFile.keySet();
  }

  /** How many rows of {@code file} are deleted. */
  long deletedIn(String file) {
    return byFile.getOrDefault(file, Map.of()).values().stream().filter(c -> c == DELETE).count();
  }

  /** The positions of {@code file}'s changed rows, in ascending order. */
  long[] positions(String file) {
    long[] positions = byFile.getOrDefault(file, Map.of()).keySet().stream().mapToLong(Long::longValue).toArray();
    java.util.Arrays.sort(positions);
    return positions;
  }

  /** The change to one row: null when it stays, {@link #isDelete} when it goes, else an {@link Update}. */
  Object change(String file, long position) {
    Map<Long, Object> rows = byFile.get(file);
    return rows == null ? null : rows.get(position);
  }

  static boolean isDelete(Object change) {
    return change == DELETE;
  }
}
