package io.sqe.write.dml;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.exec.BatchStream;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.write.files.BatchFileWriter;
import io.sqe.write.files.DataFileWriter;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;

/**
 * Writes the result of a statement's query as data files straight from its record batches, when
 * the query has a columnar plan and every column's values go to the table as they are ({@link
 * BatchFileWriter#layout}); CTAS and INSERT ... SELECT otherwise write its rows one by one.
 */
final class BatchWrites {
  /** The most a sorted table's buffer keeps of the query's memory, so that the scan has the rest. */
  private static final long MAX_SORT_BUFFER_BYTES = 256L << 20;

  /** What a write left: its files, every path it started, and its row count. */
  record Written(List<DataFile> files, Set<String> paths, long rowCount) {}

  private BatchWrites() {}

  /**
   * How the query's batches become rows of {@code table}, batch column {@code i} going to the
   * column at position {@code targets[i]}; empty when they cannot be written as batches.
   */
  static Optional<BatchFileWriter.Layout> layout(PlannedQuery query, Table table, int[] targets) {
    if (query.batchPlan() == null) {
      return Optional.empty();
    }
    return BatchFileWriter.layout(table, query.resultSchema(), targets);
  }

  /** Runs the query and writes its batches; on failure, deletes what it wrote and rethrows. */
  static Written write(
      CommandContext context, PlannedQuery query, List<Object> parameters, DataFileWriter.Builder files, BatchFileWriter.Layout layout) {
    BatchStream batches = context.queries().batches(context.session(), query, parameters, context.queryId());
    BatchFileWriter writer = null;
    try {
      // A sorted table holds two buffers at most (one written while the next fills): half the query's memory between them.
      writer = files.sortBufferBytes(Math.min(MAX_SORT_BUFFER_BYTES, batches.allocator().getLimit() / 4)).buildForBatches(layout);
      for (VectorSchemaRoot batch = batches.next(); batch != null; batch = batches.next()) {
        writer.write(batch);
      }
      return new Written(writer.complete(), writer.paths(), writer.rowCount());
    } catch (RuntimeException | Error e) {
      if (writer != null) {
        writer.abort();
      }
      throw e;
    } finally {
      // After the writer let go of every batch it held: the stream's allocator must find them closed.
      batches.close();
    }
  }
}
