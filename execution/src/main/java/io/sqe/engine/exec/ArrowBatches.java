package io.sqe.engine.exec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

/**
 * Record batches as Arrow IPC messages on the heap: how a cached result is kept without holding
 * Arrow memory, which belongs to the queries that run.
 */
public final class ArrowBatches {
  private ArrowBatches() {}

  /** The batch in {@code root} as one IPC record batch message. */
  public static byte[] serialize(VectorSchemaRoot root) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
      MessageSerializer.serialize(new WriteChannel(Channels.newChannel(bytes)), batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Loads a batch {@link #serialize} made into {@code root}, whose buffers come from {@code allocator}. */
  public static void load(byte[] message, VectorSchemaRoot root, BufferAllocator allocator) {
    try (ArrowRecordBatch batch =
        MessageSerializer.deserializeRecordBatch(new ReadChannel(Channels.newChannel(new ByteArrayInputStream(message))), allocator)) {
      new VectorLoader(root).load(batch);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
