package io.sqe.engine.exec.spill;

import java.nio.file.Path;

/**
 * Where queries spill and how much each may write there.
 *
 * @param directory the spill directory ({@code query.spill-dir}, by default {@code
 *     <data-dir>/spill}); null for a temporary directory made at the first spill (embedded engines
 *     and tests)
 * @param maxBytesPerQuery the most bytes one query may write to it ({@code query.max-spill}); past
 *     that the query fails with RESOURCE_EXHAUSTED
 */
public record SpillConfig(Path directory, long maxBytesPerQuery) {
  public static final long DEFAULT_MAX_BYTES_PER_QUERY = 100L << 30;
  public static final SpillConfig DEFAULT = new SpillConfig(null, DEFAULT_MAX_BYTES_PER_QUERY);

  public SpillConfig {
    if (maxBytesPerQuery <= 0) {
      throw new IllegalArgumentException("maxBytesPerQuery must be positive, not " + maxBytesPerQuery);
    }
    directory = directory == null ? null : directory.toAbsolutePath().normalize();
  }
}
