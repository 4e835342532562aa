package io.sqe.engine.exec.batch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Copies chosen rows of record batches into a new batch: what a filter keeps, a top-N's merge, small batches joined. */
public final class Gather {
  /**
   * Batches below this many rows are worth appending to the ones after them: a batch costs every
   * operator above it a call, its vectors and their buffers whatever its size.
   */
  public static final int SMALL_BATCH_ROWS = 1024;

  private Gather() {}

  /** A new batch holding the rows of {@code parts} (of one schema) one after the other; the parts stay the caller's. */
  public static VectorSchemaRoot append(List<VectorSchemaRoot> parts, BufferAllocator allocator) {
    int count = 0;
    for (VectorSchemaRoot part : parts) {
      count += part.getRowCount();
    }
    int[] batches = new int[count];
    int[] rows = new int[count];
    int at = 0;
    for (int p = 0; p < parts.size(); p++) {
      for (int r = 0; r < parts.get(p).getRowCount(); r++, at++) {
        batches[at] = p;
        rows[at] = r;
      }
    }
    return take(parts.get(0).getSchema(), allocator, count, parts, batches, rows);
  }

  /** A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rows[i]} of {@code source}. */
  public static VectorSchemaRoot rows(Schema schema, BufferAllocator allocator, int count, VectorSchemaRoot source, int[] rows) {
    return take(schema, allocator, count, List.of(source), null, rows);
  }

  /**
   * A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rowOf(i)} of
   * batch {@code sourceOf(i)}; the sources have the same columns.
   */
  public static VectorSchemaRoot rows(
      Schema schema, BufferAllocator allocator, int count, IntFunction<VectorSchemaRoot> sourceOf, IntUnaryOperator rowOf) {
    List<VectorSchemaRoot> sources = new ArrayList<>();
    Map<VectorSchemaRoot, Integer> numbers = new IdentityHashMap<>();
    int[] batches = new int[count];
    int[] rows = new int[count];
    VectorSchemaRoot last = null;
    int number = -1;
    for (int i = 0; i < count; i++) {
      VectorSchemaRoot source = sourceOf.apply(i);
      if (source != last) {
        number = numbers.computeIfAbsent(source, s -> {
          sources.add(s);
          return sources.size() - 1;
        });
        last = source;
      }
      batches[i] = number;
      rows[i] = rowOf.applyAsInt(i);
    }
    return take(schema, allocator, count, sources, sources.size() == 1 ? null : batches, rows);
  }

  private static VectorSchemaRoot take(
      Schema schema, BufferAllocator allocator, int count, List<VectorSchemaRoot> sources, int[] batches, int[] rows) {
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      List<FieldVector> to = out.getFieldVectors();
      List<FieldVector> column = new ArrayList<>(sources.size());
      for (int c = 0; c < to.size(); c++) {
        column.clear();
        for (VectorSchemaRoot source : sources) {
          column.add(source.getVector(c));
        }
        TakeColumn.of(column).into(to.get(c), batches, rows, count);
      }
      out.setRowCount(count);
      return out;
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
  }
}
