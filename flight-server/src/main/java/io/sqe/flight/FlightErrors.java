package io.sqe.flight;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps SQE's error model to Flight statuses; nothing reaches a client as a bare stack trace, and
 * every failure of a statement, an {@link Error} included, becomes a status naming its query.
 */
final class FlightErrors {
  private static final Logger LOG = LoggerFactory.getLogger(FlightErrors.class);

  private FlightErrors() {}

  static RuntimeException toFlight(Throwable error, String queryId) {
    if (error instanceof FlightRuntimeException || error instanceof io.grpc.StatusRuntimeException) {
      return (RuntimeException) error;
    }
    SqeException e = error instanceof SqeException ? (SqeException) error : translate(error, queryId);
    if (e.code() == ErrorCode.FAILED_PRECONDITION) {
      // Flight's Java status codes have no FAILED_PRECONDITION; gRPC's own status travels unchanged.
      return io.grpc.Status.FAILED_PRECONDITION.withDescription(e.clientMessage()).withCause(e).asRuntimeException();
    }
    return status(e.code()).withDescription(e.clientMessage()).withCause(e).toRuntimeException();
  }

  private static SqeException translate(Throwable error, String queryId) {
    if (error instanceof StackOverflowError) {
      // Its thousand frames say nothing the statement does not; one line is enough.
      LOG.warn("Query {} ran out of stack", queryId);
      return new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "Query " + queryId + " nests too deeply to run: the server ran out of stack; simplify the statement",
          error);
    }
    if (error instanceof OutOfMemoryError) {
      LOG.warn("Query {} ran out of heap memory: {}", queryId, error.getMessage());
    }
    return ExecutionErrors.translate(error, queryId);
  }

  static CallStatus status(ErrorCode code) {
    switch (code) {
      case INVALID_ARGUMENT:
      case FAILED_PRECONDITION:
        return CallStatus.INVALID_ARGUMENT;
      case NOT_FOUND:
        return CallStatus.NOT_FOUND;
      case ALREADY_EXISTS:
        return CallStatus.ALREADY_EXISTS;
      case PERMISSION_DENIED:
        return CallStatus.UNAUTHORIZED;
      case UNAUTHENTICATED:
        return CallStatus.UNAUTHENTICATED;
      case RESOURCE_EXHAUSTED:
        return CallStatus.RESOURCE_EXHAUSTED;
      case CANCELLED:
        return CallStatus.CANCELLED;
      case DEADLINE_EXCEEDED:
        return CallStatus.TIMED_OUT;
      case UNAVAILABLE:
        return CallStatus.UNAVAILABLE;
      case NOT_SUPPORTED:
        return CallStatus.UNIMPLEMENTED;
      default:
        return CallStatus.INTERNAL;
    }
  }

  /** A name a client sent outside SQL (a bulk ingest's table); INVALID_ARGUMENT if it holds a NUL, as in SQL. */
  static String name(String what, String name) {
    if (name.indexOf('\0') >= 0) {
      throw invalid("The " + what + " name holds a NUL character (U+0000), which no name may hold");
    }
    return name;
  }

  static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }
}
