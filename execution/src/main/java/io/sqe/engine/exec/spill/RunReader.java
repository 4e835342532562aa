package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;

/** Reads a {@link SpilledRun} back one batch at a time, each loaded into the same {@link #batch()}. */
public final class RunReader implements AutoCloseable {
  private final QuerySpill spill;
  private final ArrowStreamReader reader;

  RunReader(QuerySpill spill, InputStream in, BufferAllocator allocator) {
    this.spill = requireNonNull(spill, "spill is null");
    this.reader = new ArrowStreamReader(in, allocator);
  }

  /** Loads the next non-empty batch into {@link #batch()}; false after the last one. */
  public boolean loadNext() {
    try {
      while (reader.loadNextBatch()) {
        if (reader.getVectorSchemaRoot().getRowCount() > 0) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw spill.cannotRead(e);
    }
  }

  /** The batch last loaded, owned by this reader and refilled by the next {@link #loadNext()}. */
  public VectorSchemaRoot batch() {
    try {
      return reader.getVectorSchemaRoot();
    } catch (IOException e) {
      throw spill.cannotRead(e);
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw spill.cannotRead(e);
    }
  }
}
