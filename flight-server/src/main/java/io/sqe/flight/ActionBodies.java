package io.sqe.flight;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.FlightConstants;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsRequest;

/** Reads the messages in Flight action bodies, refusing a body that is not one as INVALID_ARGUMENT. */
final class ActionBodies {
  private ActionBodies() {}

  /**
   * Refuses the body of a session action that is not the message the action takes, as
   * INVALID_ARGUMENT; Flight SQL's dispatch, which reads them, would say INTERNAL.
   */
  static void checkSessionAction(String type, byte[] body) {
    ByteBuffer buffer = ByteBuffer.wrap(body);
    if (type.equals(FlightConstants.SET_SESSION_OPTIONS.getType())) {
      read(type, () -> SetSessionOptionsRequest.deserialize(buffer));
    } else if (type.equals(FlightConstants.GET_SESSION_OPTIONS.getType())) {
      read(type, () -> GetSessionOptionsRequest.deserialize(buffer));
    } else if (type.equals(FlightConstants.CLOSE_SESSION.getType())) {
      read(type, () -> CloseSessionRequest.deserialize(buffer));
    }
  }

  /** A message read from an action's body; INVALID_ARGUMENT when the body is not one. */
  static <T> T read(String type, Body<T> body) {
    try {
      return body.read();
    } catch (IOException | URISyntaxException | RuntimeException e) {
      if (e instanceof FlightRuntimeException) {
        throw (FlightRuntimeException) e;
      }
      throw FlightErrors.invalid("The body of action " + type + " is not the message the action takes: " + e.getMessage());
    }
  }

  @FunctionalInterface
  interface Body<T> {
    T read() throws IOException, URISyntaxException;
  }
}
