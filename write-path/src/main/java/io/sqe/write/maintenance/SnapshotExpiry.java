package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.SqeException;
import io.sqe.write.storage.OtherTables;
import io.sqe.write.storage.StorageLocation;
import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *
 * <p>Of the files Iceberg would delete, only those under the table's own location or the
 * directories its path properties name, and referenced by no other table or view of the catalog
 * ({@link OtherTables}), are deleted: a file another engine added from elsewhere (as Spark's
 * {@code add_files} does) is left where it is.
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
   * @param others the catalog's other tables and views, whose files must stay
   * @param retainLast keep at least this many of the newest snapshots of each branch; null for the
   *     table's setting
   */
  public static Result expire(Table table, OtherTables others, Instant olderThan, Integer retainLast) {
    requireNonNull(table, "table is null");
    requireNonNull(others, "others is null");
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
    List<StorageLocation> roots = StorageLocation.rootsOf(table);
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
    // Iceberg names the files after its commit; they are deleted once the other tables are asked about them.
    Map<String, String> unreachable = Collections.synchronizedMap(new LinkedHashMap<>());
    expire.deleteWith(path -> {
      Optional<StorageLocation> at = StorageLocation.parseExisting(path);
      if (at.isPresent() && roots.stream().anyMatch(root -> root.contains(at.get()) && !root.equals(at.get()))) {
        unreachable.put(at.get().key(), path);
      } else {
        LOG.info("Expired snapshots of {} referenced {}, outside the table's own locations; it is left alone", table.name(), path);
      }
    });
    expire.commit();
    try {
      unreachable.keySet().removeAll(others.referenced(unreachable.keySet()));
    } catch (SqeException e) {
      throw new SqeException(
          e.code(),
          "The snapshots expired, but none of their files was deleted: " + e.getMessage() + "; remove_orphan_files deletes them once it can",
          e);
    }
    long dataFiles = 0;
    long manifestFiles = 0;
    long manifestListFiles = 0;
    long statisticsFiles = 0;
    for (String path : unreachable.values()) {
      try {
        table.io().deleteFile(path);
      } catch (RuntimeException e) {
        // The snapshot is expired either way; a file left behind is an orphan that remove_orphan_files finds.
        LOG.warn("Cannot delete {} of expired snapshots of {}", path, table.name(), e);
        continue;
      }
      if (manifestLists.contains(path)) {
        manifestListFiles++;
      } else if (manifests.contains(path)) {
        manifestFiles++;
      } else if (statistics.contains(path)) {
        statisticsFiles++;
      } else {
        dataFiles++;
      }
    }
    table.refresh();
    Set<Long> after = snapshotIds(table);
    before.removeAll(after);
    return new Result(before.size(), dataFiles, manifestFiles, manifestListFiles, statisticsFiles);
  }

  private static Set<Long> snapshotIds(Table table) {
    Set<Long> ids = new HashSet<>();
    table.snapshots().forEach(s -> ids.add(s.snapshotId()));
    return ids;
  }
}
