package io.sqe.engine.iceberg.parquet;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * Parquet footers, cached (a data file of an Iceberg table never changes, so a footer is never
 * stale), and the row groups of a split that a filter may match, by their column statistics.
 *
 * <p>SQE chooses the row groups itself, rather than handing the filter to Iceberg's reader, because
 * that reader also tests every predicate against each row group's dictionaries: it reads each
 * dictionary whole into a sorted set, per file opened, which on TPC-H's key columns cost more than
 * the read it could save (dictionaries of uniformly spread values hold every value a predicate
 * asks for). The vector selection tests the dictionaries it meets anyway, batch by batch.
 */
public final class ParquetFooters {
  /** The name the footer cache's statistics go by. */
  public static final String CACHE_NAME = "parquet_footers";
  /**
   * Column chunks held at most, over all cached footers (a chunk's metadata is a few hundred
   * bytes), unless the server sets another bound ({@link #setMaxColumnChunks}).
   */
  public static final long DEFAULT_MAX_COLUMN_CHUNKS = 500_000L;

  private static final Cache<String, ParquetMetadata> FOOTERS =
      Caffeine.newBuilder()
          .maximumWeight(DEFAULT_MAX_COLUMN_CHUNKS)
          .weigher((String location, ParquetMetadata footer) -> Math.max(1, chunks(footer)))
          .recordStats()
          .build();

  private ParquetFooters() {}

  /**
   * Bounds the footers the JVM keeps by their column chunks ({@code query.footer-cache.max-column-chunks});
   * the cache is shared by every engine in the JVM, so the server sets it once, at its start.
   */
  public static void setMaxColumnChunks(long chunks) {
    if (chunks < 0) {
      throw new IllegalArgumentException("chunks is negative: " + chunks);
    }
    FOOTERS.policy().eviction().orElseThrow().setMaximum(chunks);
  }

  /** The cache, for its hit, miss and eviction statistics. */
  public static Cache<String, ParquetMetadata> cache() {
    return FOOTERS;
  }

  /**
   * The row groups of the split {@code [start, start + length)} of {@code file} that {@code filter}
   * may match by their column statistics, with the file's footer; null when SQE does not choose row
   * groups for this file (its schema carries no field ids: Iceberg's reader then maps its columns by
   * name and prunes with the filter itself).
   */
  public static RowGroups rowGroups(InputFile file, long start, long length, Schema readSchema, Expression filter) {
    ParquetMetadata footer = footer(file);
    MessageType fileSchema = footer.getFileMetaData().getSchema();
    if (!ParquetSchemaUtil.hasIds(fileSchema)) {
      return null;
    }
    ParquetMetricsRowGroupFilter statistics =
        filter == null || filter.op() == Expression.Operation.TRUE
            ? null
            : new ParquetMetricsRowGroupFilter(readSchema, filter, true);
    List<BlockMetaData> blocks = footer.getBlocks();
    int[] indexes = new int[blocks.size()];
    int count = 0;
    long end = start + length;
    for (int i = 0; i < blocks.size(); i++) {
      BlockMetaData rowGroup = blocks.get(i);
      // A split owns the row groups whose midpoint it holds, as parquet-mr's range filter decides.
      long midpoint = rowGroup.getStartingPos() + rowGroup.getCompressedSize() / 2;
      if (midpoint < start || midpoint >= end) {
        continue;
      }
      if (rowGroup.getRowCount() > 0 && (statistics == null || statistics.shouldRead(fileSchema, rowGroup))) {
        indexes[count++] = i;
      }
    }
    return new RowGroups(footer, Arrays.copyOf(indexes, count));
  }

  /**
   * Row groups of one file to read.
   *
   * @param footer the file's footer
   * @param indexes positions in {@code footer.getBlocks()}, ascending
   */
  public record RowGroups(ParquetMetadata footer, int[] indexes) {
    public boolean isEmpty() {
      return indexes.length == 0;
    }

    /** The most rows one of these row groups holds. */
    public long largestRowCount() {
      long largest = 0;
      for (int index : indexes) {
        largest = Math.max(largest, footer.getBlocks().get(index).getRowCount());
      }
      return largest;
    }
  }

  private static ParquetMetadata footer(InputFile file) {
    // The length is part of the key: a path rewritten in place (outside Iceberg) is read again.
    return FOOTERS.get(file.location() + "#" + file.getLength(), key -> read(file));
  }

  private static ParquetMetadata read(InputFile file) {
    try (ParquetFileReader reader = ParquetFileReader.open(new ParquetInput(file))) {
      return reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the Parquet footer of " + file.location(), e);
    }
  }

  private static int chunks(ParquetMetadata footer) {
    int chunks = 0;
    for (BlockMetaData rowGroup : footer.getBlocks()) {
      chunks += rowGroup.getColumns().size();
    }
    return chunks;
  }

  /** An Iceberg input file as parquet-mr's. */
  static final class ParquetInput implements org.apache.parquet.io.InputFile {
    private final InputFile file;

    ParquetInput(InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
      return new DelegatingSeekableInputStream(stream) {
        @Override
        public long getPos() throws IOException {
          return stream.getPos();
        }

        @Override
        public void seek(long position) throws IOException {
          stream.seek(position);
        }
      };
    }
  }
}
