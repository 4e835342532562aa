package io.sqe.write.dml;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a row-level statement does to existing rows, by data file and position: delete the row, or
 * replace some of its columns. Rows it does not name stay as they are.
 */
final class RowChanges {
  /** A row's columns to replace: positions in the table's schema, and their new Iceberg values. */
  record Update(int[] columns, Object[] values) {}

  private static final Object DELETE = new Object();

  private final Map<String, Map<Long, Object>> byFile = new HashMap<>();
  private long deleted;
  private long updated;

  /** Deletes a row; false if the statement already changed it. */
  boolean delete(String file, long position) {
    if (rows(file).putIfAbsent(position, DELETE) != null) {
      return false;
    }
    deleted++;
    return true;
  }

  /** Replaces columns of a row; false if the statement already changed it. */
  boolean update(String file, long position, Update update) {
    if (rows(file).putIfAbsent(position, update) != null) {
      return false;
    }
    updated++;
    return true;
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
