package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Limits the engine applies to every query.
 *
 * @param maxQueryMemoryBytes Arrow memory one query may hold at once
 * @param batchMaxRows most rows in one record batch
 * @param batchMaxBytes approximate largest record batch, kept under gRPC's usual 4 MiB message limit
 * @param statementTimeout how long a statement may run when its session sets no limit of its own;
 *     zero for no limit
 */
public record EngineConfig(long maxQueryMemoryBytes, int batchMaxRows, long batchMaxBytes, Duration statementTimeout) {
  public static final EngineConfig DEFAULT = new EngineConfig(1L << 30, 65_536, 2L << 20, Duration.ZERO);

  public EngineConfig {
    if (maxQueryMemoryBytes <= 0 || batchMaxRows <= 0 || batchMaxBytes <= 0) {
      throw new IllegalArgumentException("Engine limits must be positive");
    }
    requireNonNull(statementTimeout, "statementTimeout is null");
    if (statementTimeout.isNegative()) {
      throw new IllegalArgumentException("statementTimeout is negative: " + statementTimeout);
    }
  }

  /** Limits without a default statement timeout. */
  public EngineConfig(long maxQueryMemoryBytes, int batchMaxRows, long batchMaxBytes) {
    this(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, Duration.ZERO);
  }

  public EngineConfig withMaxQueryMemoryBytes(long bytes) {
    return new EngineConfig(bytes, batchMaxRows, batchMaxBytes, statementTimeout);
  }

  public EngineConfig withStatementTimeout(Duration timeout) {
    return new EngineConfig(maxQueryMemoryBytes, batchMaxRows, batchMaxBytes, timeout);
  }
}
