package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.spill.RunReader;
import io.sqe.engine.exec.spill.SpilledRun;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A spilled run read back as an operator's input: each batch its consumer's own, its buffers moved
 * out of the reader's. Closing it deletes the run's file, unless others read it too.
 */
final class RunBatches implements BatchOperator {
  private final SpilledRun run;
  private final BufferAllocator allocator;
  /** Whether closing deletes the run: false for a run the parts of a parallel pipeline each read. */
  private final boolean readOnce;
  private RunReader reader;
  private boolean closed;

  /** @param run the run to read once, or null for no rows */
  RunBatches(SpilledRun run, BufferAllocator allocator) {
    this(run, allocator, true);
  }

  /** @param readOnce whether this is the run's only reader, which deletes it when closed */
  RunBatches(SpilledRun run, BufferAllocator allocator, boolean readOnce) {
    this.run = run;
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.readOnce = readOnce;
  }

  @Override
  public VectorSchemaRoot next() {
    if (run == null || closed) {
      return null;
    }
    if (reader == null) {
      reader = run.open(allocator);
    }
    if (!reader.loadNext()) {
      close();
      return null;
    }
    VectorSchemaRoot loaded = reader.batch();
    List<FieldVector> vectors = new ArrayList<>(loaded.getFieldVectors().size());
    try {
      for (FieldVector vector : loaded.getFieldVectors()) {
        var transfer = vector.getTransferPair(allocator);
        transfer.transfer();
        vectors.add((FieldVector) transfer.getTo());
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot batch = new VectorSchemaRoot(vectors);
    batch.setRowCount(loaded.getRowCount());
    return batch;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (reader != null) {
        reader.close();
      }
    } finally {
      if (run != null && readOnce) {
        run.delete();
      }
    }
  }
}
