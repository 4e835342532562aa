package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Server-wide limits of table maintenance.
 *
 * @param minRetention the shortest {@code retention_threshold} that expire_snapshots and
 *     remove_orphan_files accept (Trino's {@code iceberg.expire-snapshots.min-retention} and
 *     {@code iceberg.remove-orphan-files.min-retention}): files younger than this may belong to a
 *     write still in progress, or to a snapshot a reader just started on
 */
public record MaintenanceSettings(Duration minRetention) {
  public static final MaintenanceSettings DEFAULT = new MaintenanceSettings(Duration.ofDays(7));

  public MaintenanceSettings {
    requireNonNull(minRetention, "minRetention is null");
    if (minRetention.isNegative()) {
      throw new IllegalArgumentException("minRetention is negative: " + minRetention);
    }
  }
}
