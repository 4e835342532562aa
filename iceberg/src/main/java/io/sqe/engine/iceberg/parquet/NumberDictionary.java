package io.sqe.engine.iceberg.parquet;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A PLAIN dictionary of 32- or 64-bit numbers, read from its page in one bulk copy of
 * little-endian values; parquet-mr's {@code PlainValuesDictionary} reads it value by value through
 * a {@code LittleEndianDataInputStream}, which showed in profiles of scans over key columns (a
 * dictionary of up to a row group's distinct keys, read again for every row group).
 */
final class NumberDictionary extends Dictionary {
  private final int[] ints;
  private final long[] longs;
  private final boolean floating;

  private NumberDictionary(Encoding encoding, int[] ints, long[] longs, boolean floating) {
    super(encoding);
    this.ints = ints;
    this.longs = longs;
    this.floating = floating;
  }

  /** The page's dictionary: this class's for INT32, INT64, FLOAT and DOUBLE in PLAIN, else parquet-mr's. */
  static Dictionary read(ColumnDescriptor descriptor, DictionaryPage page) throws IOException {
    Encoding encoding = page.getEncoding();
    if (encoding != Encoding.PLAIN && encoding != Encoding.PLAIN_DICTIONARY) {
      return encoding.initDictionary(descriptor, page);
    }
    PrimitiveTypeName type = descriptor.getPrimitiveType().getPrimitiveTypeName();
    boolean floating = type == PrimitiveTypeName.FLOAT || type == PrimitiveTypeName.DOUBLE;
    int count = page.getDictionarySize();
    switch (type) {
      case INT32:
      case FLOAT:
        {
          int[] values = new int[count];
          values(descriptor, page, count, 4).asIntBuffer().get(values);
          return new NumberDictionary(encoding, values, null, floating);
        }
      case INT64:
      case DOUBLE:
        {
          long[] values = new long[count];
          values(descriptor, page, count, 8).asLongBuffer().get(values);
          return new NumberDictionary(encoding, null, values, floating);
        }
      default:
        return encoding.initDictionary(descriptor, page);
    }
  }

  /**
   * The page's {@code count} little-endian values of {@code width} bytes. Read only for the types
   * this class decodes: a page's bytes may be a stream that can be read once.
   */
  private static ByteBuffer values(ColumnDescriptor descriptor, DictionaryPage page, int count, int width) throws IOException {
    ByteBuffer bytes = page.getBytes().toByteBuffer().slice().order(ByteOrder.LITTLE_ENDIAN);
    if ((long) count * width > bytes.remaining()) {
      throw new IOException(
          "The dictionary page of " + descriptor + " holds " + bytes.remaining() + " bytes, too few for its " + count + " values");
    }
    return bytes;
  }

  @Override
  public int getMaxId() {
    return (ints != null ? ints.length : longs.length) - 1;
  }

  @Override
  public int decodeToInt(int id) {
    if (ints == null || floating) {
      return super.decodeToInt(id);
    }
    return ints[id];
  }

  @Override
  public float decodeToFloat(int id) {
    if (ints == null || !floating) {
      return super.decodeToFloat(id);
    }
    return Float.intBitsToFloat(ints[id]);
  }

  @Override
  public long decodeToLong(int id) {
    if (longs == null || floating) {
      return super.decodeToLong(id);
    }
    return longs[id];
  }

  @Override
  public double decodeToDouble(int id) {
    if (longs == null || !floating) {
      return super.decodeToDouble(id);
    }
    return Double.longBitsToDouble(longs[id]);
  }

  @Override
  public String toString() {
    return "NumberDictionary{" + (getMaxId() + 1) + " values}";
  }
}
