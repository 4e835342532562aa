package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sockets that connect to the Flight port and send nothing: those over their address's limit are
 * closed at once, the others once the handshake timeout passes; meanwhile a real client from
 * another address connects, logs in and runs a query.
 */
class ConnectionLimitTest {
  private static final int IDLE_SOCKETS = 200;
  private static final int PER_ADDRESS = 20;
  /** Far past the 2 s handshake timeout; only a server that never closes them waits it out. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void idleSocketsFromOneAddressAreClosedAndOthersStillConnect() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        TestServer server = TestServer.start(dir, Map.of(
            "server.max-connections-per-address", Integer.toString(PER_ADDRESS),
            "server.handshake-timeout", "2s"))) {
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < IDLE_SOCKETS; i++) {
          Socket socket = new Socket();
          // Loopback answers for all of 127/8: these come from another address than the client below.
          socket.bind(new InetSocketAddress("127.0.0.2", 0));
          socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
          idle.add(socket);
        }
        try (TestServer.Client client = server.client(allocator)) {
          FlightInfo info = client.sql().execute("select 40 + 2", client.auth());
          assertThat(drain(client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth()))).containsExactly(List.of(42));
        }
        assertThat(openAfter(idle, CLOSE_WAIT)).as("idle sockets the server has not closed").isZero();
        try (TestServer.Client again = server.client(allocator)) {
          FlightInfo info = again.sql().execute("select 1", again.auth());
          assertThat(drain(again.sql().getStream(info.getEndpoints().get(0).getTicket(), again.auth()))).containsExactly(List.of(1));
        }
      } finally {
        for (Socket socket : idle) {
          socket.close();
        }
      }
    }
  }

  /** How many of {@code sockets} the server has still not closed after waiting up to {@code wait}. */
  private static int openAfter(List<Socket> sockets, Duration wait) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    List<Socket> open = new ArrayList<>(sockets);
    while (!open.isEmpty() && System.nanoTime() < deadline) {
      open.removeIf(ConnectionLimitTest::closedByServer);
      Thread.sleep(100);
    }
    return open.size();
  }

  private static boolean closedByServer(Socket socket) {
    try {
      socket.setSoTimeout(1);
      InputStream in = socket.getInputStream();
      // gRPC may send its SETTINGS and a GOAWAY before it closes: read until the end.
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      // Reset: closed too.
      return true;
    }
  }
}
