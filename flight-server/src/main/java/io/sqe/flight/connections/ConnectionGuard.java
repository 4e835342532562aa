package io.sqe.flight.connections;

import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the connections open on the Flight port per client address and refuses one over {@code
 * maxPerAddress}: sockets that connect and send nothing (20,000 of them in the review) each keep a
 * file descriptor, until the process has none left for real clients. (gRPC's handshake timeout
 * closes those that do not complete the HTTP/2 handshake; this bounds how many one address holds
 * meanwhile.)
 */
public final class ConnectionGuard {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final long REFUSAL_LOG_INTERVAL_NANOS = 10_000_000_000L;

  private final int maxPerAddress;
  private final ConcurrentMap<InetAddress, AtomicInteger> open = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong lastRefusalLog = new AtomicLong(System.nanoTime() - REFUSAL_LOG_INTERVAL_NANOS);

  /** @param maxPerAddress the most connections open at once from one client address; 0 for no limit */
  public ConnectionGuard(int maxPerAddress) {
    if (maxPerAddress < 0) {
      throw new IllegalArgumentException("maxPerAddress must not be negative: " + maxPerAddress);
    }
    this.maxPerAddress = maxPerAddress;
  }

  /**
   * Takes a connection just accepted, before gRPC sets it up: counts it against its address until
   * it closes.
   *
   * @return false when its address has as many open as allowed: the caller closes it
   */
  boolean admit(Channel connection) {
    InetAddress address = address(connection.remoteAddress());
    if (address == null) {
      return true;
    }
    AtomicInteger count = open.computeIfAbsent(address, a -> new AtomicInteger());
    if (count.incrementAndGet() > maxPerAddress && maxPerAddress > 0) {
      release(address, count);
      refused(address);
      return false;
    }
    connection.closeFuture().addListener(closed -> release(address, count));
    return true;
  }

  private void release(InetAddress address, AtomicInteger count) {
    if (count.decrementAndGet() <= 0) {
      open.remove(address, count);
    }
  }

  /** One line per interval however many are refused: an attack must not fill the log either. */
  private void refused(InetAddress address) {
    long total = refused.incrementAndGet();
    long now = System.nanoTime();
    long last = lastRefusalLog.get();
    if (now - last >= REFUSAL_LOG_INTERVAL_NANOS && lastRefusalLog.compareAndSet(last, now)) {
      LOG.warn(
          "Refused a connection from {}, which has {} open (server.max-connections-per-address); {} refused since start",
          address.getHostAddress(), maxPerAddress, total);
    }
  }

  /** Connections open now, from every address. */
  public long open() {
    return open.values().stream().mapToLong(AtomicInteger::get).sum();
  }

  /** Connections refused since start for being over their address's limit. */
  public long refused() {
    return refused.get();
  }

  private static InetAddress address(SocketAddress remote) {
    return remote instanceof InetSocketAddress ? ((InetSocketAddress) remote).getAddress() : null;
  }
}
