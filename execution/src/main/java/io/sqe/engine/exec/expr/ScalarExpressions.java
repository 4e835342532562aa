package io.sqe.engine.exec.expr;

import java.util.List;
import java.util.function.LongBinaryOperator;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The scalar expressions the columnar evaluator runs: columns, constants, arithmetic on integers
 * (with the operator given, so it fails on overflow as the row runtime's does), on decimals of up
 * to 18 digits as unscaled longs (exact: the planner only asks when the result type holds every
 * result), and on doubles; casts that widen; CASE whose branches cannot fail. Each is one loop over
 * the rows writing straight into the result's Arrow buffers.
 */
public final class ScalarExpressions {
  private ScalarExpressions() {}

  /** The batch's column {@code index}, borrowed. */
  public static ScalarExpression column(int index) {
    return (batch, allocator) -> new Evaluated(batch.getVector(index), false);
  }

  /**
   * A constant in a vector of {@code field}'s type: a {@code Long} (integers, unscaled decimals), a
   * {@code Double}, null, or any other value in the engine's run-time representation.
   */
  public static ScalarExpression constant(Field field, Object value) {
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      FieldVector out = allocate(field, allocator, rows);
      if (value == null) {
        out.setValueCount(rows);
        return new Evaluated(out, true);
      }
      if (!(value instanceof Long) && !(value instanceof Double)) {
        // Text, dates, booleans: in the engine's run-time representation.
        io.sqe.engine.exec.ColumnWriter writer = io.sqe.engine.exec.ColumnWriter.create(out);
        for (int r = 0; r < rows; r++) {
          writer.write(r, value);
        }
        out.setValueCount(rows);
        return new Evaluated(out, true);
      }
      ArrowBuf validity = out.getValidityBuffer();
      if (value instanceof Double d) {
        for (int r = 0; r < rows; r++) {
          writeDouble(out, r, d);
          BitVectorHelper.setBit(validity, r);
        }
      } else {
        long v = ((Number) value).longValue();
        for (int r = 0; r < rows; r++) {
          writeLong(out, r, v);
          BitVectorHelper.setBit(validity, r);
        }
      }
      out.setValueCount(rows);
      return new Evaluated(out, true);
    };
  }

  /**
   * {@code left op right} over operands read as longs, each first multiplied by its factor (to
   * bring decimals to the result's scale; 1 for integers), into {@code field}'s vector.
   */
  public static ScalarExpression longs(Field field, ScalarExpression left, long leftFactor, ScalarExpression right, long rightFactor, LongBinaryOperator op) {
    return overLongs(field, left, right, (out, r, x, y) -> {
      long u = leftFactor == 1 ? x : Math.multiplyExact(x, leftFactor);
      long v = rightFactor == 1 ? y : Math.multiplyExact(y, rightFactor);
      writeLong(out, r, op.applyAsLong(u, v));
    });
  }

  /** Writes row {@code row}'s value of {@code out} from the operands' values there. */
  @FunctionalInterface
  private interface LongPairWriter {
    void write(FieldVector out, int row, long left, long right);
  }

  /**
   * An expression of two operands read as longs: {@code writer} sets each row where neither is
   * null, the others are null.
   */
  private static ScalarExpression overLongs(Field field, ScalarExpression left, ScalarExpression right, LongPairWriter writer) {
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      try (Evaluated a = left.evaluate(batch, allocator); Evaluated b = right.evaluate(batch, allocator)) {
        FieldVector x = a.vector();
        FieldVector y = b.vector();
        ColumnValues.Longs xs = ColumnValues.longs(x);
        ColumnValues.Longs ys = ColumnValues.longs(y);
        FieldVector out = allocate(field, allocator, rows);
        boolean nulls = ColumnValues.anyNull(x, rows) || ColumnValues.anyNull(y, rows);
        try {
          ArrowBuf validity = out.getValidityBuffer();
          for (int r = 0; r < rows; r++) {
            if (nulls && (x.isNull(r) || y.isNull(r))) {
              continue;
            }
            writer.write(out, r, xs.get(r), ys.get(r));
            BitVectorHelper.setBit(validity, r);
          }
          out.setValueCount(rows);
          return new Evaluated(out, true);
        } catch (RuntimeException | Error e) {
          out.close();
          throw e;
        }
      }
    };
  }

  /** The operation of two doubles. */
  @FunctionalInterface
  public interface DoubleOperator {
    double apply(double a, double b);
  }

  /** {@code left op right} over operands read as doubles (each a double column or constant, or a widening cast to one). */
  public static ScalarExpression doubles(Field field, ScalarExpression left, ScalarExpression right, DoubleOperator op) {
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      try (Evaluated a = left.evaluate(batch, allocator); Evaluated b = right.evaluate(batch, allocator)) {
        FieldVector x = a.vector();
        FieldVector y = b.vector();
        ColumnValues.Doubles xs = ColumnValues.doubles(x);
        ColumnValues.Doubles ys = ColumnValues.doubles(y);
        FieldVector out = allocate(field, allocator, rows);
        ArrowBuf validity = out.getValidityBuffer();
        for (int r = 0; r < rows; r++) {
          if (!x.isNull(r) && !y.isNull(r)) {
            writeDouble(out, r, op.apply(xs.get(r), ys.get(r)));
            BitVectorHelper.setBit(validity, r);
          }
        }
        out.setValueCount(rows);
        return new Evaluated(out, true);
      }
    };
  }

  /** An integer or decimal of up to 18 digits times {@code factor} (a cast to a finer scale, or to a decimal), into {@code field}'s vector. */
  public static ScalarExpression scaleLong(Field field, ScalarExpression input, long factor) {
    return longs(field, input, factor, constant(field, 0L), 1, Long::sum);
  }

  /** An integer, a decimal of up to 18 digits (unscaled, with {@code scale}) or a float as a double. */
  public static ScalarExpression toDouble(Field field, ScalarExpression input, boolean fromLongs, int scale) {
    double divisor = Math.pow(10, scale);
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      try (Evaluated a = input.evaluate(batch, allocator)) {
        FieldVector x = a.vector();
        FieldVector out = allocate(field, allocator, rows);
        ArrowBuf validity = out.getValidityBuffer();
        ColumnValues.Longs longs = fromLongs ? ColumnValues.longs(x) : null;
        ColumnValues.Doubles doubles = fromLongs ? null : ColumnValues.doubles(x);
        for (int r = 0; r < rows; r++) {
          if (x.isNull(r)) {
            continue;
          }
          double v;
          if (!fromLongs) {
            v = doubles.get(r);
          } else {
            long unscaled = longs.get(r);
            // Exact operands give the correctly rounded quotient, as BigDecimal.doubleValue() does.
            v = scale == 0 ? unscaled
                : Math.abs(unscaled) < (1L << 53) ? unscaled / divisor
                : java.math.BigDecimal.valueOf(unscaled, scale).doubleValue();
          }
          writeDouble(out, r, v);
          BitVectorHelper.setBit(validity, r);
        }
        out.setValueCount(rows);
        return new Evaluated(out, true);
      }
    };
  }

  /** One WHEN of a CASE: rows its condition keeps take its value. */
  public record When(Predicate condition, ScalarExpression value) {}

  /**
   * {@code CASE WHEN c1 THEN v1 ... ELSE otherwise END}: each row takes the value of the first
   * condition that keeps it. Every branch is evaluated on the whole batch, so the planner only
   * builds a CASE whose values cannot fail.
   */
  public static ScalarExpression caseWhen(Field field, List<When> whens, ScalarExpression otherwise) {
    List<When> branches = List.copyOf(whens);
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      int[] branchOf = new int[rows];
      java.util.Arrays.fill(branchOf, branches.size());
      int[] candidates = new int[rows];
      int[] selection = new int[rows];
      int remaining = rows;
      for (int i = 0; i < rows; i++) {
        candidates[i] = i;
      }
      for (int w = 0; w < branches.size() && remaining > 0; w++) {
        System.arraycopy(candidates, 0, selection, 0, remaining);
        int kept = branches.get(w).condition().filter(batch, selection, remaining);
        for (int i = 0; i < kept; i++) {
          branchOf[selection[i]] = w;
        }
        int left = 0;
        for (int i = 0; i < remaining; i++) {
          if (branchOf[candidates[i]] == branches.size()) {
            candidates[left++] = candidates[i];
          }
        }
        remaining = left;
      }
      Evaluated[] values = new Evaluated[branches.size() + 1];
      FieldVector out = allocate(field, allocator, rows);
      try {
        for (int w = 0; w < branches.size(); w++) {
          values[w] = branches.get(w).value().evaluate(batch, allocator);
        }
        values[branches.size()] = otherwise.evaluate(batch, allocator);
        for (int r = 0; r < rows; r++) {
          out.copyFromSafe(r, r, values[branchOf[r]].vector());
        }
        out.setValueCount(rows);
        return new Evaluated(out, true);
      } catch (RuntimeException | Error e) {
        out.close();
        throw e;
      } finally {
        for (Evaluated value : values) {
          if (value != null) {
            value.close();
          }
        }
      }
    };
  }

  /** {@code slice} of a text expression's values, into a vector of {@code field}'s (text) type; null stays null. */
  public static ScalarExpression substring(Field field, ScalarExpression text, TextSlice slice) {
    return (batch, allocator) -> {
      int rows = batch.getRowCount();
      try (Evaluated in = text.evaluate(batch, allocator)) {
        BaseVariableWidthVector values = (BaseVariableWidthVector) in.vector();
        BaseVariableWidthVector out = (BaseVariableWidthVector) allocate(field, allocator, rows);
        try {
          TextSlice.Cursor cursor = new TextSlice.Cursor(slice);
          for (int r = 0; r < rows; r++) {
            if (values.isNull(r)) {
              out.setNull(r);
            } else {
              cursor.at(values, r);
              cursor.copyTo(out, r);
            }
          }
          out.setValueCount(rows);
          return new Evaluated(out, true);
        } catch (RuntimeException | Error e) {
          out.close();
          throw e;
        }
      }
    };
  }

  private static FieldVector allocate(Field field, BufferAllocator allocator, int rows) {
    FieldVector out = field.createVector(allocator);
    out.setInitialCapacity(Math.max(rows, 1));
    out.allocateNew();
    return out;
  }

  private static void writeLong(FieldVector out, int row, long v) {
    ArrowBuf data = out.getDataBuffer();
    if (out instanceof BigIntVector) {
      data.setLong((long) row * 8, v);
    } else if (out instanceof IntVector) {
      data.setInt((long) row * 4, (int) v);
    } else if (out instanceof DecimalVector) {
      data.setLong((long) row * 16, v);
      data.setLong((long) row * 16 + 8, v < 0 ? -1L : 0L);
    } else if (out instanceof SmallIntVector) {
      data.setShort((long) row * 2, (short) v);
    } else if (out instanceof TinyIntVector) {
      data.setByte(row, (byte) v);
    } else {
      throw new IllegalArgumentException("Not a vector of longs: " + out.getField());
    }
  }

  private static void writeDouble(FieldVector out, int row, double v) {
    if (out instanceof Float8Vector) {
      out.getDataBuffer().setDouble((long) row * 8, v);
    } else if (out instanceof Float4Vector) {
      out.getDataBuffer().setFloat((long) row * 4, (float) v);
    } else {
      throw new IllegalArgumentException("Not a vector of doubles: " + out.getField());
    }
  }
}
