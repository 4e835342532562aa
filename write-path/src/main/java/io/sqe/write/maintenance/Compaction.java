package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import io.sqe.write.files.DataFileRows;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.txn.Commits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.FileRewritePlan;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.actions.SizeBasedFileRewritePlanner;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Compacts a table's small data files: the files of the current snapshot smaller than a threshold
 * are bin-packed per partition by Iceberg's {@link BinPackRewriteFilePlanner} (files also qualify
 * when deletes cover much of them; a partition with a single small file is left alone), read with
 * their deletes applied, and written again by SQE's {@link DataFileWriter} in the table's current
 * partition spec and sort order, at its target file size ({@code write.target-file-size-bytes}).
 * All groups commit as one {@link RewriteFiles} validated from the snapshot that was read: if a
 * concurrent commit removed or deleted rows from any file being rewritten, the commit fails and
 * the table stays as it was; concurrent appends are kept.
 */
public final class Compaction {
  /**
   * What a compaction did.
   *
   * @param rewrittenFiles data files replaced
   * @param addedFiles data files written in their place
   * @param rewrittenBytes size of the replaced files
   * @param addedBytes size of the new files
   * @param snapshotId the snapshot the rewrite committed, or null if there was nothing to do
   */
  public record Result(long rewrittenFiles, long addedFiles, long rewrittenBytes, long addedBytes, Long snapshotId) {
    static final Result NOTHING = new Result(0, 0, 0, 0, null);
  }

  private final Table table;
  private final long fileSizeThreshold;
  private final String queryId;

  /**
   * @param table the table as loaded for this statement
   * @param fileSizeThreshold files smaller than this many bytes are compacted
   * @param queryId the statement's id: names the new files and marks the snapshot
   */
  public Compaction(Table table, long fileSizeThreshold, String queryId) {
    this.table = requireNonNull(table, "table is null");
    if (fileSizeThreshold <= 0) {
      throw new IllegalArgumentException("Invalid file size threshold: " + fileSizeThreshold);
    }
    this.fileSizeThreshold = fileSizeThreshold;
    this.queryId = requireNonNull(queryId, "queryId is null");
  }

  /** Plans, writes and commits the compaction; {@code what} names it in errors ("optimize of lake.s.t"). */
  public Result run(String what) {
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return Result.NOTHING;
    }
    List<RewriteFileGroup> groups = plan(base.snapshotId());
    if (groups.isEmpty()) {
      return Result.NOTHING;
    }
    List<DataFile> rewritten = new ArrayList<>();
    List<DeleteFile> danglingDeletes = new ArrayList<>();
    List<DataFile> added;
    DataFileWriter writer = DataFileWriter.builder(table).operationId(queryId).build();
    try {
      Schema schema = table.schema();
      int columns = schema.columns().size();
      for (RewriteFileGroup group : groups) {
        rewritten.addAll(group.rewrittenFiles());
        danglingDeletes.addAll(group.danglingDVs());
        for (FileScanTask task : group.fileScanTasks()) {
          try (CloseableIterable<Record> rows = DataFileRows.read(table, task)) {
            for (Record row : rows) {
              Record copy = GenericRecord.create(schema);
              for (int i = 0; i < columns; i++) {
                copy.set(i, row.get(i));
              }
              writer.write(copy);
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      added = writer.complete();
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
    RewriteFiles rewrite = table.newRewrite()
        .validateFromSnapshot(base.snapshotId())
        // Equality deletes committed after the snapshot that was read still apply to the new files.
        .dataSequenceNumber(base.sequenceNumber())
        .set(Commits.QUERY_ID_PROPERTY, queryId);
    rewritten.forEach(rewrite::deleteFile);
    danglingDeletes.forEach(rewrite::deleteFile);
    added.forEach(rewrite::addFile);
    Commits.commit(rewrite::commit, () -> DataFileWriter.deleteFiles(table, writer.paths()), what, Commits.QUERY_ID_PROPERTY + "=" + queryId);
    return new Result(
        rewritten.size(),
        added.size(),
        rewritten.stream().mapToLong(DataFile::fileSizeInBytes).sum(),
        added.stream().mapToLong(DataFile::fileSizeInBytes).sum(),
        table.currentSnapshot().snapshotId());
  }

  /**
   * The groups of files to rewrite. Iceberg's planner asks that files it keeps be smaller than the
   * target size, so a threshold at or above the target size compacts every file below the target.
   */
  private List<RewriteFileGroup> plan(long snapshotId) {
    long target = PropertyUtil.propertyAsLong(
        table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    BinPackRewriteFilePlanner planner = new BinPackRewriteFilePlanner(table, Expressions.alwaysTrue(), snapshotId, false);
    planner.init(Map.of(
        SizeBasedFileRewritePlanner.MIN_FILE_SIZE_BYTES, Long.toString(Math.min(fileSizeThreshold, target - 1)),
        // Large files are never split: optimize only merges small ones.
        SizeBasedFileRewritePlanner.MAX_FILE_SIZE_BYTES, Long.toString(Long.MAX_VALUE),
        SizeBasedFileRewritePlanner.MIN_INPUT_FILES, "2",
        RewriteDataFiles.REWRITE_JOB_ORDER, "none"));
    FileRewritePlan<RewriteDataFiles.FileGroupInfo, FileScanTask, DataFile, RewriteFileGroup> plan = planner.plan();
    List<RewriteFileGroup> groups = new ArrayList<>();
    try (CloseableIterable<RewriteFileGroup> planned = plan.groups()) {
      planned.forEach(groups::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return groups;
  }
}
