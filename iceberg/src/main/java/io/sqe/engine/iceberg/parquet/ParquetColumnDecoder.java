package io.sqe.engine.iceberg.parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedWidthVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.arrow.ArrowSchemaUtil;
import org.apache.iceberg.arrow.vectorized.NullabilityHolder;
import org.apache.iceberg.arrow.vectorized.VectorHolder;
import org.apache.iceberg.arrow.vectorized.VectorizedArrowReader;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.RequiresPreviousReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Reads one flat column of a Parquet file into the same vector holders as Iceberg's {@link
 * VectorizedArrowReader} (dictionary ids and the {@link Dictionary} for a column chunk whose data
 * pages are all dictionary-encoded, else the values in the vector Iceberg would allocate), decoding
 * the pages itself: definition levels and dictionary ids are unpacked in bulk into {@code int[]},
 * plain fixed-width values are copied into the vector a run at a time, and a required column's
 * validity is set once per batch instead of once per value.
 *
 * <p>It decodes a column chunk whose encoding statistics show only dictionary-encoded data pages
 * (PLAIN_DICTIONARY / RLE_DICTIONARY) with a PLAIN dictionary, only PLAIN data pages (or RLE for
 * booleans in data pages v2, which Iceberg's reader rejects), or dictionary-encoded pages that fell
 * back to PLAIN part way (read as values, as Iceberg does), in data pages v1 or v2. Pages in
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY or BYTE_STREAM_SPLIT (what
 * Parquet's v2 writer falls back to from a full dictionary) are decoded by parquet-column's own
 * value readers into the plain layout: Iceberg's vectorized readers of those encodings failed here
 * with an ArrayIndexOutOfBoundsException on a DELTA_BYTE_ARRAY chunk, and apache/iceberg#17121
 * reports wrong values from its DELTA_BINARY_PACKED reader. Any other chunk (no encoding
 * statistics, bit-packed definition levels, a dictionary not in PLAIN) is read by Iceberg's
 * reader, which this class extends.
 * The file, its row groups (the split and the residual's pruning) and the decompression of pages
 * stay Iceberg's and parquet-hadoop's.
 */
public final class ParquetColumnDecoder extends VectorizedArrowReader {
  private static final Set<Encoding> DICTIONARY_PAGE_ENCODINGS = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY);
  /** Value encodings decoded by parquet-column's readers into the plain layout. */
  private static final Set<Encoding> REENCODED =
      EnumSet.of(Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.DELTA_BYTE_ARRAY, Encoding.BYTE_STREAM_SPLIT);

  private enum Mode { DICTIONARY_IDS, FIXED, BOOLEAN, BINARY }

  private final ColumnDescriptor descriptor;
  private final Types.NestedField field;
  private final BufferAllocator allocator;
  private final boolean required;
  /** Bytes per value of a plain fixed-width column. */
  private final int width;
  private final Mode plainMode;
  private final HybridDecoder hybrid = new HybridDecoder();

  private int batchSize = VectorizedArrowReader.DEFAULT_BATCH_SIZE;
  /** Whether the current row group's chunk is read by Iceberg's reader. */
  private boolean delegated;
  private VectorHolder delegatedHolder;
  private Mode mode;
  private Dictionary dictionary;
  private PageReader pages;
  private FieldVector vector;
  private Mode vectorMode;
  private NullabilityHolder nulls;

  // The current page, decoded.
  private int pageRows;
  private int pageRow;
  /** Definition level per row of the page; null when every row has a value. */
  private int[] levels;
  private int[] levelBuffer = new int[0];
  private int valueIndex;
  private int[] ids = new int[0];
  private byte[] data;
  private int dataStart;
  private int[] starts = new int[0];
  private int[] lengths = new int[0];
  private int[] booleans = new int[0];
  /** Whether the current page holds dictionary ids that are read as values (a chunk that fell back to plain). */
  private boolean pageDictionary;
  private int[] dictionaryInts;
  private long[] dictionaryLongs;
  private byte[][] dictionaryBytes;
  /** The plain layout of a page decoded by parquet-column's reader. */
  private byte[] reencoded = new byte[0];
  /** The chunk's previous page's reader, for DELTA_BYTE_ARRAY pages that continue its last value. */
  private ValuesReader previousValues;

  private ParquetColumnDecoder(ColumnDescriptor descriptor, Types.NestedField field, BufferAllocator allocator) {
    super(descriptor, field, allocator, true);
    this.descriptor = descriptor;
    this.field = field;
    this.allocator = allocator;
    this.required = descriptor.getMaxDefinitionLevel() == 0;
    PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
    switch (physical) {
      case BOOLEAN:
        plainMode = Mode.BOOLEAN;
        width = 0;
        break;
      case BINARY:
        plainMode = Mode.BINARY;
        width = 0;
        break;
      case INT32:
      case FLOAT:
        plainMode = Mode.FIXED;
        width = 4;
        break;
      case INT64:
      case DOUBLE:
        plainMode = Mode.FIXED;
        width = 8;
        break;
      case FIXED_LEN_BYTE_ARRAY:
        plainMode = Mode.FIXED;
        width = descriptor.getPrimitiveType().getTypeLength();
        break;
      default:
        throw new IllegalArgumentException("Cannot decode Parquet type " + physical);
    }
  }

  /**
   * A decoder for the column, or null when its type or shape is not one this class decodes (the
   * caller then keeps Iceberg's reader).
   */
  public static ParquetColumnDecoder forColumn(ColumnDescriptor descriptor, Types.NestedField field, BufferAllocator allocator) {
    if (descriptor.getMaxRepetitionLevel() != 0 || descriptor.getMaxDefinitionLevel() > 1 || !decodes(field.type(), descriptor)) {
      return null;
    }
    return new ParquetColumnDecoder(descriptor, field, allocator);
  }

  private static boolean decodes(Type type, ColumnDescriptor descriptor) {
    PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
    LogicalTypeAnnotation annotation = descriptor.getPrimitiveType().getLogicalTypeAnnotation();
    switch (type.typeId()) {
      case BOOLEAN:
        return physical == PrimitiveTypeName.BOOLEAN;
      case INTEGER:
        return physical == PrimitiveTypeName.INT32
            && (annotation == null
                || (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
                    && ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) annotation).isSigned()));
      case DATE:
        return physical == PrimitiveTypeName.INT32 && annotation instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation;
      case LONG:
        return physical == PrimitiveTypeName.INT64 && annotation == null;
      case TIMESTAMP:
        return physical == PrimitiveTypeName.INT64
            && annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
            && ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
      case FLOAT:
        return physical == PrimitiveTypeName.FLOAT;
      case DOUBLE:
        return physical == PrimitiveTypeName.DOUBLE;
      case DECIMAL:
        return annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
            && (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64 || physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
      case STRING:
        return physical == PrimitiveTypeName.BINARY && annotation instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation;
      case BINARY:
        return physical == PrimitiveTypeName.BINARY && annotation == null;
      case FIXED:
        return physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && annotation == null;
      default:
        return false;
    }
  }

  @Override
  public void setBatchSize(int size) {
    super.setBatchSize(size);
    this.batchSize = size == 0 ? VectorizedArrowReader.DEFAULT_BATCH_SIZE : size;
  }

  @Override
  public void setRowGroupInfo(PageReadStore source, Map<ColumnPath, ColumnChunkMetaData> metadata) {
    ColumnChunkMetaData chunk = metadata.get(ColumnPath.get(descriptor.getPath()));
    Mode chunkMode = chunk == null ? null : chunkMode(chunk);
    if (chunkMode == null) {
      delegated = true;
      super.setRowGroupInfo(source, metadata);
      return;
    }
    delegated = false;
    mode = chunkMode;
    pages = source.getPageReader(descriptor);
    pageRows = 0;
    pageRow = 0;
    previousValues = null;
    dictionary = null;
    dictionaryInts = null;
    dictionaryLongs = null;
    dictionaryBytes = null;
    if (chunk.getEncodingStats().hasDictionaryEncodedPages()) {
      DictionaryPage page = pages.readDictionaryPage();
      if (page == null) {
        throw new IllegalStateException("No dictionary page in the dictionary-encoded column chunk " + descriptor);
      }
      try {
        dictionary = NumberDictionary.read(descriptor, page);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (mode != Mode.DICTIONARY_IDS) {
        decodeDictionary();
      }
    }
  }

  /**
   * The dictionary's values in the vector's representation, for a chunk whose pages fell back from
   * the dictionary to plain part way (the whole chunk is then read as values, as Iceberg does).
   */
  private void decodeDictionary() {
    int size = dictionary.getMaxId() + 1;
    PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
    switch (physical) {
      case INT32:
      case FLOAT:
        dictionaryInts = new int[size];
        for (int id = 0; id < size; id++) {
          dictionaryInts[id] = physical == PrimitiveTypeName.INT32 ? dictionary.decodeToInt(id) : Float.floatToRawIntBits(dictionary.decodeToFloat(id));
        }
        return;
      case INT64:
      case DOUBLE:
        dictionaryLongs = new long[size];
        for (int id = 0; id < size; id++) {
          dictionaryLongs[id] = physical == PrimitiveTypeName.INT64 ? dictionary.decodeToLong(id) : Double.doubleToRawLongBits(dictionary.decodeToDouble(id));
        }
        return;
      default:
        dictionaryBytes = new byte[size][];
        for (int id = 0; id < size; id++) {
          dictionaryBytes[id] = dictionary.decodeToBinary(id).getBytes();
        }
    }
  }

  /** How this class reads the chunk, or null when it leaves it to Iceberg's reader. */
  private Mode chunkMode(ColumnChunkMetaData chunk) {
    EncodingStats stats = chunk.getEncodingStats();
    if (stats == null) {
      return null;
    }
    if (!required && chunk.getEncodings().contains(Encoding.BIT_PACKED)) {
      // Definition levels in the deprecated bit-packed encoding.
      return null;
    }
    boolean dictionaryPages = stats.hasDictionaryEncodedPages();
    if (dictionaryPages) {
      if (!DICTIONARY_PAGE_ENCODINGS.containsAll(stats.getDictionaryEncodings()) || plainMode == Mode.BOOLEAN) {
        return null;
      }
      if (!stats.hasNonDictionaryEncodedPages()) {
        return Mode.DICTIONARY_IDS;
      }
    }
    for (Encoding encoding : stats.getDataEncodings()) {
      boolean plain = encoding == Encoding.PLAIN || (encoding == Encoding.RLE && plainMode == Mode.BOOLEAN);
      if (!plain && !(dictionaryPages && encoding.usesDictionary()) && !reencodes(encoding)) {
        return null;
      }
    }
    return plainMode;
  }

  @Override
  public VectorHolder read(VectorHolder reuse, int rows) {
    if (delegated) {
      delegatedHolder = super.read(reuse == null ? null : delegatedHolder, rows);
      return delegatedHolder;
    }
    // A consumer may have taken the last batch's buffers (see Decoded): then allocate afresh.
    if (reuse == null || vector == null || vectorMode != mode || vector.getValueCapacity() < rows) {
      allocate();
    }
    nulls.reset();
    if (mode == Mode.BINARY) {
      vector.setValueCount(0);
    }
    if (required && mode != Mode.BINARY) {
      vector.getValidityBuffer().setOne(0, (rows + 7) / 8);
    }
    int filled = 0;
    while (filled < rows) {
      if (pageRow == pageRows) {
        readPage();
        continue;
      }
      int k = Math.min(rows - filled, pageRows - pageRow);
      if (levels == null) {
        nulls.setNotNulls(filled, k);
        copy(filled, k);
      } else {
        copyWithNulls(filled, k);
      }
      filled += k;
      pageRow += k;
    }
    vector.setValueCount(rows);
    return new Decoded(descriptor, vector, mode == Mode.DICTIONARY_IDS, mode == Mode.DICTIONARY_IDS ? dictionary : null, nulls, field);
  }

  /**
   * A batch of a column this class decoded. Its consumer may take the vector's buffers (Arrow's
   * transfer) instead of copying them: the next read then allocates new ones. Its validity buffer
   * is not kept up to date for every mode; the nullability holder is.
   */
  public static final class Decoded extends VectorHolder {
    Decoded(ColumnDescriptor descriptor, FieldVector vector, boolean dictionaryEncoded, Dictionary dictionary, NullabilityHolder nulls, Types.NestedField field) {
      super(descriptor, vector, dictionaryEncoded, dictionary, nulls, field);
    }
  }

  private void allocate() {
    if (vector != null) {
      vector.close();
    }
    if (mode == Mode.DICTIONARY_IDS) {
      vector = new Field(field.name(), new FieldType(field.isOptional(), new ArrowType.Int(Integer.SIZE, true), null, null), null)
          .createVector(allocator);
    } else {
      vector = ArrowSchemaUtil.convert(physicalField()).createVector(allocator);
    }
    if (vector instanceof FixedWidthVector) {
      ((FixedWidthVector) vector).allocateNew(batchSize);
    } else {
      // Offsets for the batch's rows and Arrow's 8 bytes a value, grown for longer values
      // (copyBinary): a batch takes these buffers as they are, so spare room stays held with it.
      vector.setInitialCapacity(batchSize);
      vector.allocateNew();
    }
    vectorMode = mode;
    nulls = new NullabilityHolder(batchSize);
  }

  /** The field whose Arrow type Iceberg's reader allocates for this column's plain values. */
  private Types.NestedField physicalField() {
    if (field.type().typeId() != Type.TypeID.DECIMAL) {
      return field;
    }
    PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
    Type type = physical == PrimitiveTypeName.INT32
        ? Types.IntegerType.get()
        : physical == PrimitiveTypeName.INT64 ? Types.LongType.get() : Types.FixedType.ofLength(width);
    return Types.NestedField.from(field).ofType(type).build();
  }

  /** Rows {@code [pageRow, pageRow + k)} of a page section whose rows all have values, to batch positions {@code [at, at + k)}. */
  private void copy(int at, int k) {
    int v = valueIndex;
    if (pageDictionary) {
      copyFromDictionary(at, v, k);
    } else {
      copyValues(at, v, k);
    }
    if (!required && mode != Mode.BINARY) {
      ArrowBuf validity = vector.getValidityBuffer();
      for (int i = 0; i < k; i++) {
        BitVectorHelper.setBit(validity, at + i);
      }
    }
    valueIndex = v + k;
  }

  private void copyFromDictionary(int at, int v, int k) {
    int[] source = ids;
    if (mode == Mode.BINARY) {
      BaseVariableWidthVector strings = (BaseVariableWidthVector) vector;
      for (int i = 0; i < k; i++) {
        byte[] value = dictionaryBytes[source[v + i]];
        strings.setSafe(at + i, value, 0, value.length);
      }
      return;
    }
    ArrowBuf out = vector.getDataBuffer();
    if (dictionaryInts != null) {
      for (int i = 0; i < k; i++) {
        out.setInt((long) (at + i) * 4, dictionaryInts[source[v + i]]);
      }
    } else if (dictionaryLongs != null) {
      for (int i = 0; i < k; i++) {
        out.setLong((long) (at + i) * 8, dictionaryLongs[source[v + i]]);
      }
    } else {
      for (int i = 0; i < k; i++) {
        out.setBytes((long) (at + i) * width, dictionaryBytes[source[v + i]], 0, width);
      }
    }
  }

  private void copyValues(int at, int v, int k) {
    switch (mode) {
      case DICTIONARY_IDS: {
        ArrowBuf out = vector.getDataBuffer();
        int[] source = ids;
        for (int i = 0; i < k; i++) {
          out.setInt((long) (at + i) * 4, source[v + i]);
        }
        break;
      }
      case FIXED:
        vector.getDataBuffer().setBytes((long) at * width, data, dataStart + v * width, (long) k * width);
        break;
      case BOOLEAN: {
        ArrowBuf out = vector.getDataBuffer();
        for (int i = 0; i < k; i++) {
          BitVectorHelper.setValidityBit(out, at + i, booleans[v + i]);
        }
        break;
      }
      case BINARY:
        copyBinary(at, v, k);
        break;
      default:
        throw new IllegalStateException(mode.toString());
    }
  }

  /**
   * Appends byte arrays {@code v..v+k} of the page at positions {@code at..at+k} of the vector: the
   * buffers grown once for all of them, then each array copied with its offset written, which is
   * what {@code setSafe} does per value with its checks.
   */
  private void copyBinary(int at, int v, int k) {
    BaseVariableWidthVector strings = (BaseVariableWidthVector) vector;
    int last = at + k - 1;
    // Offsets for the positions before {@code at} (nulls leave holes).
    strings.fillEmpties(at);
    while (strings.getValueCapacity() <= last) {
      strings.reallocValidityAndOffsetBuffers();
    }
    int start = strings.getOffsetBuffer().getInt((long) at * 4);
    long total = 0;
    for (int i = 0; i < k; i++) {
      total += lengths[v + i];
    }
    while (strings.getDataBuffer().capacity() < start + total) {
      strings.reallocDataBuffer();
    }
    ArrowBuf out = strings.getDataBuffer();
    ArrowBuf offsets = strings.getOffsetBuffer();
    ArrowBuf validity = strings.getValidityBuffer();
    int end = start;
    for (int i = 0; i < k; i++) {
      int length = lengths[v + i];
      out.setBytes(end, data, starts[v + i], length);
      end += length;
      offsets.setInt((long) (at + i + 1) * 4, end);
      BitVectorHelper.setBit(validity, at + i);
    }
    strings.setLastSet(last);
  }

  private void copyWithNulls(int at, int k) {
    int[] defined = levels;
    int row = pageRow;
    int end = pageRow + k;
    while (row < end) {
      int runEnd = row + 1;
      int level = defined[row];
      while (runEnd < end && defined[runEnd] == level) {
        runEnd++;
      }
      int n = runEnd - row;
      int position = at + (row - pageRow);
      if (level == 0) {
        nulls.setNulls(position, n);
        if (mode == Mode.BINARY) {
          for (int i = 0; i < n; i++) {
            ((BaseVariableWidthVector) vector).setNull(position + i);
          }
        } else {
          ArrowBuf validity = vector.getValidityBuffer();
          for (int i = 0; i < n; i++) {
            BitVectorHelper.unsetBit(validity, position + i);
          }
          if (mode == Mode.DICTIONARY_IDS) {
            // A valid id under a null, for a consumer that looks ids up before it looks at nulls.
            vector.getDataBuffer().setZero((long) position * 4, (long) n * 4);
          }
        }
      } else {
        nulls.setNotNulls(position, n);
        copy(position, n);
      }
      row = runEnd;
    }
  }

  private void readPage() {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new IllegalStateException("Column chunk " + descriptor + " ends before its row group");
    }
    int rows = page.getValueCount();
    byte[] values;
    int position;
    Encoding encoding;
    int defined = rows;
    try {
      if (page instanceof DataPageV1) {
        DataPageV1 v1 = (DataPageV1) page;
        byte[] bytes = bytesOf(v1.getBytes());
        position = 0;
        if (!required) {
          if (v1.getDlEncoding() != Encoding.RLE) {
            throw new IllegalStateException("Unexpected definition level encoding " + v1.getDlEncoding() + " in " + descriptor);
          }
          int length = (bytes[0] & 0xFF) | (bytes[1] & 0xFF) << 8 | (bytes[2] & 0xFF) << 16 | (bytes[3] & 0xFF) << 24;
          defined = readLevels(bytes, 4, 4 + length, rows);
          position = 4 + length;
        }
        values = bytes;
        encoding = v1.getValueEncoding();
      } else {
        DataPageV2 v2 = (DataPageV2) page;
        if (v2.isCompressed()) {
          throw new IllegalStateException("A compressed data page v2 reached the decoder for " + descriptor);
        }
        if (!required) {
          byte[] levelBytes = bytesOf(v2.getDefinitionLevels());
          defined = readLevels(levelBytes, 0, levelBytes.length, rows);
        }
        values = bytesOf(v2.getData());
        position = 0;
        encoding = v2.getDataEncoding();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (required || defined == rows) {
      levels = null;
    }
    decodeValues(values, position, encoding, defined);
    pageRows = rows;
    pageRow = 0;
    valueIndex = 0;
  }

  /**
   * The page's bytes: the array they are in when they fill one exactly (as {@link PageDecompressors}
   * hands out a decompressed page), else a copy.
   */
  private static byte[] bytesOf(BytesInput input) throws IOException {
    ByteBuffer buffer = input.toByteBuffer();
    if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0 && buffer.remaining() == buffer.array().length) {
      return buffer.array();
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  /** Decodes the page's definition levels; returns how many rows have a value. */
  private int readLevels(byte[] bytes, int start, int end, int rows) {
    if (levelBuffer.length < rows) {
      levelBuffer = new int[rows];
    }
    hybrid.decode(bytes, start, end, 1, levelBuffer, rows);
    int defined = 0;
    for (int i = 0; i < rows; i++) {
      defined += levelBuffer[i];
    }
    levels = levelBuffer;
    return defined;
  }

  private void decodeValues(byte[] bytes, int position, Encoding encoding, int count) {
    pageDictionary = false;
    if (mode == Mode.DICTIONARY_IDS || (dictionary != null && encoding.usesDictionary())) {
      if (!encoding.usesDictionary()) {
        throw new IllegalStateException("Unexpected encoding " + encoding + " in a dictionary-encoded chunk of " + descriptor);
      }
      pageDictionary = mode != Mode.DICTIONARY_IDS;
      if (ids.length < count) {
        ids = new int[count];
      }
      if (count > 0) {
        hybrid.decode(bytes, position + 1, bytes.length, bytes[position] & 0xFF, ids, count);
      }
      return;
    }
    if (encoding == Encoding.RLE && mode == Mode.BOOLEAN) {
      // Data pages v2 store booleans RLE/bit-packed with a bit width of 1, after their length.
      if (booleans.length < count) {
        booleans = new int[count];
      }
      int length = (bytes[position] & 0xFF) | (bytes[position + 1] & 0xFF) << 8 | (bytes[position + 2] & 0xFF) << 16 | (bytes[position + 3] & 0xFF) << 24;
      hybrid.decode(bytes, position + 4, position + 4 + length, 1, booleans, count);
      return;
    }
    if (reencodes(encoding)) {
      reencode(bytes, position, encoding, count);
      return;
    }
    if (encoding != Encoding.PLAIN) {
      throw new IllegalStateException("Unexpected encoding " + encoding + " in a plain chunk of " + descriptor);
    }
    data = bytes;
    dataStart = position;
    switch (mode) {
      case FIXED:
        if (position + (long) count * width > bytes.length) {
          throw new IllegalStateException("Parquet page of " + descriptor + " holds fewer than " + count + " values");
        }
        return;
      case BOOLEAN:
        if (booleans.length < count) {
          booleans = new int[count];
        }
        for (int i = 0; i < count; i++) {
          booleans[i] = (bytes[position + (i >>> 3)] >>> (i & 7)) & 1;
        }
        return;
      case BINARY: {
        reserveBinarySlots(count);
        int p = position;
        for (int i = 0; i < count; i++) {
          int length = (bytes[p] & 0xFF) | (bytes[p + 1] & 0xFF) << 8 | (bytes[p + 2] & 0xFF) << 16 | (bytes[p + 3] & 0xFF) << 24;
          starts[i] = p + 4;
          lengths[i] = length;
          p += 4 + length;
        }
        return;
      }
      default:
        throw new IllegalStateException(mode.toString());
    }
  }

  /** Whether pages in {@code encoding} are decoded by {@link #reencode} (booleans never are). */
  private boolean reencodes(Encoding encoding) {
    return REENCODED.contains(encoding) && plainMode != Mode.BOOLEAN;
  }

  private void reserveBinarySlots(int count) {
    if (starts.length < count) {
      starts = new int[count];
      lengths = new int[count];
    }
  }

  /**
   * Decodes {@code count} values in {@code encoding} with parquet-column's reader into the plain
   * layout the copy expects: little-endian fixed-width values, or byte arrays with their starts and
   * lengths.
   */
  private void reencode(byte[] bytes, int position, Encoding encoding, int count) {
    ValuesReader reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
    if (reader instanceof RequiresPreviousReader && previousValues != null) {
      // Files from parquet-mr before 1.8 continue a page's first value from the previous page's last.
      ((RequiresPreviousReader) reader).setPreviousReader(previousValues);
    }
    try {
      reader.initFromPage(count, ByteBufferInputStream.wrap(ByteBuffer.wrap(bytes, position, bytes.length - position)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    previousValues = reader;
    PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
    dataStart = 0;
    if (mode == Mode.BINARY) {
      reserveBinarySlots(count);
      int end = 0;
      for (int i = 0; i < count; i++) {
        Binary value = reader.readBytes();
        int length = value.length();
        if (end + length > reencoded.length) {
          reencoded = Arrays.copyOf(reencoded, Math.max(end + length, reencoded.length * 2));
        }
        value.toByteBuffer().get(reencoded, end, length);
        starts[i] = end;
        lengths[i] = length;
        end += length;
      }
      data = reencoded;
      return;
    }
    if (reencoded.length < count * width) {
      reencoded = new byte[count * width];
    }
    ByteBuffer out = ByteBuffer.wrap(reencoded).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < count; i++) {
      switch (physical) {
        case INT32:
          out.putInt(reader.readInteger());
          break;
        case FLOAT:
          out.putInt(Float.floatToRawIntBits(reader.readFloat()));
          break;
        case INT64:
          out.putLong(reader.readLong());
          break;
        case DOUBLE:
          out.putLong(Double.doubleToRawLongBits(reader.readDouble()));
          break;
        default: {
          Binary value = reader.readBytes();
          if (value.length() != width) {
            throw new IllegalStateException("A value of " + value.length() + " bytes in the fixed-length column " + descriptor);
          }
          out.put(value.toByteBuffer());
        }
      }
    }
    data = reencoded;
  }

  @Override
  public void close() {
    super.close();
    if (vector != null) {
      vector.close();
      vector = null;
    }
  }

  @Override
  public String toString() {
    return "ParquetColumnDecoder(" + descriptor + ")";
  }
}
