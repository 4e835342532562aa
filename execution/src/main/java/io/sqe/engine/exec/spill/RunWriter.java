package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes one sorted run (or any sequence of batches) to a spill file as an Arrow IPC stream.
 * {@link #finish()} gives the run to read back; closing an unfinished writer deletes its file.
 */
public final class RunWriter implements AutoCloseable {
  private final QuerySpill spill;
  private final Path file;
  private final VectorSchemaRoot staging;
  private final ArrowStreamWriter writer;
  private final OutputStream out;
  private long rows;
  private long counted;
  private boolean finished;

  RunWriter(QuerySpill spill, Path file, Schema schema, BufferAllocator allocator) {
    this.spill = requireNonNull(spill, "spill is null");
    this.file = requireNonNull(file, "file is null");
    try {
      this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    } catch (IOException e) {
      throw spill.cannotWrite(e);
    }
    this.staging = VectorSchemaRoot.create(schema, allocator);
    this.writer = new ArrowStreamWriter(staging, null, Channels.newChannel(out));
    try {
      writer.start();
    } catch (IOException e) {
      close();
      throw spill.cannotWrite(e);
    }
  }

  /** Appends {@code batch}'s rows; the caller keeps the batch. */
  public void write(VectorSchemaRoot batch) {
    try (ArrowRecordBatch record = new VectorUnloader(batch).getRecordBatch()) {
      new VectorLoader(staging).load(record);
      writer.writeBatch();
      rows += batch.getRowCount();
      count();
    } catch (IOException e) {
      throw spill.cannotWrite(e);
    } finally {
      staging.clear();
    }
  }

  /** Ends the stream; the run's file stays until the run is deleted or the query ends. */
  public SpilledRun finish() {
    try {
      writer.end();
      out.flush();
      count();
      finished = true;
      return new SpilledRun(spill, file, rows, counted);
    } catch (IOException e) {
      throw spill.cannotWrite(e);
    } finally {
      close();
    }
  }

  private void count() {
    long position = writer.bytesWritten();
    long added = position - counted;
    counted = position;
    spill.written(added);
  }

  @Override
  public void close() {
    try {
      writer.close();
    } catch (RuntimeException e) {
      // The stream may already be closed or broken; the file is removed below or with the query.
    } finally {
      staging.close();
      if (!finished) {
        SpilledRun.deleteQuietly(file);
      }
    }
  }
}
