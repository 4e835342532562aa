package io.sqe.write.files;

import java.util.Arrays;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.dictionary.IntList;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;

/**
 * parquet-mr's values writers, except that the dictionaries of INT32 and INT64 columns look their
 * values up in an open-addressing table of primitives instead of parquet-mr's linked hash map,
 * which rehashes through its links and is a third of a CTAS's dictionary time, and that a
 * dictionary falls back to a {@link PlainWriter}. They give ids in the same order and fall back at
 * the same sizes, so the pages and dictionary pages are the same bytes ({@code
 * DictionaryWritersTest}).
 */
final class DictionaryWriters implements ValuesWriterFactory {
  private final ValuesWriterFactory parquet = new DefaultValuesWriterFactory();
  private ParquetProperties props;

  @Override
  public void initialize(ParquetProperties properties) {
    this.props = properties;
    parquet.initialize(properties);
  }

  @Override
  public ValuesWriter newValuesWriter(ColumnDescriptor descriptor) {
    ValuesWriter writer = parquet.newValuesWriter(descriptor);
    if (!(writer instanceof FallbackValuesWriter<?, ?> fallback)
        || props.getWriterVersion() != ParquetProperties.WriterVersion.PARQUET_1_0) {
      return writer;
    }
    int maxBytes = props.getDictionaryPageSizeThreshold();
    ValuesWriter plain = fallback.fallBackWriter instanceof PlainValuesWriter ? new PlainWriter() : fallback.fallBackWriter;
    return switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
      case INT64 -> FallbackValuesWriter.of(new Longs(maxBytes, props), plain);
      case INT32 -> FallbackValuesWriter.of(new Ints(maxBytes, props), plain);
      case BINARY, FLOAT, DOUBLE -> FallbackValuesWriter.of(fallback.initialWriter, plain);
      default -> writer;
    };
  }

  /** The slots of an open-addressing table: a value's id plus one, 0 for none. */
  private abstract static class Table extends DictionaryValuesWriter {
    private static final int MAX_ENTRIES = Integer.MAX_VALUE - 1;
    int[] slots = new int[1024];
    int size;

    Table(int maxDictionaryByteSize, ParquetProperties props) {
      // Parquet v1 pages: PLAIN_DICTIONARY for both, as parquet-mr's v1 factory gives.
      super(maxDictionaryByteSize, Encoding.PLAIN_DICTIONARY, Encoding.PLAIN_DICTIONARY, props.getAllocator());
    }

    @Override
    public final boolean shouldFallBack() {
      return dictionaryByteSize > maxDictionaryByteSize || size > MAX_ENTRIES;
    }

    @Override
    public final int getDictionarySize() {
      return size;
    }

    @Override
    protected final void clearDictionaryContent() {
      size = 0;
      Arrays.fill(slots, 0);
    }

    final void encode(int id) {
      encodedValues.add(id);
    }

    /** Whether one more entry would fill the table past half, so that probes stay short. */
    final boolean full() {
      return size + 1 > slots.length >> 1;
    }

    static int mix(long value) {
      long h = value * 0x9E3779B97F4A7C15L;
      return (int) (h ^ (h >>> 32));
    }
  }

  private static final class Longs extends Table {
    private long[] values = new long[512];

    Longs(int maxDictionaryByteSize, ParquetProperties props) {
      super(maxDictionaryByteSize, props);
    }

    @Override
    public void writeLong(long value) {
      int mask = slots.length - 1;
      int slot = mix(value) & mask;
      while (true) {
        int id = slots[slot] - 1;
        if (id < 0) {
          break;
        }
        if (values[id] == value) {
          encode(id);
          return;
        }
        slot = (slot + 1) & mask;
      }
      int id = size;
      if (full()) {
        grow();
        writeLong(value);
        return;
      }
      if (id == values.length) {
        values = Arrays.copyOf(values, id * 2);
      }
      values[id] = value;
      slots[slot] = id + 1;
      size++;
      dictionaryByteSize += 8;
      encode(id);
    }

    private void grow() {
      slots = new int[slots.length * 2];
      int mask = slots.length - 1;
      for (int id = 0; id < size; id++) {
        int slot = mix(values[id]) & mask;
        while (slots[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[slot] = id + 1;
      }
    }

    @Override
    public DictionaryPage toDictPageAndClose() {
      if (lastUsedDictionarySize <= 0) {
        return null;
      }
      PlainValuesWriter dictionary = new PlainValuesWriter(lastUsedDictionaryByteSize, maxDictionaryByteSize, allocator);
      for (int i = 0; i < lastUsedDictionarySize; i++) {
        dictionary.writeLong(values[i]);
      }
      return dictPage(dictionary);
    }

    @Override
    public void fallBackDictionaryEncodedData(ValuesWriter writer) {
      IntList.IntIterator ids = encodedValues.iterator();
      while (ids.hasNext()) {
        writer.writeLong(values[ids.next()]);
      }
    }
  }

  private static final class Ints extends Table {
    private int[] values = new int[512];

    Ints(int maxDictionaryByteSize, ParquetProperties props) {
      super(maxDictionaryByteSize, props);
    }

    @Override
    public void writeInteger(int value) {
      int mask = slots.length - 1;
      int slot = mix(value) & mask;
      while (true) {
        int id = slots[slot] - 1;
        if (id < 0) {
          break;
        }
        if (values[id] == value) {
          encode(id);
          return;
        }
        slot = (slot + 1) & mask;
      }
      int id = size;
      if (full()) {
        grow();
        writeInteger(value);
        return;
      }
      if (id == values.length) {
        values = Arrays.copyOf(values, id * 2);
      }
      values[id] = value;
      slots[slot] = id + 1;
      size++;
      dictionaryByteSize += 4;
      encode(id);
    }

    private void grow() {
      slots = new int[slots.length * 2];
      int mask = slots.length - 1;
      for (int id = 0; id < size; id++) {
        int slot = mix(values[id]) & mask;
        while (slots[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[slot] = id + 1;
      }
    }

    @Override
    public DictionaryPage toDictPageAndClose() {
      if (lastUsedDictionarySize <= 0) {
        return null;
      }
      PlainValuesWriter dictionary = new PlainValuesWriter(lastUsedDictionaryByteSize, maxDictionaryByteSize, allocator);
      for (int i = 0; i < lastUsedDictionarySize; i++) {
        dictionary.writeInteger(values[i]);
      }
      return dictPage(dictionary);
    }

    @Override
    public void fallBackDictionaryEncodedData(ValuesWriter writer) {
      IntList.IntIterator ids = encodedValues.iterator();
      while (ids.hasNext()) {
        writer.writeInteger(values[ids.next()]);
      }
    }
  }
}
