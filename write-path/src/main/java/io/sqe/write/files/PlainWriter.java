package io.sqe.write.files;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.io.api.Binary;

/**
 * PLAIN values of a page, the bytes parquet-mr's {@code PlainValuesWriter} writes (little-endian
 * numbers, a binary as its 4-byte length then its bytes), put straight into one array that grows
 * as needed and is kept from page to page: parquet-mr's goes through a data output stream that
 * copies each number through a scratch array into a chain of slabs, about 40 ns a value.
 */
final class PlainWriter extends ValuesWriter {
  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] bytes = new byte[8192];
  private int size;

  private void reserve(int length) {
    if (bytes.length - size < length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + length));
    }
  }

  @Override
  public void writeByte(int value) {
    reserve(1);
    bytes[size++] = (byte) value;
  }

  @Override
  public void writeInteger(int value) {
    reserve(4);
    INTS.set(bytes, size, value);
    size += 4;
  }

  @Override
  public void writeLong(long value) {
    reserve(8);
    LONGS.set(bytes, size, value);
    size += 8;
  }

  @Override
  public void writeFloat(float value) {
    writeInteger(Float.floatToIntBits(value));
  }

  @Override
  public void writeDouble(double value) {
    writeLong(Double.doubleToLongBits(value));
  }

  @Override
  public void writeBytes(Binary value) {
    int length = value.length();
    reserve(4 + length);
    INTS.set(bytes, size, length);
    value.toByteBuffer().get(bytes, size + 4, length);
    size += 4 + length;
  }

  /** A BINARY value, the {@code length} bytes of {@code value} from {@code offset}. */
  void writeBytes(byte[] value, int offset, int length) {
    reserve(4 + length);
    INTS.set(bytes, size, length);
    System.arraycopy(value, offset, bytes, size + 4, length);
    size += 4 + length;
  }

  @Override
  public long getBufferedSize() {
    return size;
  }

  /** The page's bytes, valid until the next {@link #reset} (the page writer copies them before). */
  @Override
  public BytesInput getBytes() {
    return BytesInput.from(bytes, 0, size);
  }

  @Override
  public Encoding getEncoding() {
    return Encoding.PLAIN;
  }

  @Override
  public void reset() {
    size = 0;
  }

  @Override
  public void close() {
    size = 0;
    bytes = new byte[0];
  }

  @Override
  public long getAllocatedSize() {
    return bytes.length;
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " PLAIN " + size + " bytes of " + bytes.length;
  }
}
