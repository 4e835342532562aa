package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

/**
 * OFFSET and FETCH over its input's batches: skips the first {@code offset} rows, then passes at
 * most {@code fetch} rows, and stops pulling its input once it has them. A batch that straddles a
 * bound is cut by Arrow's split-and-transfer.
 */
public final class LimitBatches implements BatchOperator {
  private final BatchOperator input;
  private long toSkip;
  /** Rows still to pass; negative for no FETCH. */
  private long toPass;

  /** @param fetch the most rows to pass, or negative for all */
  public LimitBatches(BatchOperator input, long offset, long fetch) {
    this.input = requireNonNull(input, "input is null");
    if (offset < 0) {
      throw new IllegalArgumentException("offset is negative");
    }
    this.toSkip = offset;
    this.toPass = fetch;
  }

  @Override
  public VectorSchemaRoot next() {
    while (toPass != 0) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) {
        return null;
      }
      int rows = batch.getRowCount();
      if (toSkip >= rows) {
        toSkip -= rows;
        batch.close();
        continue;
      }
      int start = (int) toSkip;
      toSkip = 0;
      int length = toPass < 0 ? rows - start : (int) Math.min(toPass, rows - start);
      if (toPass > 0) {
        toPass -= length;
      }
      if (start == 0 && length == rows) {
        return batch;
      }
      try (batch) {
        return slice(batch, start, length);
      }
    }
    return null;
  }

  private static VectorSchemaRoot slice(VectorSchemaRoot batch, int start, int length) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (FieldVector source : batch.getFieldVectors()) {
        TransferPair pair = source.getTransferPair(source.getAllocator());
        pair.splitAndTransfer(start, length);
        vectors.add((FieldVector) pair.getTo());
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(batch.getSchema().getFields(), vectors, length);
  }

  @Override
  public void close() {
    input.close();
  }
}
