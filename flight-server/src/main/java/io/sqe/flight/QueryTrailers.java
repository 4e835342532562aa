package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightConstants;

/**
 * Puts a DoGet's {@link QueryFigures}, and what an update's DoPut reports (a reused
 * materialization), into the call's gRPC trailers. Flight's middleware can only touch headers, so
 * this is a gRPC interceptor: it gives each DoGet and DoPut a {@link Holder}, which the producer
 * finds in the call's gRPC context and fills before the call ends. A DoGet's figures go to the
 * server's metrics as the call ends.
 */
final class QueryTrailers implements ServerInterceptor {
  private static final Context.Key<Holder> HOLDER = Context.key("sqe-query-trailers");
  private static final String DO_GET = FlightConstants.SERVICE + "/DoGet";
  /** An update's DoPut carries what only some statements report (a reused materialization). */
  private static final String DO_PUT = FlightConstants.SERVICE + "/DoPut";

  private final Consumer<QueryFigures> streamed;

  /** @param streamed hears the figures of every DoGet that streamed, as it ends */
  QueryTrailers(Consumer<QueryFigures> streamed) {
    this.streamed = requireNonNull(streamed, "streamed is null");
  }

  /** The current DoGet's holder; a detached one outside a DoGet or without the interceptor. */
  static Holder current() {
    Holder holder = HOLDER.get();
    return holder == null ? new Holder() : holder;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    if (!DO_GET.equals(method) && !DO_PUT.equals(method)) {
      return next.startCall(call, headers);
    }
    Holder holder = new Holder();
    ServerCall<ReqT, RespT> withTrailers =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            holder.writeTo(trailers);
            super.close(status, trailers);
            QueryFigures figures = holder.figures;
            if (figures != null) {
              streamed.accept(figures);
            }
          }
        };
    return Contexts.interceptCall(Context.current().withValue(HOLDER, holder), withTrailers, headers, next);
  }

  /** Where a stream leaves its figures for the trailers. */
  static final class Holder {
    private volatile QueryFigures figures;
    private final Map<String, String> others = new ConcurrentHashMap<>();

    void set(QueryFigures figures) {
      this.figures = figures;
    }

    /** Adds trailer {@code key}; characters outside printable ASCII, which trailers cannot carry, become {@code ?}. */
    void put(String key, String value) {
      others.put(key, value.replaceAll("[^\\x20-\\x7e]", "?"));
    }

    /** The figures' trailers, then the others, which win where both have a key (a count's DoGet says where its write ran). */
    void writeTo(Metadata trailers) {
      QueryFigures current = figures;
      if (current != null) {
        current.trailers().forEach((key, value) -> {
          if (!others.containsKey(key)) {
            trailers.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
          }
        });
      }
      others.forEach((key, value) -> trailers.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value));
    }
  }
}
