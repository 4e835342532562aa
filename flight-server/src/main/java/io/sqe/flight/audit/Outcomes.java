package io.sqe.flight.audit;

import io.grpc.StatusRuntimeException;
import io.sqe.engine.SqeException;
import org.apache.arrow.flight.FlightRuntimeException;

/** The outcome an audit line gives a failure: the engine's error code, and the client's message. */
public final class Outcomes {
  private static final int MAX_MESSAGE_LENGTH = 1_000;

  private Outcomes() {}

  public static String code(Throwable error) {
    SqeException engine = engineError(error);
    if (engine != null) {
      return engine.code().name();
    }
    if (error instanceof FlightRuntimeException) {
      switch (((FlightRuntimeException) error).status().code()) {
        case UNAUTHORIZED:
          return "PERMISSION_DENIED";
        case TIMED_OUT:
          return "DEADLINE_EXCEEDED";
        case UNIMPLEMENTED:
          return "NOT_SUPPORTED";
        default:
          return ((FlightRuntimeException) error).status().code().name();
      }
    }
    if (error instanceof StatusRuntimeException) {
      return ((StatusRuntimeException) error).getStatus().getCode().name();
    }
    return "INTERNAL";
  }

  /** What the client was told; never a stack trace, and cut to a bounded length. */
  static String message(Throwable error) {
    String message;
    SqeException engine = engineError(error);
    if (engine != null) {
      message = engine.clientMessage();
    } else if (error instanceof FlightRuntimeException) {
      message = ((FlightRuntimeException) error).status().description();
    } else if (error instanceof StatusRuntimeException) {
      message = ((StatusRuntimeException) error).getStatus().getDescription();
    } else {
      message = "internal error";
    }
    if (message == null) {
      return "";
    }
    return message.length() > MAX_MESSAGE_LENGTH ? message.substring(0, MAX_MESSAGE_LENGTH) + "..." : message;
  }

  private static SqeException engineError(Throwable error) {
    Throwable current = error;
    for (int depth = 0; current != null && depth < 10; depth++) {
      if (current instanceof SqeException) {
        return (SqeException) current;
      }
      Throwable next = current.getCause();
      if (next == null && current instanceof FlightRuntimeException) {
        next = ((FlightRuntimeException) current).status().cause();
      }
      current = next;
    }
    return null;
  }
}
