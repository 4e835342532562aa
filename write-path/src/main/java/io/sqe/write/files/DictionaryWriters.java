package io.sqe.write.files;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;

/**
 * parquet-mr's values writers, except that the dictionaries of INT32, INT64 and BINARY columns look
 * their values up in an open-addressing table of primitives (a BINARY column's values in one byte
 * array) instead of parquet-mr's linked hash map of boxed keys, which rehashes through its links
 * and hashes a binary byte by byte, and that a
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
      case INT64 -> new DictionaryOrPlain(new Longs(maxBytes, props), plain);
      case INT32 -> new DictionaryOrPlain(new Ints(maxBytes, props), plain);
      case BINARY -> new DictionaryOrPlain(new Texts(maxBytes, props), plain);
      case FLOAT, DOUBLE -> FallbackValuesWriter.of(fallback.initialWriter, plain);
      default -> writer;
    };
  }

  /**
   * The slots of an open-addressing table: a value's id plus one, 0 for none; and the page's ids
   * in an {@code int[]}, encoded by {@link HybridIdEncoder} (parquet-mr keeps them in an {@code
   * IntList} of slabs, which the parent's fields and methods no longer touch).
   */
  abstract static class Table extends DictionaryValuesWriter {
    private static final int MAX_ENTRIES = Integer.MAX_VALUE - 1;
    int[] slots = new int[1024];
    int size;
    /** The ids of the page's values, in order. */
    int[] ids = new int[1024];
    int count;
    private final HybridIdEncoder encoder = new HybridIdEncoder();

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
      if (count == ids.length) {
        ids = Arrays.copyOf(ids, count * 2);
      }
      ids[count++] = id;
    }

    @Override
    public final BytesInput getBytes() {
      BytesInput bytes = encoder.encode(ids, count, BytesUtils.getWidthFromMaxInt(getDictionarySize() - 1));
      lastUsedDictionarySize = getDictionarySize();
      lastUsedDictionaryByteSize = Math.toIntExact(dictionaryByteSize);
      return bytes;
    }

    @Override
    public final long getBufferedSize() {
      return count * 4L;
    }

    @Override
    public final long getAllocatedSize() {
      return count * 4L + dictionaryByteSize;
    }

    @Override
    public final void reset() {
      // The parent's close releases its dictionary pages' writers; its IntList stays unused.
      super.close();
      count = 0;
    }

    @Override
    public final void close() {
      super.close();
      count = 0;
    }

    @Override
    public final void fallBackAllValuesTo(ValuesWriter writer) {
      fallBackDictionaryEncodedData(writer);
      if (lastUsedDictionarySize == 0) {
        clearDictionaryContent();
        dictionaryByteSize = 0;
        count = 0;
      }
    }

    @Override
    public final String memUsageString(String prefix) {
      return prefix + " DictionaryValuesWriter{\n" + prefix + " dict:" + dictionaryByteSize + "\n" + prefix + " values:" + count * 4L
          + "\n" + prefix + "}\n";
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
      for (int i = 0; i < count; i++) {
        writer.writeLong(values[ids[i]]);
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
      for (int i = 0; i < count; i++) {
        writer.writeInteger(values[ids[i]]);
      }
    }
  }

  /** BINARY values, kept one after another in one array. */
  static final class Texts extends Table {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] data = new byte[16384];
    /** Where value i starts in {@link #data}; it ends where value i + 1 starts. */
    private int[] starts = new int[513];
    private int[] hashes = new int[512];
    private byte[] scratch = new byte[64];

    Texts(int maxDictionaryByteSize, ParquetProperties props) {
      super(maxDictionaryByteSize, props);
    }

    @Override
    public void writeBytes(Binary value) {
      ByteBuffer buffer = value.toByteBuffer();
      int length = buffer.remaining();
      if (buffer.hasArray()) {
        writeBytes(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
      } else {
        if (scratch.length < length) {
          scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        buffer.get(scratch, 0, length);
        writeBytes(scratch, 0, length);
      }
    }

    /** The value in the {@code length} bytes of {@code bytes} from {@code offset}, which the caller may reuse. */
    void writeBytes(byte[] bytes, int offset, int length) {
      int hash = hash(bytes, offset, length);
      int mask = slots.length - 1;
      int slot = hash & mask;
      while (true) {
        int id = slots[slot] - 1;
        if (id < 0) {
          break;
        }
        if (hashes[id] == hash && Arrays.equals(data, starts[id], starts[id + 1], bytes, offset, offset + length)) {
          encode(id);
          return;
        }
        slot = (slot + 1) & mask;
      }
      if (full()) {
        grow();
        writeBytes(bytes, offset, length);
        return;
      }
      int id = size;
      if (id == hashes.length) {
        hashes = Arrays.copyOf(hashes, id * 2);
        starts = Arrays.copyOf(starts, id * 2 + 1);
      }
      int start = starts[id];
      if (data.length - start < length) {
        data = Arrays.copyOf(data, Math.max(data.length * 2, start + length));
      }
      System.arraycopy(bytes, offset, data, start, length);
      starts[id + 1] = start + length;
      hashes[id] = hash;
      slots[slot] = id + 1;
      size++;
      dictionaryByteSize += 4 + length;
      encode(id);
    }

    private static int hash(byte[] bytes, int offset, int length) {
      long h = length;
      int i = 0;
      for (; i + 8 <= length; i += 8) {
        h = (h ^ (long) LONGS.get(bytes, offset + i)) * 0x9E3779B97F4A7C15L;
      }
      for (; i < length; i++) {
        h = (h ^ bytes[offset + i]) * 0x9E3779B97F4A7C15L;
      }
      return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    private void grow() {
      slots = new int[slots.length * 2];
      int mask = slots.length - 1;
      for (int id = 0; id < size; id++) {
        int slot = hashes[id] & mask;
        while (slots[slot] != 0) {
          slot = (slot + 1) & mask;
        }
        slots[slot] = id + 1;
      }
    }

    private Binary value(int id) {
      return Binary.fromConstantByteArray(data, starts[id], starts[id + 1] - starts[id]);
    }

    @Override
    public DictionaryPage toDictPageAndClose() {
      if (lastUsedDictionarySize <= 0) {
        return null;
      }
      PlainValuesWriter dictionary = new PlainValuesWriter(lastUsedDictionaryByteSize, maxDictionaryByteSize, allocator);
      for (int i = 0; i < lastUsedDictionarySize; i++) {
        dictionary.writeBytes(value(i));
      }
      return dictPage(dictionary);
    }

    @Override
    public void fallBackDictionaryEncodedData(ValuesWriter writer) {
      for (int i = 0; i < count; i++) {
        writer.writeBytes(value(ids[i]));
      }
    }
  }
}
