package io.sqe.write.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
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

/**
 * Every file a table's metadata references: the metadata files in its metadata log (and the
 * version hint, where there is one), statistics files, and of every snapshot the manifest list,
 * manifests, and data and delete files.
 */
public final class ReachableFiles {
  private ReachableFiles() {}

  /**
   * Hands each file's location to {@code visitor}, metadata first, until it returns false.
   *
   * @return false when the visitor stopped the walk
   */
  public static boolean visit(Table table, Predicate<String> visitor) {
    return visit(table, true, visitor);
  }

  /**
   * As above; without {@code contentFiles}, the data and delete files are left out (the manifests
   * that list them are not).
   */
  public static boolean visit(Table table, boolean contentFiles, Predicate<String> visitor) {
    for (String metadata : ReachableFileUtil.metadataFileLocations(table, false)) {
      if (!visitor.test(metadata)) {
        return false;
      }
    }
    String versionHint = ReachableFileUtil.versionHintLocation(table);
    if (versionHint != null && !visitor.test(versionHint)) {
      return false;
    }
    for (StatisticsFile statistics : table.statisticsFiles()) {
      if (!visitor.test(statistics.path())) {
        return false;
      }
    }
    for (PartitionStatisticsFile statistics : table.partitionStatisticsFiles()) {
      if (!visitor.test(statistics.path())) {
        return false;
      }
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    Set<String> manifests = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null && !visitor.test(snapshot.manifestListLocation())) {
        return false;
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (!manifests.add(manifest.path())) {
          continue;
        }
        if (!visitor.test(manifest.path())) {
          return false;
        }
        if (!contentFiles) {
          continue;
        }
        try (CloseableIterable<String> files = manifest.content() == ManifestContent.DATA
            ? ManifestFiles.readPaths(manifest, table.io(), specs)
            : CloseableIterable.transform(ManifestFiles.readDeleteManifest(manifest, table.io(), specs), f -> f.location())) {
          for (String file : files) {
            if (!visitor.test(file)) {
              return false;
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return true;
  }
}
