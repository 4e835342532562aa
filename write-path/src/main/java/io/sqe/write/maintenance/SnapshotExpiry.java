package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires a table's snapshots older than a point in time through Iceberg's {@link
 * ExpireSnapshots}, which keeps every snapshot a branch or tag still needs (and the table's
 * {@code history.expire.min-snapshots-to-keep} newest of each branch), and deletes the manifest
 * lists, manifests and data files that no kept snapshot reaches. On a table with no ref but
 * {@code main}, Iceberg cleans up incrementally: a data file goes when the snapshot that removed
 * it expires.
 */
public final class SnapshotExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiry.class);

  /**
   * What an expiry did.
   *
   * @param expiredSnapshots snapshots removed from the table's metadata
   * @param deletedDataFiles data and delete files deleted
   * @param deletedManifests manifest files deleted
   * @param deletedManifestLists manifest lists deleted
   * @param deletedStatisticsFiles statistics files deleted
   */
  public record Result(
      long expiredSnapshots, long deletedDataFiles, long deletedManifests, long deletedManifestLists, long deletedStatisticsFiles) {}

  private SnapshotExpiry() {}

  /**
   * Expires the snapshots of {@code table} older than {@code olderThan}.
   *
   * @param retainLast keep at least this many of the newest snapshots of each branch; null for the
   *     table's setting
   */
  public static Result expire(Table table, Instant olderThan, Integer retainLast) {
    requireNonNull(table, "table is null");
    requireNonNull(olderThan, "olderThan is null");
    Set<Long> before = snapshotIds(table);
    Set<String> manifestLists = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        manifestLists.add(snapshot.manifestListLocation());
      }
    }
    Set<String> statistics = new HashSet<>();
    table.statisticsFiles().forEach(f -> statistics.add(f.path()));
    table.partitionStatisticsFiles().forEach(f -> statistics.add(f.path()));
    Set<String> manifests = new HashSet<>();
    AtomicLong dataFiles = new AtomicLong();
    AtomicLong manifestFiles = new AtomicLong();
    AtomicLong manifestListFiles = new AtomicLong();
    AtomicLong statisticsFiles = new AtomicLong();
    ExpireSnapshots expire = table.expireSnapshots().expireOlderThan(olderThan.toEpochMilli()).cleanExpiredFiles(true);
    if (retainLast != null) {
      expire.retainLast(retainLast);
    }
    // Only the snapshots that this expiry removes matter for telling manifests from data files.
    for (Snapshot snapshot : table.snapshots()) {
      if (olderThan.toEpochMilli() > snapshot.timestampMillis()) {
        for (ManifestFile manifest : snapshot.allManifests(table.io())) {
          manifests.add(manifest.path());
        }
      }
    }
    expire.deleteWith(path -> {
      try {
        table.io().deleteFile(path);
      } catch (RuntimeException e) {
        // The snapshot is expired either way; a file left behind is an orphan that remove_orphan_files finds.
        LOG.warn("Cannot delete {} of expired snapshots of {}", path, table.name(), e);
        return;
      }
      if (manifestLists.contains(path)) {
        manifestListFiles.incrementAndGet();
      } else if (manifests.contains(path)) {
        manifestFiles.incrementAndGet();
      } else if (statistics.contains(path)) {
        statisticsFiles.incrementAndGet();
      } else {
        dataFiles.incrementAndGet();
      }
    });
    expire.commit();
    table.refresh();
    Set<Long> after = snapshotIds(table);
    before.removeAll(after);
    return new Result(before.size(), dataFiles.get(), manifestFiles.get(), manifestListFiles.get(), statisticsFiles.get());
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    table.snapshots().forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }
}
