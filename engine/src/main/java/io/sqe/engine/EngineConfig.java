package io.sqe.engine;

/**
 * Limits the engine applies to every query.
 *
 * @param maxQueryMemoryBytes Arrow memory one query may hold at once
 * @param batchMaxRows most rows in one record batch
 * @param batchMaxBytes approximate largest record batch, kept under gRPC's usual 4 MiB message limit
 */
public record EngineConfig(long maxQueryMemoryBytes, int batchMaxRows, long batchMaxBytes) {
  public static final EngineConfig DEFAULT = new EngineConfig(1L << 30, 65_536, 2L << 20);

  public EngineConfig {
    if (maxQueryMemoryBytes <= 0 || batchMaxRows <= 0 || batchMaxBytes <= 0) {
      throw new IllegalArgumentException("Engine limits must be positive");
    }
  }

  public EngineConfig withMaxQueryMemoryBytes(long bytes) {
    return new EngineConfig(bytes, batchMaxRows, batchMaxBytes);
  }
}
