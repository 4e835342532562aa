package io.sqe.flight.auth;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.Executor;

/**
 * Tells the authenticator where a call comes from, by replacing the {@value
 * SqeAuthenticator#CLIENT_ADDRESS_HEADER} header with the address of the connection, so a client
 * can neither set nor hide it.
 *
 * <p>Flight's authenticator sees only headers, and Flight installs its middleware as the outermost
 * gRPC interceptor, so no interceptor of ours runs before it. gRPC asks a server's call-executor
 * supplier about every call before any interceptor, with the call's own headers: that is where
 * this runs. It never picks an executor.
 */
public final class ClientAddressHeader implements ServerCallExecutorSupplier {
  private static final Metadata.Key<String> KEY =
      Metadata.Key.of(SqeAuthenticator.CLIENT_ADDRESS_HEADER, Metadata.ASCII_STRING_MARSHALLER);

  @Override
  public <Q, A> Executor getExecutor(ServerCall<Q, A> call, Metadata headers) {
    headers.removeAll(KEY);
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    if (remote instanceof InetSocketAddress) {
      headers.put(KEY, ((InetSocketAddress) remote).getAddress().getHostAddress());
    } else if (remote != null) {
      headers.put(KEY, remote.toString());
    }
    return null;
  }
}
