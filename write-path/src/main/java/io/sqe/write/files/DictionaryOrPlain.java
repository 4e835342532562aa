package io.sqe.write.files;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.io.api.Binary;

/**
 * parquet-mr's {@code FallbackValuesWriter} over one of {@link DictionaryWriters}' dictionaries:
 * the same decisions (fall back when the dictionary is full, or when the first page's ids and
 * dictionary are no smaller than its values), the same sizes and so the same bytes; and, for a
 * BINARY column whose fallback is a {@link PlainWriter}, {@link #writeBytes(byte[], int, int)},
 * which takes a value in an array and makes no {@code Binary} or buffer for it on the way.
 */
final class DictionaryOrPlain extends ValuesWriter {
  /** Typed as SQE's dictionaries: the check after each value binds to their final {@code shouldFallBack}. */
  private final DictionaryWriters.Table initialWriter;
  private final ValuesWriter fallBackWriter;
  /** The two writers as the array path takes them, or null when either does not. */
  private final DictionaryWriters.Texts texts;
  private final PlainWriter plain;
  private ValuesWriter currentWriter;
  private boolean fellBackAlready;
  private boolean initialUsedAndHadDictionary;
  /** The values' size as PLAIN bytes, which decides when a page is full whatever the encoding. */
  private long rawDataByteSize;
  private boolean firstPage = true;

  DictionaryOrPlain(DictionaryWriters.Table initialWriter, ValuesWriter fallBackWriter) {
    this.initialWriter = initialWriter;
    this.fallBackWriter = fallBackWriter;
    this.currentWriter = initialWriter;
    boolean arrays = initialWriter instanceof DictionaryWriters.Texts && fallBackWriter instanceof PlainWriter;
    this.texts = arrays ? (DictionaryWriters.Texts) initialWriter : null;
    this.plain = arrays ? (PlainWriter) fallBackWriter : null;
  }

  /** Whether {@link #writeBytes(byte[], int, int)} takes values. */
  boolean takesArrays() {
    return texts != null;
  }

  @Override
  public long getBufferedSize() {
    return rawDataByteSize;
  }

  @Override
  public BytesInput getBytes() {
    if (!fellBackAlready && firstPage) {
      BytesInput bytes = initialWriter.getBytes();
      if (!initialWriter.isCompressionSatisfying(rawDataByteSize, bytes.size())) {
        fallBack();
      } else {
        return bytes;
      }
    }
    return currentWriter.getBytes();
  }

  @Override
  public Encoding getEncoding() {
    Encoding encoding = currentWriter.getEncoding();
    if (!fellBackAlready && !initialUsedAndHadDictionary) {
      initialUsedAndHadDictionary = encoding.usesDictionary();
    }
    return encoding;
  }

  @Override
  public void reset() {
    rawDataByteSize = 0;
    firstPage = false;
    currentWriter.reset();
  }

  @Override
  public void close() {
    initialWriter.close();
    fallBackWriter.close();
  }

  @Override
  public DictionaryPage toDictPageAndClose() {
    return initialUsedAndHadDictionary ? initialWriter.toDictPageAndClose() : currentWriter.toDictPageAndClose();
  }

  @Override
  public void resetDictionary() {
    if (initialUsedAndHadDictionary) {
      initialWriter.resetDictionary();
    } else {
      currentWriter.resetDictionary();
    }
    currentWriter = initialWriter;
    fellBackAlready = false;
    initialUsedAndHadDictionary = false;
    firstPage = true;
  }

  @Override
  public long getAllocatedSize() {
    return currentWriter.getAllocatedSize();
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " DictionaryOrPlain{\n"
        + initialWriter.memUsageString(prefix + " initial:") + "\n"
        + fallBackWriter.memUsageString(prefix + " fallback:") + "\n" + prefix + "}\n";
  }

  private void checkFallback() {
    if (!fellBackAlready && initialWriter.shouldFallBack()) {
      fallBack();
    }
  }

  private void fallBack() {
    fellBackAlready = true;
    initialWriter.fallBackAllValuesTo(fallBackWriter);
    currentWriter = fallBackWriter;
  }

  /** A BINARY value, the {@code length} bytes of {@code bytes} from {@code offset}; only when {@link #takesArrays()}. */
  void writeBytes(byte[] bytes, int offset, int length) {
    rawDataByteSize += length + 4;
    if (fellBackAlready) {
      plain.writeBytes(bytes, offset, length);
    } else {
      texts.writeBytes(bytes, offset, length);
      checkFallback();
    }
  }

  @Override
  public void writeByte(int value) {
    rawDataByteSize += 1;
    currentWriter.writeByte(value);
    checkFallback();
  }

  @Override
  public void writeBytes(Binary v) {
    rawDataByteSize += v.length() + 4;
    currentWriter.writeBytes(v);
    checkFallback();
  }

  @Override
  public void writeInteger(int v) {
    rawDataByteSize += 4;
    currentWriter.writeInteger(v);
    checkFallback();
  }

  @Override
  public void writeLong(long v) {
    rawDataByteSize += 8;
    currentWriter.writeLong(v);
    checkFallback();
  }

  @Override
  public void writeFloat(float v) {
    rawDataByteSize += 4;
    currentWriter.writeFloat(v);
    checkFallback();
  }

  @Override
  public void writeDouble(double v) {
    rawDataByteSize += 8;
    currentWriter.writeDouble(v);
    checkFallback();
  }
}
