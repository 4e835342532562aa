package io.sqe.engine.exec.batch;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Copies chosen rows of record batches into a new batch: what a filter keeps, a sort's order, a
 * top-N's merge, small batches joined. Each column is copied by {@link ColumnGather}.
 */
public final class Gather {
  private Gather() {}

  /** A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rows[i]} of {@code source}. */
  public static VectorSchemaRoot rows(Schema schema, BufferAllocator allocator, VectorSchemaRoot source, int[] rows, int count) {
    return rows(schema, allocator, List.of(source), null, rows, count);
  }

  /**
   * A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rows[i]} of
   * batch {@code sources.get(sourceOf[i])}; the sources have the same columns.
   *
   * @param sourceOf null when every row is of the first source
   */
  public static VectorSchemaRoot rows(
      Schema schema, BufferAllocator allocator, List<VectorSchemaRoot> sources, int[] sourceOf, int[] rows, int count) {
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      List<FieldVector> to = out.getFieldVectors();
      FieldVector[] from = new FieldVector[sources.size()];
      for (int c = 0; c < to.size(); c++) {
        for (int s = 0; s < from.length; s++) {
          from[s] = sources.get(s).getVector(c);
        }
        ColumnGather.gather(to.get(c), from, sourceOf, rows, count);
      }
      out.setRowCount(count);
      return out;
    } catch (RuntimeException | Error e) {
      out.close();
      throw e;
    }
  }

  /**
   * A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rowOf(i)} of
   * batch {@code sourceOf(i)}; the sources have the same columns.
   */
  public static VectorSchemaRoot rows(
      Schema schema, BufferAllocator allocator, int count, IntFunction<VectorSchemaRoot> sourceOf, IntUnaryOperator rowOf) {
    List<VectorSchemaRoot> sources = new ArrayList<>();
    int[] sourceIndex = new int[count];
    int[] rows = new int[count];
    VectorSchemaRoot last = null;
    int lastIndex = -1;
    for (int i = 0; i < count; i++) {
      VectorSchemaRoot source = sourceOf.apply(i);
      if (source != last) {
        lastIndex = sources.indexOf(source);
        if (lastIndex < 0) {
          lastIndex = sources.size();
          sources.add(source);
        }
        last = source;
      }
      sourceIndex[i] = lastIndex;
      rows[i] = rowOf.applyAsInt(i);
    }
    return rows(schema, allocator, sources, sources.size() == 1 ? null : sourceIndex, rows, count);
  }
}
