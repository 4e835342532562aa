package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;

/**
 * A dynamic filter's source, wired in the plan: a hash join hands the values of one integer key
 * column of its build side to {@code publisher} once the build side is read, before its probe side
 * opens, so that the probe side's scan skips files, row groups and rows no build key can match.
 *
 * @param key the position of the key among the join's build keys
 */
public record KeyPublication(int key, Publisher publisher) {
  /** Keys collected at most (with duplicates), 32 MiB of them; beyond, only their range is published. */
  private static final int MAX_COLLECTED_KEYS = 4 << 20;

  public KeyPublication {
    requireNonNull(publisher, "publisher is null");
  }

  /** Receives one execution's build keys. */
  @FunctionalInterface
  public interface Publisher {
    /**
     * @param values the non-null keys (with duplicates), the first {@code count} of them; null when
     *     there were too many to keep, and only {@code min} and {@code max} hold
     */
    void publish(QueryContext context, long[] values, int count, long min, long max);
  }

  /** Whether this publication takes keys of {@code vector}'s kind: integers and dates. */
  public static boolean takes(FieldVector vector) {
    return vector instanceof IntVector || vector instanceof DateDayVector || vector instanceof BigIntVector;
  }

  /** Collects the non-null values of a build key column, batch by batch. */
  public static final class Collector {
    private long[] values = new long[1024];
    private int count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    public void add(FieldVector column, int rows) {
      ArrowBuf data = column.getDataBuffer();
      boolean wide = column instanceof BigIntVector;
      for (int r = 0; r < rows; r++) {
        if (column.isNull(r)) {
          continue;
        }
        long value = wide ? data.getLong((long) r * 8) : data.getInt((long) r * 4);
        min = Math.min(min, value);
        max = Math.max(max, value);
        if (values == null) {
          continue;
        }
        if (count == values.length) {
          if (count >= MAX_COLLECTED_KEYS) {
            values = null;
            continue;
          }
          values = Arrays.copyOf(values, Math.min(count * 2, MAX_COLLECTED_KEYS));
        }
        values[count++] = value;
      }
    }

    public void publish(KeyPublication publication, QueryContext context) {
      publication.publisher().publish(context, values, values == null ? 0 : count, min, max);
      values = null;
    }
  }
}
