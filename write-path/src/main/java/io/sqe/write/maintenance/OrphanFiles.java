package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files under a table's location that no metadata of the table reaches and that are
 * older than a point in time: what failed writes and interrupted expiries leave behind. Reachable
 * are the metadata files in the table's metadata log, every snapshot's manifest list, manifests and
 * live data and delete files, and statistics files. The location is listed first and the table's
 * metadata read after, so a file committed meanwhile counts as reachable.
 */
public final class OrphanFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);
  /** scheme://authority, or a bare scheme such as {@code file:}, before a path. */
  private static final Pattern SCHEME_AND_AUTHORITY = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:(//[^/]*)?");

  /**
   * What a removal did.
   *
   * @param scannedFiles files found under the table's location
   * @param reachableFiles files the table's metadata reaches
   * @param deletedFiles orphan files deleted
   */
  public record Result(long scannedFiles, long reachableFiles, long deletedFiles) {}

  private OrphanFiles() {}

  /** Whether the table's storage can list files, which this needs. */
  public static boolean supported(Table table) {
    return table.io() instanceof SupportsPrefixOperations;
  }

  /** Deletes the orphan files under the table's location last modified before {@code olderThan}. */
  public static Result remove(Table table, Instant olderThan) {
    requireNonNull(table, "table is null");
    requireNonNull(olderThan, "olderThan is null");
    if (!supported(table)) {
      throw new UnsupportedOperationException(
          "remove_orphan_files needs storage that lists files; the table's FileIO (" + table.io().getClass().getSimpleName() + ") does not");
    }
    SupportsPrefixOperations io = (SupportsPrefixOperations) table.io();
    String location = table.location().endsWith("/") ? table.location() : table.location() + "/";
    long scanned = 0;
    Map<String, FileInfo> candidates = new java.util.HashMap<>();
    for (FileInfo file : io.listPrefix(location)) {
      scanned++;
      if (file.createdAtMillis() < olderThan.toEpochMilli()) {
        candidates.put(normalize(file.location()), file);
      }
    }
    table.refresh();
    Set<String> reachable = reachable(table);
    long deleted = 0;
    for (Map.Entry<String, FileInfo> candidate : candidates.entrySet()) {
      if (reachable.contains(candidate.getKey())) {
        continue;
      }
      try {
        io.deleteFile(candidate.getValue().location());
        deleted++;
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete orphan file {} of {}", candidate.getValue().location(), table.name(), e);
      }
    }
    return new Result(scanned, reachable.size(), deleted);
  }

  /** Every file the table's metadata reaches, normalized. */
  static Set<String> reachable(Table table) {
    Set<String> paths = new HashSet<>();
    ReachableFileUtil.metadataFileLocations(table, false).forEach(p -> paths.add(normalize(p)));
    String versionHint = ReachableFileUtil.versionHintLocation(table);
    if (versionHint != null) {
      paths.add(normalize(versionHint));
    }
    for (StatisticsFile statistics : table.statisticsFiles()) {
      paths.add(normalize(statistics.path()));
    }
    for (PartitionStatisticsFile statistics : table.partitionStatisticsFiles()) {
      paths.add(normalize(statistics.path()));
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    Set<String> manifests = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        paths.add(normalize(snapshot.manifestListLocation()));
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (!manifests.add(manifest.path())) {
          continue;
        }
        paths.add(normalize(manifest.path()));
        try (CloseableIterable<String> files = manifest.content() == ManifestContent.DATA
            ? ManifestFiles.readPaths(manifest, table.io(), specs)
            : CloseableIterable.transform(ManifestFiles.readDeleteManifest(manifest, table.io(), specs), f -> f.location())) {
          files.forEach(p -> paths.add(normalize(p)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return paths;
  }

  /**
   * A location without its scheme and authority, and with single slashes: listings and metadata
   * may spell one file {@code file:/a/b}, {@code file:///a/b} or {@code /a/b}.
   */
  static String normalize(String location) {
    String path = SCHEME_AND_AUTHORITY.matcher(location).replaceFirst("");
    return path.replaceAll("/{2,}", "/");
  }
}
