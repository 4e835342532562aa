package io.sqe.engine.exec.batch;

import java.util.List;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Copies chosen rows of record batches into a new batch: what a filter keeps, a top-N's merge, small batches joined. */
public final class Gather {
  private Gather() {}

  /**
   * A new batch of {@code schema} whose row {@code i} (of {@code count}) is row {@code rowOf(i)} of
   * batch {@code sourceOf(i)}; the sources have the same columns.
   */
  public static VectorSchemaRoot rows(
      Schema schema, BufferAllocator allocator, int count, IntFunction<VectorSchemaRoot> sourceOf, IntUnaryOperator rowOf) {
    VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator);
    try {
      List<FieldVector> to = out.getFieldVectors();
      for (int c = 0; c < to.size(); c++) {
        FieldVector target = to.get(c);
        target.setInitialCapacity(Math.max(count, 1));
        target.allocateNew();
        for (int i = 0; i < count; i++) {
          target.copyFromSafe(rowOf.applyAsInt(i), i, sourceOf.apply(i).getVector(c));
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
}
