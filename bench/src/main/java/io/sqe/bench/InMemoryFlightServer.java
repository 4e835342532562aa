package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A plain Arrow Flight server on loopback that serves record batches held in memory: the ceiling of
 * what Flight carries on this machine, with no planning, scan or conversion behind it. GetFlightInfo
 * answers one endpoint on this server; DoGet sends the batches as they are (their buffers go to gRPC
 * by reference) from a thread of its own, waiting for the client as Flight's callback back-pressure
 * says, as SQE's result streaming does.
 */
final class InMemoryFlightServer implements AutoCloseable {
  private static final Ticket TICKET = new Ticket("batches".getBytes(StandardCharsets.UTF_8));
  private static final long READY_WAIT_MILLIS = 60_000;

  private final FlightServer server;
  private final ExecutorService streams;
  private final BufferAllocator serverAllocator;
  private final FlightClient client;
  private final BufferAllocator clientAllocator;

  private InMemoryFlightServer(
      FlightServer server,
      ExecutorService streams,
      BufferAllocator serverAllocator,
      FlightClient client,
      BufferAllocator clientAllocator) {
    this.server = server;
    this.streams = streams;
    this.serverAllocator = serverAllocator;
    this.client = client;
    this.clientAllocator = clientAllocator;
  }

  /** Starts the server on 127.0.0.1 and a client of it; the batches must outlive both. */
  static InMemoryFlightServer start(BufferAllocator parent, Schema schema, List<ArrowRecordBatch> batches) throws IOException {
    requireNonNull(schema, "schema is null");
    List<ArrowRecordBatch> served = List.copyOf(batches);
    BufferAllocator serverAllocator = parent.newChildAllocator("plain-flight-server", 0, Long.MAX_VALUE);
    ExecutorService streams = Executors.newSingleThreadExecutor(task -> {
      Thread thread = new Thread(task, "plain-flight-stream");
      thread.setDaemon(true);
      return thread;
    });
    BufferAllocator clientAllocator = null;
    FlightServer server = null;
    try {
      Producer producer = new Producer(serverAllocator, streams, schema, served);
      server = FlightServer.builder(serverAllocator, Location.forGrpcInsecure("127.0.0.1", 0), producer).build().start();
      clientAllocator = parent.newChildAllocator("plain-flight-client", 0, Long.MAX_VALUE);
      FlightClient client = FlightClient.builder(clientAllocator, Location.forGrpcInsecure("127.0.0.1", server.getPort())).build();
      return new InMemoryFlightServer(server, streams, serverAllocator, client, clientAllocator);
    } catch (IOException | RuntimeException e) {
      streams.shutdownNow();
      try {
        AutoCloseables.close(server, clientAllocator, serverAllocator);
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** GetFlightInfo, then DoGet to the last batch, counting rows and Arrow buffer bytes. */
  ThroughputPass read() throws Exception {
    long start = System.nanoTime();
    FlightInfo info = client.getInfo(FlightDescriptor.command(TICKET.getBytes()));
    long rows = 0;
    long bytes = 0;
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.getStream(endpoint.getTicket())) {
        while (stream.next()) {
          rows += stream.getRoot().getRowCount();
          bytes += ThroughputPass.bufferBytes(stream.getRoot());
        }
      }
    }
    return new ThroughputPass(rows, bytes, System.nanoTime() - start);
  }

  @Override
  public void close() throws Exception {
    AutoCloseables.close(client, clientAllocator, server, streams::shutdownNow, serverAllocator);
  }

  /** GetFlightInfo and DoGet of the one result; every other call is Flight's "unimplemented". */
  private static final class Producer extends NoOpFlightProducer {
    private final BufferAllocator allocator;
    private final ExecutorService streams;
    private final Schema schema;
    private final List<ArrowRecordBatch> batches;

    Producer(BufferAllocator allocator, ExecutorService streams, Schema schema, List<ArrowRecordBatch> batches) {
      this.allocator = allocator;
      this.streams = streams;
      this.schema = schema;
      this.batches = batches;
    }

    @Override
    public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
      return new FlightInfo(schema, descriptor, List.of(new FlightEndpoint(TICKET)), -1, -1);
    }

    /**
     * Hands the stream to a thread of its own: the client's "ready" reaches the back-pressure
     * strategy on this gRPC call's thread, so waiting for it here would wait forever.
     */
    @Override
    public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
      BackpressureStrategy backpressure = new BackpressureStrategy.CallbackBackpressureStrategy();
      backpressure.register(listener);
      streams.execute(() -> send(listener, backpressure));
    }

    private void send(ServerStreamListener listener, BackpressureStrategy backpressure) {
      // Loading a batch points the root's vectors at that batch's buffers; putNext takes its own
      // references, so the next load does not touch a batch still on the wire.
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        VectorLoader loader = new VectorLoader(root);
        listener.start(root);
        for (ArrowRecordBatch batch : batches) {
          BackpressureStrategy.WaitResult ready = backpressure.waitForListener(READY_WAIT_MILLIS);
          if (ready != BackpressureStrategy.WaitResult.READY) {
            listener.error(CallStatus.CANCELLED.withDescription("Client not ready: " + ready).toRuntimeException());
            return;
          }
          loader.load(batch);
          listener.putNext();
        }
        listener.completed();
      } catch (RuntimeException e) {
        listener.error(CallStatus.INTERNAL.withDescription("Sending the batches failed: " + e).withCause(e).toRuntimeException());
      }
    }
  }
}
