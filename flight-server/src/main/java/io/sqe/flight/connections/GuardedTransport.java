package io.sqe.flight.connections;

import static java.util.Objects.requireNonNull;

import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The Flight port's Netty transport with its defences: a server socket that refuses connections
 * over their address's limit ({@link ConnectionGuard}), gRPC's handshake timeout (a connection
 * that has not completed the HTTP/2 handshake, TLS included, by then is closed), and its idle
 * timeout. gRPC takes a custom server socket only with event loops of the caller's, which this
 * owns and shuts down after the server.
 */
public final class GuardedTransport implements AutoCloseable {
  private final ConnectionGuard guard;
  private final Duration handshakeTimeout;
  private final Duration idleTimeout;
  private final EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("sqe-flight-accept", true));
  // As many threads as gRPC's own default: twice the cores.
  private final EventLoopGroup workers = new NioEventLoopGroup(0, new DefaultThreadFactory("sqe-flight-io", true));

  /**
   * @param maxPerAddress the most connections open at once from one client address; 0 for no limit
   * @param handshakeTimeout how long a new connection may take to complete its HTTP/2 (and TLS) handshake
   * @param idleTimeout how long a connection may go without a call; zero for never
   */
  public GuardedTransport(int maxPerAddress, Duration handshakeTimeout, Duration idleTimeout) {
    this.guard = new ConnectionGuard(maxPerAddress);
    this.handshakeTimeout = requireNonNull(handshakeTimeout, "handshakeTimeout is null");
    this.idleTimeout = requireNonNull(idleTimeout, "idleTimeout is null");
  }

  /** Sets the transport up on gRPC's server builder. */
  public void configure(NettyServerBuilder netty) {
    netty
        .channelFactory(() -> new GuardedServerChannel(guard))
        .bossEventLoopGroup(boss)
        .workerEventLoopGroup(workers)
        .handshakeTimeout(handshakeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!idleTimeout.isZero()) {
      // Clients reconnect on their next call (gRPC's GOAWAY tells them to).
      netty.maxConnectionIdle(idleTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  public ConnectionGuard guard() {
    return guard;
  }

  /** Stops the event loops; after the gRPC server has shut down. */
  @Override
  public void close() {
    boss.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
