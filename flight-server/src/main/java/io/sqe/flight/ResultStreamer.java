package io.sqe.flight;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryExecution;
import java.util.Iterator;
import java.util.function.Supplier;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams query results to a Flight client one record batch at a time, waiting for the client to
 * be ready before each batch (gRPC flow control), and stopping the query if the client goes away.
 */
final class ResultStreamer {
  private static final Logger LOG = LoggerFactory.getLogger(ResultStreamer.class);
  private static final long READY_WAIT_MILLIS = 30_000;

  private ResultStreamer() {}

  /**
   * Sends the results of the executions in order as one stream (several parameter sets of one
   * prepared statement give several executions). Closes every execution.
   */
  static void stream(
      Schema schema,
      Iterator<Supplier<QueryExecution>> executions,
      BufferAllocator allocator,
      ServerStreamListener listener,
      String queryId) {
    BackpressureStrategy backpressure = new BackpressureStrategy.CallbackBackpressureStrategy();
    backpressure.register(listener);
    try (VectorSchemaRoot out = VectorSchemaRoot.create(schema, allocator)) {
      VectorLoader loader = new VectorLoader(out);
      listener.start(out);
      while (executions.hasNext()) {
        try (QueryExecution execution = executions.next().get()) {
          listener.setOnCancelHandler(() -> execution.cancel("The client cancelled the stream"));
          while (execution.next()) {
            if (!awaitReady(backpressure, execution)) {
              return;
            }
            VectorSchemaRoot batch = execution.root();
            try (ArrowRecordBatch recordBatch = new VectorUnloader(batch).getRecordBatch()) {
              loader.load(recordBatch);
            }
            listener.putNext();
            out.clear();
          }
        }
      }
      listener.completed();
    } catch (RuntimeException e) {
      LOG.debug("Query {} failed while streaming", queryId, e);
      listener.error(FlightErrors.toFlight(e, queryId));
    }
  }

  private static boolean awaitReady(BackpressureStrategy backpressure, QueryExecution execution) {
    while (true) {
      switch (backpressure.waitForListener(READY_WAIT_MILLIS)) {
        case READY:
          return true;
        case CANCELLED:
          execution.cancel("The client cancelled the stream");
          return false;
        case TIMEOUT:
          // A slow client is fine; a cancelled query is not.
          if (execution.context().isCancelled()) {
            throw new SqeException(ErrorCode.CANCELLED, "Query " + execution.queryId() + " was cancelled");
          }
          break;
        default:
          return false;
      }
    }
  }
}
