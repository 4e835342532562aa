package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.ColumnWriter;
import io.sqe.engine.exec.batch.Gather;
import io.sqe.engine.iceberg.DataFileBatches;
import io.sqe.write.files.BatchFileWriter;
import io.sqe.write.files.DataFileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterator;

/**
 * The copy-on-write rewrite of data files from their record batches: the rows a statement deletes
 * are left out, the rows it updates take their new values, and every other row is copied from
 * vector to vector, with no {@code Record} or Java object per value (but the new values).
 * Batches go to a {@link BatchFileWriter}, which writes them as a CTAS writes its batches. A file
 * the vectorized reader does not read (delete files, a type it does not gather) or a table whose
 * files the batch writer does not write is left to the caller's row-by-row rewrite.
 */
final class BatchRewrite implements AutoCloseable {
  private final Table table;
  private final RowChanges changes;
  private final Optional<BatchFileWriter.Layout> layout;
  private final DataFileWriter.Builder files;
  private final BufferAllocator allocator;
  private final Schema schema;
  private final List<Function<Object, Object>> engineValues;
  private BatchFileWriter writer;

  /**
   * @param files how the rewritten files are written; its operation id must differ from that of
   *     any other writer of the statement, as the files are named by it
   * @param allocator the allocator of the batches, under the statement's memory limit
   */
  BatchRewrite(Table table, RowChanges changes, DataFileWriter.Builder files, BufferAllocator allocator) {
    this.table = requireNonNull(table, "table is null");
    this.changes = requireNonNull(changes, "changes is null");
    this.files = requireNonNull(files, "files is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.schema = DataFileBatches.arrowSchema(table.schema());
    this.layout = BatchFileWriter.layout(table, schema, IntStream.range(0, schema.getFields().size()).toArray());
    this.engineValues = DataFileBatches.engineValues(table.schema());
  }

  /**
   * Writes the rows {@code task}'s file keeps, changed as the statement changes them, and returns
   * true; or writes nothing and returns false when the file is not read as batches.
   */
  boolean rewrite(FileScanTask task) {
    if (layout.isEmpty() || !task.deletes().isEmpty()) {
      return false;
    }
    Optional<CloseableIterator<VectorSchemaRoot>> read = DataFileBatches.read(table, task, allocator);
    if (read.isEmpty()) {
      return false;
    }
    if (writer == null) {
      // Two sort buffers at most (one written while the next fills): half the allocator's memory between them.
      writer = files.sortBufferBytes(Math.max(1, Math.min(256L << 20, allocator.getLimit() / 4))).buildForBatches(layout.get());
    }
    String path = task.file().location();
    long[] positions = changes.positions(path);
    int next = 0;
    long position = 0;
    try (CloseableIterator<VectorSchemaRoot> batches = read.get()) {
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        int rows = batch.getRowCount();
        int first = next;
        while (next < positions.length && positions[next] < position + rows) {
          next++;
        }
        VectorSchemaRoot out = batch;
        if (first < next) {
          try (batch) {
            out = changed(batch, path, position, positions, first, next);
          }
        }
        if (out != null) {
          writer.write(out);
        }
        position += rows;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (position != task.file().recordCount() || next != positions.length) {
      throw new IllegalStateException(
          "Read " + position + " rows of " + task.file().recordCount() + " in " + path + " and placed " + next + " of its " + positions.length + " changed rows");
    }
    return true;
  }

  /**
   * The rows of {@code batch} (rows {@code base} on of the file) with the changes at {@code
   * positions[from, to)} applied, in fresh vectors; null when the batch keeps no row.
   */
  private VectorSchemaRoot changed(VectorSchemaRoot batch, String path, long base, long[] positions, int from, int to) {
    int rows = batch.getRowCount();
    int[] kept = new int[rows];
    int[] updatedAt = new int[to - from];
    RowChanges.Update[] updates = new RowChanges.Update[to - from];
    int count = 0;
    int updated = 0;
    int p = from;
    for (int r = 0; r < rows; r++) {
      if (p < to && positions[p] == base + r) {
        Object change = changes.change(path, positions[p++]);
        if (RowChanges.isDelete(change)) {
          continue;
        }
        updatedAt[updated] = count;
        updates[updated++] = (RowChanges.Update) change;
      }
      kept[count++] = r;
    }
    if (count == 0) {
      return null;
    }
    if (updated == 0) {
      return Gather.rows(schema, allocator, count, batch, kept);
    }
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      for (int c = 0; c < schema.getFields().size(); c++) {
        FieldVector source = batch.getVector(c);
        FieldVector target = out.getVector(c);
        target.setInitialCapacity(count);
        target.allocateNew();
        ColumnWriter values = ColumnWriter.create(target);
        int u = 0;
        for (int i = 0; i < count; i++) {
          int at = u < updated && updatedAt[u] == i ? indexOf(updates[u++].columns(), c) : -1;
          if (at >= 0) {
            values.write(i, engineValues.get(c).apply(updates[u - 1].values()[at]));
          } else {
            target.copyFromSafe(kept[i], i, source);
          }
        }
        target.setValueCount(count);
      }
      out.setRowCount(count);
      return out;
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
  }

  private static int indexOf(int[] columns, int column) {
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] == column) {
        return i;
      }
    }
    return -1;
  }

  /** The files written, once every file was rewritten; empty if none was. */
  List<DataFile> complete() {
    return writer == null ? List.of() : writer.complete();
  }

  /** Every path a file was started at, for the cleanup of a failed commit. */
  Set<String> paths() {
    return writer == null ? Set.of() : writer.paths();
  }

  /**
   * Unless {@link #complete} was called, deletes what was written and releases what the writer
   * holds (the statement failed); the allocator stays the caller's.
   */
  @Override
  public void close() {
    if (writer != null) {
      writer.close();
    }
  }
}
