package io.sqe.engine.iceberg;

import io.sqe.engine.exec.ColumnWriter;
import java.io.IOException;
import java.util.List;
import java.util.NoSuchElementException;
import io.sqe.engine.iceberg.parquet.ParquetColumnDecoder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.arrow.vectorized.NullabilityHolder;
import org.apache.iceberg.arrow.vectorized.VectorHolder;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The record batches of one task read by columns: each batch of the Parquet decoder's vectors
 * (reused by the decoder from batch to batch) is gathered into fresh vectors of the result's Arrow
 * types, keeping only the rows the scan's selection keeps, with no Java object per value. Fixed
 * width values and text are copied as bytes; a dictionary-encoded column is decoded once per
 * dictionary and gathered by its ids.
 */
final class VectorBatches implements CloseableIterator<VectorSchemaRoot> {
  /** The longest dictionary value gathered byte by byte rather than copied. */
  private static final int SHORT_TEXT = 16;

  private final CloseableIterator<VectorHolder[]> holders;
  private final Runnable release;
  private final Schema schema;
  private final BufferAllocator allocator;
  private final VectorSelection selection;
  private final Type[] types;
  /** Per output column, its partition constant in the engine's representation (or null). */
  private final Object[] constants;
  private final Dictionary[] dictionaries;
  private final DictionaryValues[] dictionaryValues;
  private int[] selected = new int[0];
  private VectorSchemaRoot next;

  /**
   * @param release closes the task's reader allocator, once its vectors are released
   * @param constants per output column, the value of a column the file does not store (or null)
   */
  VectorBatches(
      CloseableIterator<VectorHolder[]> holders,
      Runnable release,
      Schema schema,
      List<Type> types,
      Object[] constants,
      BufferAllocator allocator,
      VectorSelection selection) {
    this.holders = holders;
    this.release = release;
    this.schema = schema;
    this.allocator = allocator;
    this.selection = selection;
    this.types = types.toArray(new Type[0]);
    this.constants = constants.clone();
    this.dictionaries = new Dictionary[this.types.length];
    this.dictionaryValues = new DictionaryValues[this.types.length];
  }

  /** Whether {@code field} is the Arrow type the gather writes for Iceberg's {@code type}. */
  static boolean gathers(Type type, Field field) {
    ArrowType arrow = field.getType();
    switch (type.typeId()) {
      case BOOLEAN:
        return arrow instanceof ArrowType.Bool;
      case INTEGER:
        return arrow.equals(new ArrowType.Int(32, true));
      case LONG:
        return arrow.equals(new ArrowType.Int(64, true));
      case FLOAT:
        return arrow.equals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
      case DOUBLE:
        return arrow.equals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
      case DATE:
        return arrow instanceof ArrowType.Date date && date.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY;
      case TIMESTAMP:
        return arrow instanceof ArrowType.Timestamp timestamp
            && timestamp.getUnit() == TimeUnit.MICROSECOND
            && (timestamp.getTimezone() != null) == ((Types.TimestampType) type).shouldAdjustToUTC();
      case DECIMAL: {
        Types.DecimalType decimal = (Types.DecimalType) type;
        return arrow.equals(new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128));
      }
      case STRING:
        return arrow instanceof ArrowType.Utf8;
      case BINARY:
        return arrow instanceof ArrowType.Binary;
      case FIXED:
        return arrow.equals(new ArrowType.FixedSizeBinary(((Types.FixedType) type).length()));
      default:
        return false;
    }
  }

  @Override
  public boolean hasNext() {
    while (next == null) {
      if (!holders.hasNext()) {
        return false;
      }
      next = gather(holders.next());
    }
    return true;
  }

  @Override
  public VectorSchemaRoot next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    VectorSchemaRoot batch = next;
    next = null;
    return batch;
  }

  @Override
  public void close() throws IOException {
    try {
      if (next != null) {
        next.close();
        next = null;
      }
      holders.close();
    } finally {
      release.run();
    }
  }

  /** The selected rows of {@code batch} in a fresh record batch, or null when none is selected. */
  private VectorSchemaRoot gather(VectorHolder[] batch) {
    int total = batch.length == 0 ? 0 : batch[0].numValues();
    if (selected.length < total) {
      selected = new int[total];
    }
    int count = VectorizedTaskReader.select(selection, batch, total, selected);
    if (count == 0) {
      return null;
    }
    boolean all = count == total;
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      for (int c = 0; c < types.length; c++) {
        FieldVector target = out.getVector(c);
        VectorHolder holder = batch[c];
        if (holder instanceof VectorHolder.ConstantVectorHolder || holder.vector() == null) {
          fillConstant(target, constants[c], count);
        } else if (holder.isDictionaryEncoded()) {
          gatherDictionary(c, holder, target, count);
        } else {
          gatherPlain(types[c], holder, target, count, all);
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

  private static void fillConstant(FieldVector target, Object constant, int count) {
    target.setInitialCapacity(count);
    target.allocateNew();
    ColumnWriter writer = ColumnWriter.create(target);
    for (int i = 0; i < count; i++) {
      writer.write(i, constant);
    }
  }

  private void gatherPlain(Type type, VectorHolder holder, FieldVector target, int count, boolean all) {
    FieldVector source = holder.vector();
    NullabilityHolder nulls = holder.nullabilityHolder();
    boolean hasNulls = nulls != null && nulls.hasNulls();
    int[] sel = selected;
    if (all && holder instanceof ParquetColumnDecoder.Decoded && source.getClass() == target.getClass()) {
      // SQE's decoder allocates new buffers for its next batch: these move to the batch as they are.
      source.makeTransferPair(target).transfer();
      setValidity(target.getValidityBuffer(), nulls, hasNulls, sel, count);
      return;
    }
    if (target instanceof BaseVariableWidthVector to) {
      gatherVariableWidth((BaseVariableWidthVector) source, to, nulls, hasNulls, sel, count);
      return;
    }
    if (target instanceof BitVector to) {
      BitVector from = (BitVector) source;
      to.allocateNew(count);
      for (int i = 0; i < count; i++) {
        int r = sel[i];
        if (hasNulls && nulls.isNullAt(r) == 1) {
          to.setNull(i);
        } else {
          to.set(i, from.get(r));
        }
      }
      return;
    }
    BaseFixedWidthVector to = (BaseFixedWidthVector) target;
    to.allocateNew(count);
    ArrowBuf out = to.getDataBuffer();
    setValidity(to.getValidityBuffer(), nulls, hasNulls, sel, count);
    int width = to.getTypeWidth();
    if (to instanceof DecimalVector && !(source instanceof DecimalVector)) {
      if (source instanceof FixedSizeBinaryVector bytes) {
        DecimalVector decimal = (DecimalVector) to;
        for (int i = 0; i < count; i++) {
          int r = sel[i];
          if (!hasNulls || nulls.isNullAt(r) == 0) {
            decimal.setBigEndian(i, bytes.get(r));
          }
        }
        return;
      }
      // Unscaled values of up to 18 digits, stored as 4 or 8 bytes: sign-extended to 16.
      BaseFixedWidthVector small = (BaseFixedWidthVector) source;
      ArrowBuf in = small.getDataBuffer();
      boolean wide = small.getTypeWidth() == 8;
      for (int i = 0; i < count; i++) {
        int r = sel[i];
        long unscaled = wide ? in.getLong((long) r * 8) : in.getInt((long) r * 4);
        out.setLong((long) i * 16, unscaled);
        out.setLong((long) i * 16 + 8, unscaled < 0 ? -1L : 0L);
      }
      return;
    }
    ArrowBuf in = ((BaseFixedWidthVector) source).getDataBuffer();
    if (all) {
      out.setBytes(0, in, 0, (long) count * width);
      return;
    }
    switch (width) {
      case 4:
        for (int i = 0; i < count; i++) {
          out.setInt((long) i * 4, in.getInt((long) sel[i] * 4));
        }
        return;
      case 8:
        for (int i = 0; i < count; i++) {
          out.setLong((long) i * 8, in.getLong((long) sel[i] * 8));
        }
        return;
      default:
        for (int i = 0; i < count; i++) {
          out.setBytes((long) i * width, in, (long) sel[i] * width, width);
        }
    }
  }

  private static void gatherVariableWidth(
      BaseVariableWidthVector from, BaseVariableWidthVector to, NullabilityHolder nulls, boolean hasNulls, int[] sel, int count) {
    ArrowBuf offsets = from.getOffsetBuffer();
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      int r = sel[i];
      bytes += offsets.getInt((long) (r + 1) * 4) - offsets.getInt((long) r * 4);
    }
    to.allocateNew(Math.max(bytes, 1), count);
    ArrowBuf in = from.getDataBuffer();
    ArrowBuf out = to.getDataBuffer();
    ArrowBuf outOffsets = to.getOffsetBuffer();
    setValidity(to.getValidityBuffer(), nulls, hasNulls, sel, count);
    int end = 0;
    outOffsets.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int r = sel[i];
      int start = offsets.getInt((long) r * 4);
      int length = offsets.getInt((long) (r + 1) * 4) - start;
      out.setBytes(end, in, start, length);
      end += length;
      outOffsets.setInt((long) (i + 1) * 4, end);
    }
    to.setLastSet(count - 1);
  }

  private static void setValidity(ArrowBuf validity, NullabilityHolder nulls, boolean hasNulls, int[] sel, int count) {
    if (!hasNulls) {
      int full = count / 8;
      validity.setOne(0, full);
      for (int i = full * 8; i < count; i++) {
        BitVectorHelper.setBit(validity, i);
      }
      return;
    }
    int full = count / 8;
    for (int j = 0; j < full; j++) {
      int base = j * 8;
      int bits = 0;
      for (int k = 0; k < 8; k++) {
        bits |= (1 - nulls.isNullAt(sel[base + k])) << k;
      }
      validity.setByte(j, bits);
    }
    for (int i = full * 8; i < count; i++) {
      BitVectorHelper.setValidityBit(validity, i, 1 - nulls.isNullAt(sel[i]));
    }
  }

  private void gatherDictionary(int column, VectorHolder holder, FieldVector target, int count) {
    DictionaryValues values = dictionaryValues(column, holder);
    NullabilityHolder nulls = holder.nullabilityHolder();
    boolean hasNulls = nulls != null && nulls.hasNulls();
    ArrowBuf ids = holder.vector().getDataBuffer();
    int[] sel = selected;
    if (values.bytes != null && target instanceof BaseVariableWidthVector to) {
      long bytes = 0;
      for (int i = 0; i < count; i++) {
        int r = sel[i];
        if (!hasNulls || nulls.isNullAt(r) == 0) {
          bytes += values.bytes[ids.getInt((long) r * 4)].length;
        }
      }
      to.allocateNew(Math.max(bytes, 1), count);
      ArrowBuf out = to.getDataBuffer();
      ArrowBuf outOffsets = to.getOffsetBuffer();
      setValidity(to.getValidityBuffer(), nulls, hasNulls, sel, count);
      int end = 0;
      outOffsets.setInt(0, 0);
      for (int i = 0; i < count; i++) {
        int r = sel[i];
        if (!hasNulls || nulls.isNullAt(r) == 0) {
          byte[] value = values.bytes[ids.getInt((long) r * 4)];
          int length = value.length;
          if (length <= SHORT_TEXT) {
            // A flag or a code: byte by byte, where a copy of a few bytes costs more than them.
            for (int k = 0; k < length; k++) {
              out.setByte(end + k, value[k]);
            }
          } else {
            out.setBytes(end, value);
          }
          end += length;
        }
        outOffsets.setInt((long) (i + 1) * 4, end);
      }
      to.setLastSet(count - 1);
      return;
    }
    if (values.longs != null && target instanceof BaseFixedWidthVector to) {
      to.allocateNew(count);
      setValidity(to.getValidityBuffer(), nulls, hasNulls, sel, count);
      ArrowBuf out = to.getDataBuffer();
      long[] longs = values.longs;
      int width = to.getTypeWidth();
      for (int i = 0; i < count; i++) {
        long v = longs[ids.getInt((long) sel[i] * 4)];
        switch (width) {
          case 4 -> out.setInt((long) i * 4, (int) v);
          case 8 -> out.setLong((long) i * 8, v);
          default -> {
            // A decimal's unscaled value, sign-extended to 128 bits.
            out.setLong((long) i * 16, v);
            out.setLong((long) i * 16 + 8, v < 0 ? -1L : 0L);
          }
        }
      }
      return;
    }
    target.setInitialCapacity(count);
    target.allocateNew();
    ColumnWriter writer = ColumnWriter.create(target);
    for (int i = 0; i < count; i++) {
      int r = sel[i];
      writer.write(i, hasNulls && nulls.isNullAt(r) == 1 ? null : values.objects[ids.getInt((long) r * 4)]);
    }
  }

  /** The values of the column's current dictionary, decoded once for all the batches that use it. */
  private DictionaryValues dictionaryValues(int column, VectorHolder holder) {
    Dictionary dictionary = holder.dictionary();
    if (dictionaries[column] != dictionary) {
      PrimitiveTypeName physical = holder.descriptor().getPrimitiveType().getPrimitiveTypeName();
      dictionaryValues[column] = DictionaryValues.decode(dictionary, types[column], physical);
      dictionaries[column] = dictionary;
    }
    return dictionaryValues[column];
  }

  /**
   * A dictionary's values: as bytes for text and binary; as longs for integers, dates, timestamps
   * and decimals stored as 32 or 64-bit integers (their unscaled values); else in the engine's
   * run-time representation.
   */
  private record DictionaryValues(byte[][] bytes, long[] longs, Object[] objects) {
    static DictionaryValues decode(Dictionary dictionary, Type type, PrimitiveTypeName physical) {
      int size = dictionary.getMaxId() + 1;
      Type.TypeID id = type.typeId();
      if (id == Type.TypeID.STRING || id == Type.TypeID.BINARY) {
        byte[][] bytes = new byte[size][];
        for (int i = 0; i < size; i++) {
          bytes[i] = dictionary.decodeToBinary(i).getBytes();
        }
        return new DictionaryValues(bytes, null, null);
      }
      boolean integers = id == Type.TypeID.INTEGER || id == Type.TypeID.DATE || id == Type.TypeID.LONG || id == Type.TypeID.TIMESTAMP;
      if (integers || (id == Type.TypeID.DECIMAL && (physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64))) {
        long[] longs = new long[size];
        for (int i = 0; i < size; i++) {
          longs[i] = physical == PrimitiveTypeName.INT32 ? dictionary.decodeToInt(i) : dictionary.decodeToLong(i);
        }
        return new DictionaryValues(null, longs, null);
      }
      Object[] objects = new Object[size];
      for (int i = 0; i < size; i++) {
        objects[i] = VectorizedTaskReader.decode(dictionary, i, type, physical);
      }
      return new DictionaryValues(null, null, objects);
    }
  }
}
