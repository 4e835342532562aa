package io.sqe.write.files;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * One table column's values in one record batch: the vector the query computed for it, read as
 * the Parquet value the column stores, with no Java object per value on the way to the file; or as
 * Iceberg's internal value (days, microseconds, {@code BigDecimal}, {@code ByteBuffer}), which
 * partition transforms and sort comparators take.
 */
abstract class VectorColumn {
  /** Whether the value at {@code row} is null. */
  abstract boolean isNull(int row);

  /** Writes the non-null value at {@code row}. */
  abstract void write(ColumnSink sink, int row);

  /**
   * Writes the values at rows {@code rows[i]}, for i from {@code from} to {@code to}, NULLs
   * included. The columns most written override it with a copy of this loop, which the compiler
   * then makes for their type alone.
   */
  void write(ColumnSink sink, int[] rows, int from, int to) {
    for (int i = from; i < to; i++) {
      int row = rows[i];
      if (isNull(row)) {
        sink.writeNull();
      } else {
        write(sink, row);
      }
    }
  }

  /** The non-null value at {@code row} in Iceberg's internal representation. */
  abstract Object internal(int row);

  /** Whether any value of the batch is null. */
  abstract boolean hasNulls();

  /**
   * Compares the non-null value at {@code row} with the non-null value at {@code otherRow} of
   * {@code other}, a column of another batch bound the same way, in the order Iceberg's comparator
   * of the column's type gives: numbers and dates by value, text by code point (UTF-8's byte
   * order), bytes unsigned.
   */
  abstract int compare(int row, VectorColumn other, int otherRow);

  /**
   * Whether {@link #orderedLong} gives the column's values as longs that order as {@link #compare}
   * orders them (integers, dates, times, timestamps and booleans), so a sort by the column alone
   * can compare longs.
   */
  boolean hasOrderedLongs() {
    return false;
  }

  /** The non-null value at {@code row} as a long in the order of {@link #compare}; see {@link #hasOrderedLongs}. */
  long orderedLong(int row) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no ordered longs");
  }

  /**
   * How the vectors of a query's column become the values of a table column, for every batch of a
   * statement. Made when the statement is planned: one exists only where the vector's values are
   * the column's values as they are, or by a widening that cannot fail.
   */
  @FunctionalInterface
  interface Binding {
    VectorColumn bind(FieldVector vector);
  }

  /** A column no batch gives a value: NULL in every row. */
  static final Binding NULLS = vector -> new Nulls();

  /**
   * The binding of Arrow field {@code source} to table column {@code target}, or empty when the
   * values need converting (a rescaled decimal, a narrowed number, a cast) or their type has no
   * columnar writer (nested types, UUID): the statement then writes rows the row-at-a-time way.
   */
  static Optional<Binding> binding(Field source, Types.NestedField target) {
    if (!source.getChildren().isEmpty() || hasExtension(source)) {
      return Optional.empty();
    }
    ArrowType arrow = source.getType();
    Type type = target.type();
    String name = target.name();
    switch (type.typeId()) {
      case BOOLEAN:
        return arrow instanceof ArrowType.Bool ? Optional.of(v -> new Booleans((BitVector) v)) : Optional.empty();
      case INTEGER:
        if (arrow.equals(new ArrowType.Int(32, true))) {
          return Optional.of(FixedWidth32::new);
        }
        return arrow instanceof ArrowType.Int i && i.getIsSigned()
            ? Optional.of(v -> new NarrowedInts((BaseIntVector) v, name, type))
            : Optional.empty();
      case LONG:
        if (arrow.equals(new ArrowType.Int(64, true))) {
          return Optional.of(FixedWidth64::new);
        }
        return arrow instanceof ArrowType.Int i && i.getIsSigned()
            ? Optional.of(v -> new WidenedLongs((BaseIntVector) v))
            : Optional.empty();
      case FLOAT:
        return arrow.equals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))
            ? Optional.of(Floats::new)
            : Optional.empty();
      case DOUBLE:
        if (arrow.equals(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))) {
          return Optional.of(Doubles::new);
        }
        return arrow.equals(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))
            ? Optional.of(WidenedDoubles::new)
            : Optional.empty();
      case DECIMAL: {
        Types.DecimalType decimal = (Types.DecimalType) type;
        return arrow instanceof ArrowType.Decimal d
                && d.getBitWidth() == 128
                && d.getScale() == decimal.scale()
                && d.getPrecision() <= decimal.precision()
            ? Optional.of(v -> new Decimals((DecimalVector) v, decimal.precision()))
            : Optional.empty();
      }
      case DATE:
        return arrow instanceof ArrowType.Date date && date.getUnit() == DateUnit.DAY
            ? Optional.of(FixedWidth32::new)
            : Optional.empty();
      case TIME:
        return arrow instanceof ArrowType.Time time && time.getUnit() == TimeUnit.MICROSECOND && time.getBitWidth() == 64
            ? Optional.of(FixedWidth64::new)
            : Optional.empty();
      case TIMESTAMP:
        return arrow instanceof ArrowType.Timestamp timestamp
                && timestamp.getUnit() == TimeUnit.MICROSECOND
                && (timestamp.getTimezone() != null) == ((Types.TimestampType) type).shouldAdjustToUTC()
            ? Optional.of(FixedWidth64::new)
            : Optional.empty();
      case STRING:
        return arrow instanceof ArrowType.Utf8 ? Optional.of(v -> new Texts((BaseVariableWidthVector) v)) : Optional.empty();
      case BINARY:
        if (arrow instanceof ArrowType.Binary) {
          return Optional.of(v -> new Binaries((BaseVariableWidthVector) v, -1, name, type));
        }
        return arrow instanceof ArrowType.FixedSizeBinary
            ? Optional.of(v -> new FixedBinaries((FixedSizeBinaryVector) v))
            : Optional.empty();
      case FIXED: {
        int length = ((Types.FixedType) type).length();
        if (arrow instanceof ArrowType.Binary) {
          return Optional.of(v -> new Binaries((BaseVariableWidthVector) v, length, name, type));
        }
        return arrow.equals(new ArrowType.FixedSizeBinary(length))
            ? Optional.of(v -> new FixedBinaries((FixedSizeBinaryVector) v))
            : Optional.empty();
      }
      default:
        return Optional.empty();
    }
  }

  private static boolean hasExtension(Field field) {
    Map<String, String> metadata = field.getMetadata();
    return metadata != null && metadata.keySet().stream().anyMatch(k -> k.startsWith("ARROW:extension"));
  }

  /** Copies {@code length} bytes from {@code start} of {@code data}: a short value byte by byte, where the bulk copy's checks cost more than the copy. */
  private static void copy(ArrowBuf data, long start, byte[] bytes, int length) {
    if (length <= 8) {
      for (int i = 0; i < length; i++) {
        bytes[i] = data.getByte(start + i);
      }
    } else {
      data.getBytes(start, bytes, 0, length);
    }
  }

  /** Compares two values of variable-width vectors as unsigned bytes. */
  private static int variableWidth(ArrowBuf offsets, ArrowBuf data, int row, ArrowBuf otherOffsets, ArrowBuf otherData, int otherRow) {
    int start = offsets.getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
    int end = offsets.getInt((long) (row + 1) * BaseVariableWidthVector.OFFSET_WIDTH);
    int otherStart = otherOffsets.getInt((long) otherRow * BaseVariableWidthVector.OFFSET_WIDTH);
    int otherEnd = otherOffsets.getInt((long) (otherRow + 1) * BaseVariableWidthVector.OFFSET_WIDTH);
    return ByteFunctionHelpers.compare(data, start, end, otherData, otherStart, otherEnd);
  }

  /** The values of a vector with a validity buffer. */
  private abstract static class Nullable extends VectorColumn {
    private final FieldVector vector;
    private final boolean hasNulls;

    Nullable(FieldVector vector) {
      this.vector = vector;
      this.hasNulls = vector.getNullCount() > 0;
    }

    @Override
    final boolean isNull(int row) {
      return hasNulls && vector.isNull(row);
    }

    @Override
    final boolean hasNulls() {
      return hasNulls;
    }
  }

  /** A column whose values order as longs: {@link #orderedLong} gives them. */
  private abstract static class LongOrdered extends Nullable {
    LongOrdered(FieldVector vector) {
      super(vector);
    }

    @Override
    final boolean hasOrderedLongs() {
      return true;
    }

    @Override
    abstract long orderedLong(int row);
  }

  private static final class Nulls extends VectorColumn {
    @Override
    boolean isNull(int row) {
      return true;
    }

    @Override
    void write(ColumnSink sink, int row) {
      throw new IllegalStateException("A column of nulls has no value");
    }

    @Override
    Object internal(int row) {
      throw new IllegalStateException("A column of nulls has no value");
    }

    @Override
    boolean hasNulls() {
      return true;
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      throw new IllegalStateException("A column of nulls has no value");
    }
  }

  private static final class Booleans extends LongOrdered {
    private final BitVector vector;

    Booleans(BitVector vector) {
      super(vector);
      this.vector = vector;
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(vector.get(row) != 0);
    }

    @Override
    Object internal(int row) {
      return vector.get(row) != 0;
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Integer.compare(vector.get(row), ((Booleans) other).vector.get(otherRow));
    }

    @Override
    long orderedLong(int row) {
      return vector.get(row);
    }
  }

  /** 32-bit values stored as they are: INTEGER, and DATE as days. */
  private static final class FixedWidth32 extends LongOrdered {
    private final ArrowBuf data;

    FixedWidth32(FieldVector vector) {
      super(vector);
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(data.getInt((long) row << 2));
    }

    @Override
    void write(ColumnSink sink, int[] rows, int from, int to) {
      for (int i = from; i < to; i++) {
        int row = rows[i];
        if (isNull(row)) {
          sink.writeNull();
        } else {
          write(sink, row);
        }
      }
    }

    @Override
    Object internal(int row) {
      return data.getInt((long) row << 2);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Integer.compare(data.getInt((long) row << 2), ((FixedWidth32) other).data.getInt((long) otherRow << 2));
    }

    @Override
    long orderedLong(int row) {
      return data.getInt((long) row << 2);
    }
  }

  /** 64-bit values stored as they are: BIGINT, and TIME and TIMESTAMP as microseconds. */
  private static final class FixedWidth64 extends LongOrdered {
    private final ArrowBuf data;

    FixedWidth64(FieldVector vector) {
      super(vector);
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(data.getLong((long) row << 3));
    }

    @Override
    void write(ColumnSink sink, int[] rows, int from, int to) {
      for (int i = from; i < to; i++) {
        int row = rows[i];
        if (isNull(row)) {
          sink.writeNull();
        } else {
          write(sink, row);
        }
      }
    }

    @Override
    Object internal(int row) {
      return data.getLong((long) row << 3);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Long.compare(data.getLong((long) row << 3), ((FixedWidth64) other).data.getLong((long) otherRow << 3));
    }

    @Override
    long orderedLong(int row) {
      return data.getLong((long) row << 3);
    }
  }

  /** Integers of any width into an INTEGER column, failing on a value outside its range. */
  private static final class NarrowedInts extends LongOrdered {
    private final BaseIntVector vector;
    private final String column;
    private final Type type;

    NarrowedInts(BaseIntVector vector, String column, Type type) {
      super((FieldVector) vector);
      this.vector = vector;
      this.column = column;
      this.type = type;
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write((int) value(row));
    }

    @Override
    Object internal(int row) {
      return (int) value(row);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Long.compare(vector.getValueAsLong(row), ((NarrowedInts) other).vector.getValueAsLong(otherRow));
    }

    private long value(int row) {
      long value = vector.getValueAsLong(row);
      if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
        throw WriteErrors.outOfRange(value, column, type);
      }
      return value;
    }

    @Override
    long orderedLong(int row) {
      return vector.getValueAsLong(row);
    }
  }

  private static final class WidenedLongs extends LongOrdered {
    private final BaseIntVector vector;

    WidenedLongs(BaseIntVector vector) {
      super((FieldVector) vector);
      this.vector = vector;
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(vector.getValueAsLong(row));
    }

    @Override
    Object internal(int row) {
      return vector.getValueAsLong(row);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Long.compare(vector.getValueAsLong(row), ((WidenedLongs) other).vector.getValueAsLong(otherRow));
    }

    @Override
    long orderedLong(int row) {
      return vector.getValueAsLong(row);
    }
  }

  private static final class Floats extends Nullable {
    private final ArrowBuf data;

    Floats(FieldVector vector) {
      super(vector);
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(data.getFloat((long) row << 2));
    }

    @Override
    Object internal(int row) {
      return data.getFloat((long) row << 2);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Float.compare(data.getFloat((long) row << 2), ((Floats) other).data.getFloat((long) otherRow << 2));
    }
  }

  private static final class Doubles extends Nullable {
    private final ArrowBuf data;

    Doubles(FieldVector vector) {
      super(vector);
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write(data.getDouble((long) row << 3));
    }

    @Override
    Object internal(int row) {
      return data.getDouble((long) row << 3);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Double.compare(data.getDouble((long) row << 3), ((Doubles) other).data.getDouble((long) otherRow << 3));
    }
  }

  private static final class WidenedDoubles extends Nullable {
    private final ArrowBuf data;

    WidenedDoubles(FieldVector vector) {
      super(vector);
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      sink.write((double) data.getFloat((long) row << 2));
    }

    @Override
    Object internal(int row) {
      return (double) data.getFloat((long) row << 2);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return Float.compare(data.getFloat((long) row << 2), ((WidenedDoubles) other).data.getFloat((long) otherRow << 2));
    }
  }

  /**
   * Decimals at the column's scale, their unscaled value written as Iceberg stores a decimal of the
   * column's precision: an INT32 up to 9 digits, an INT64 up to 18, else big-endian bytes of the
   * fixed length the precision needs (Arrow holds 16 little-endian bytes).
   */
  private static final class Decimals extends Nullable {
    private final DecimalVector vector;
    private final ArrowBuf data;
    private final int precision;
    private final int length;

    Decimals(DecimalVector vector, int precision) {
      super(vector);
      this.vector = vector;
      this.data = vector.getDataBuffer();
      this.precision = precision;
      this.length = TypeUtil.decimalRequiredBytes(precision);
    }

    @Override
    void write(ColumnSink sink, int row) {
      long offset = (long) row * DecimalVector.TYPE_WIDTH;
      if (precision <= 9) {
        sink.write((int) data.getLong(offset));
      } else if (precision <= 18) {
        sink.write(data.getLong(offset));
      } else {
        byte[] bytes = sink.scratch(length);
        for (int i = 0; i < length; i++) {
          bytes[i] = data.getByte(offset + length - 1 - i);
        }
        sink.write(bytes, length);
      }
    }

    @Override
    void write(ColumnSink sink, int[] rows, int from, int to) {
      for (int i = from; i < to; i++) {
        int row = rows[i];
        if (isNull(row)) {
          sink.writeNull();
        } else {
          write(sink, row);
        }
      }
    }

    @Override
    Object internal(int row) {
      BigDecimal value = vector.getObject(row);
      return value;
    }

    /** Both at the column's scale: compares the 128-bit unscaled values, high halves signed, low halves unsigned. */
    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      ArrowBuf otherData = ((Decimals) other).data;
      long offset = (long) row * DecimalVector.TYPE_WIDTH;
      long otherOffset = (long) otherRow * DecimalVector.TYPE_WIDTH;
      int high = Long.compare(data.getLong(offset + 8), otherData.getLong(otherOffset + 8));
      return high != 0 ? high : Long.compareUnsigned(data.getLong(offset), otherData.getLong(otherOffset));
    }
  }

  /** UTF-8 text, copied once from the vector into the writer's buffer. */
  private static final class Texts extends Nullable {
    private final BaseVariableWidthVector vector;
    private final ArrowBuf offsets;
    private final ArrowBuf data;

    Texts(BaseVariableWidthVector vector) {
      super(vector);
      this.vector = vector;
      this.offsets = vector.getOffsetBuffer();
      this.data = vector.getDataBuffer();
    }

    @Override
    void write(ColumnSink sink, int row) {
      int start = offsets.getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
      int length = offsets.getInt((long) (row + 1) * BaseVariableWidthVector.OFFSET_WIDTH) - start;
      byte[] bytes = sink.scratch(length);
      copy(data, start, bytes, length);
      sink.write(bytes, length);
    }

    @Override
    void write(ColumnSink sink, int[] rows, int from, int to) {
      for (int i = from; i < to; i++) {
        int row = rows[i];
        if (isNull(row)) {
          sink.writeNull();
        } else {
          write(sink, row);
        }
      }
    }

    @Override
    Object internal(int row) {
      return new String(vector.get(row), StandardCharsets.UTF_8);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return variableWidth(offsets, data, row, ((Texts) other).offsets, ((Texts) other).data, otherRow);
    }
  }

  /** Variable-length bytes, into a BINARY column or, checked for their length, a FIXED one. */
  private static final class Binaries extends Nullable {
    private final BaseVariableWidthVector vector;
    private final ArrowBuf offsets;
    private final ArrowBuf data;
    /** The length every value must have, or -1. */
    private final int fixedLength;
    private final String column;
    private final Type type;

    Binaries(BaseVariableWidthVector vector, int fixedLength, String column, Type type) {
      super(vector);
      this.vector = vector;
      this.offsets = vector.getOffsetBuffer();
      this.data = vector.getDataBuffer();
      this.fixedLength = fixedLength;
      this.column = column;
      this.type = type;
    }

    @Override
    void write(ColumnSink sink, int row) {
      int start = offsets.getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
      int length = offsets.getInt((long) (row + 1) * BaseVariableWidthVector.OFFSET_WIDTH) - start;
      checkLength(length);
      byte[] bytes = sink.scratch(length);
      data.getBytes(start, bytes, 0, length);
      sink.write(bytes, length);
    }

    @Override
    Object internal(int row) {
      byte[] bytes = vector.get(row);
      checkLength(bytes.length);
      return ByteBuffer.wrap(bytes);
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      return variableWidth(offsets, data, row, ((Binaries) other).offsets, ((Binaries) other).data, otherRow);
    }

    private void checkLength(int length) {
      if (fixedLength >= 0 && length != fixedLength) {
        throw WriteErrors.wrongLength(column, type, fixedLength, length);
      }
    }
  }

  private static final class FixedBinaries extends Nullable {
    private final FixedSizeBinaryVector vector;
    private final ArrowBuf data;
    private final int width;

    FixedBinaries(FixedSizeBinaryVector vector) {
      super(vector);
      this.vector = vector;
      this.data = vector.getDataBuffer();
      this.width = vector.getByteWidth();
    }

    @Override
    void write(ColumnSink sink, int row) {
      byte[] bytes = sink.scratch(width);
      data.getBytes((long) row * width, bytes, 0, width);
      sink.write(bytes, width);
    }

    @Override
    Object internal(int row) {
      return ByteBuffer.wrap(vector.get(row));
    }

    @Override
    int compare(int row, VectorColumn other, int otherRow) {
      long start = (long) row * width;
      long otherStart = (long) otherRow * width;
      return ByteFunctionHelpers.compare(data, start, start + width, ((FixedBinaries) other).data, otherStart, otherStart + width);
    }
  }
}
