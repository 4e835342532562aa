package io.sqe.flight.connections;

import static java.util.Objects.requireNonNull;

import io.netty.channel.Channel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The Flight port's server socket: each connection it accepts goes through a {@link
 * ConnectionGuard} before gRPC sets it up, and one over its address's limit is closed at once.
 */
public final class GuardedServerChannel extends NioServerSocketChannel {
  private final ConnectionGuard guard;

  public GuardedServerChannel(ConnectionGuard guard) {
    this.guard = requireNonNull(guard, "guard is null");
  }

  @Override
  protected int doReadMessages(List<Object> buf) throws Exception {
    List<Object> accepted = new ArrayList<>(1);
    int read = super.doReadMessages(accepted);
    for (Object connection : accepted) {
      Channel channel = (Channel) connection;
      if (guard.admit(channel)) {
        buf.add(channel);
      } else {
        channel.unsafe().closeForcibly();
      }
    }
    return read;
  }
}
