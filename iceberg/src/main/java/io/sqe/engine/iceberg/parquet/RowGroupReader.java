package io.sqe.engine.iceberg.parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.VectorizedReader;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.MessageType;

/**
 * Reads chosen row groups of a Parquet file with an Iceberg vectorized reader, as Iceberg's
 * {@code VectorizedParquetReader} does, but from the cached footer ({@link ParquetFooters}) rather
 * than reading and parsing it again for every split opened, and with {@link PageDecompressors}.
 * For files whose schema carries Iceberg field ids, read without delete files. Row positions come
 * from the row index offsets of the footer, which holds every row group of the file, so they are
 * positions in the file whichever row groups are read.
 */
public final class RowGroupReader<T> implements CloseableIterable<T> {
  private final InputFile file;
  private final ParquetFooters.RowGroups rowGroups;
  private final Schema readSchema;
  private final Function<MessageType, VectorizedReader<?>> readerFunction;
  private final int batchRows;
  private final List<Batches> opened = new ArrayList<>();

  private RowGroupReader(
      InputFile file,
      ParquetFooters.RowGroups rowGroups,
      Schema readSchema,
      Function<MessageType, VectorizedReader<?>> readerFunction,
      int batchRows) {
    this.file = file;
    this.rowGroups = rowGroups;
    this.readSchema = readSchema;
    this.readerFunction = readerFunction;
    this.batchRows = batchRows;
  }

  /**
   * The batches of {@code rowGroups} of {@code file}, {@code batchRows} rows at most each, read by
   * the reader {@code readerFunction} builds for the file's schema (with ids). The file is opened
   * and the reader built when iteration starts.
   */
  public static <T> CloseableIterable<T> read(
      InputFile file,
      ParquetFooters.RowGroups rowGroups,
      Schema readSchema,
      Function<MessageType, VectorizedReader<?>> readerFunction,
      int batchRows) {
    return new RowGroupReader<>(file, rowGroups, readSchema, readerFunction, batchRows);
  }

  @Override
  public CloseableIterator<T> iterator() {
    Batches batches = new Batches();
    opened.add(batches);
    return batches;
  }

  @Override
  public void close() throws IOException {
    for (Batches batches : opened) {
      batches.close();
    }
    opened.clear();
  }

  private final class Batches implements CloseableIterator<T> {
    private final PageDecompressors decompressors = new PageDecompressors();
    private final ParquetFileReader reader;
    private final VectorizedReader<T> model;
    private final Map<ColumnPath, ColumnChunkMetaData>[] chunks;
    private final long[] rowCounts;
    private int next;
    /** The file's row groups passed so far, read or skipped. */
    private int position;
    private long rowsLeftInGroup;
    private T last;
    private boolean closed;

    @SuppressWarnings("unchecked")
    Batches() {
      List<BlockMetaData> blocks = rowGroups.footer().getBlocks();
      MessageType fileSchema = rowGroups.footer().getFileMetaData().getSchema();
      MessageType projection = ParquetSchemaUtil.pruneColumns(fileSchema, readSchema);
      Set<ColumnPath> projected = new HashSet<>();
      for (ColumnDescriptor column : projection.getColumns()) {
        projected.add(ColumnPath.get(column.getPath()));
      }
      int[] indexes = rowGroups.indexes();
      chunks = new Map[indexes.length];
      rowCounts = new long[indexes.length];
      for (int i = 0; i < indexes.length; i++) {
        BlockMetaData block = blocks.get(indexes[i]);
        Map<ColumnPath, ColumnChunkMetaData> columns = new HashMap<>();
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          if (projected.contains(chunk.getPath())) {
            columns.put(chunk.getPath(), chunk);
          }
        }
        chunks[i] = columns;
        rowCounts[i] = block.getRowCount();
      }
      ParquetReadOptions options =
          ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(decompressors).build();
      ParquetFooters.ParquetInput input = new ParquetFooters.ParquetInput(file);
      try {
        reader = ParquetFileReader.open(input, rowGroups.footer(), options, input.newStream());
      } catch (IOException e) {
        decompressors.release();
        throw new UncheckedIOException("Could not open the Parquet file " + file.location(), e);
      }
      try {
        reader.setRequestedSchema(projection);
        model = (VectorizedReader<T>) readerFunction.apply(fileSchema);
        model.setBatchSize(batchRows);
      } catch (RuntimeException | Error e) {
        closeReader();
        throw e;
      }
    }

    @Override
    public boolean hasNext() {
      return rowsLeftInGroup > 0 || next < rowCounts.length;
    }

    @Override
    public T next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      if (rowsLeftInGroup == 0) {
        advance();
      }
      int rows = (int) Math.min(rowsLeftInGroup, batchRows);
      last = model.read(last, rows);
      rowsLeftInGroup -= rows;
      return last;
    }

    /** Reads the next chosen row group's column chunks, skipping the row groups before it. */
    private void advance() {
      int target = rowGroups.indexes()[next];
      try {
        while (position < target) {
          reader.skipNextRowGroup();
          position++;
        }
        PageReadStore pages = reader.readNextRowGroup();
        position++;
        if (pages == null || pages.getRowCount() != rowCounts[next]) {
          throw new IOException("Row group " + target + " of " + file.location() + " is not as its footer describes it");
        }
        model.setRowGroupInfo(pages, chunks[next]);
      } catch (IOException e) {
        throw new UncheckedIOException("Could not read row group " + target + " of the Parquet file " + file.location(), e);
      }
      rowsLeftInGroup = rowCounts[next];
      next++;
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        model.close();
      } finally {
        closeReader();
      }
    }

    private void closeReader() {
      try {
        reader.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        decompressors.release();
      }
    }
  }
}
