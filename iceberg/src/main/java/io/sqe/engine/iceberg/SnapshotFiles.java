package io.sqe.engine.iceberg;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Scan planning per snapshot: the data files of a snapshot (with their column statistics), read
 * from its manifests once and cached, then planned for each scan's filter in memory, the way
 * Iceberg's own planning does (partition values against the filter's inclusive projection, column
 * bounds against the filter, and the residual per partition). A snapshot never changes, so an
 * entry is never stale; a commit makes a new snapshot, which is a new entry.
 *
 * <p>Only snapshots without delete files are cached: matching delete files to data files is left
 * to Iceberg's planning. The server's {@code query.planning-cache.max-files} bounds the cache by
 * data files held (200,000 by default; 0 turns it off).
 */
public final class SnapshotFiles {
  /** The name the cache's statistics go by. */
  public static final String CACHE_NAME = "scan_planning";
  /** Data files held at most, unless the server sets another bound ({@link #setMaxFiles}). */
  public static final long DEFAULT_MAX_FILES = 200_000L;

  private static volatile long maxFiles = DEFAULT_MAX_FILES;

  private static final Cache<String, List<FileScanTask>> SNAPSHOTS =
      Caffeine.newBuilder()
          .maximumWeight(DEFAULT_MAX_FILES)
          .weigher((String key, List<FileScanTask> files) -> Math.max(1, files.size()))
          .recordStats()
          .build();

  private SnapshotFiles() {}

  /**
   * Bounds the cache by the data files it holds; 0 turns it off. The cache is shared by every
   * engine in the JVM, so the server sets it once, at its start.
   */
  public static void setMaxFiles(long files) {
    if (files < 0) {
      throw new IllegalArgumentException("files is negative: " + files);
    }
    maxFiles = files;
    SNAPSHOTS.policy().eviction().orElseThrow().setMaximum(files);
  }

  /** The cache, for its hit, miss and eviction statistics. */
  public static Cache<String, List<FileScanTask>> cache() {
    return SNAPSHOTS;
  }

  /**
   * The files of snapshot {@code snapshot} of {@code table} that {@code filter} (in the names of
   * the table's current schema, whatever the snapshot's schema calls the columns) may match, each
   * with its residual; null when this cache does not plan the snapshot (it has delete files, or the
   * cache is off), and the caller plans with Iceberg. The files' partition specs are the table's,
   * bound to its current schema: a cached task's spec is bound to the schema of whichever table
   * object read the snapshot first, which may name a column differently.
   */
  static List<FileScanTask> plan(Table table, Snapshot snapshot, Expression filter, Runnable checkCancelled) {
    if (maxFiles <= 0 || !withoutDeletes(snapshot)) {
      return null;
    }
    List<FileScanTask> files =
        SNAPSHOTS.get(table.location() + "@" + snapshot.snapshotId(), key -> read(table, snapshot.snapshotId(), checkCancelled));
    Schema schema = table.schema();
    InclusiveMetricsEvaluator bounds = new InclusiveMetricsEvaluator(schema, filter, true);
    String schemaJson = SchemaParser.toJson(schema);
    Map<Integer, SpecPlanning> specs = new HashMap<>();
    List<FileScanTask> planned = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      FileScanTask task = files.get(i);
      DataFile file = task.file();
      SpecPlanning spec = specs.computeIfAbsent(file.specId(), id -> new SpecPlanning(table.specs().get(id), filter));
      if (spec.partitions.eval(file.partition()) && bounds.eval(file)) {
        planned.add(new BaseFileScanTask(file, new DeleteFile[0], schemaJson, spec.json, spec.residuals));
      }
      if ((i & 0xFF) == 0xFF) {
        checkCancelled.run();
      }
    }
    return planned;
  }

  private static boolean withoutDeletes(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    return summary != null && "0".equals(summary.get("total-delete-files"));
  }

  private static List<FileScanTask> read(Table table, long snapshotId, Runnable checkCancelled) {
    List<FileScanTask> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty()) {
          throw new IllegalStateException("Snapshot " + snapshotId + " of " + table.name() + " has delete files its summary did not count");
        }
        files.add(task);
        if ((files.size() & 0xFF) == 0) {
          checkCancelled.run();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(files);
  }

  /** How one partition spec's files are tested against the filter and given their residuals. */
  private static final class SpecPlanning {
    final Evaluator partitions;
    final ResidualEvaluator residuals;
    final String json;

    SpecPlanning(PartitionSpec spec, Expression filter) {
      this.partitions = new Evaluator(spec.partitionType(), Projections.inclusive(spec, true).project(filter), true);
      this.residuals = ResidualEvaluator.of(spec, filter, true);
      this.json = PartitionSpecParser.toJson(spec);
    }
  }
}
