package io.sqe.flight.testing;

import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightMethod;

/**
 * Keeps SQE's {@code x-sqe-*} trailers of a client's last DoGet and last DoPut, as Flight's client
 * middleware sees them. Install it with {@code FlightClient.builder(...).intercept(capture)}.
 */
public final class TrailerCapture implements FlightClientMiddleware.Factory {
  private volatile Map<String, String> last = Map.of();
  private volatile Map<String, String> lastPut = Map.of();

  /** The trailers of the last DoGet that completed; empty before the first. */
  public Map<String, String> lastDoGet() {
    return last;
  }

  /** The trailers of the last DoPut (an update) that completed; empty before the first. */
  public Map<String, String> lastDoPut() {
    return lastPut;
  }

  @Override
  public FlightClientMiddleware onCallStarted(CallInfo info) {
    return new FlightClientMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

      @Override
      public void onHeadersReceived(CallHeaders incomingHeaders) {}

      @Override
      public void onCallCompleted(CallStatus status) {
        if ((info.method() != FlightMethod.DO_GET && info.method() != FlightMethod.DO_PUT) || status.metadata() == null) {
          return;
        }
        Map<String, String> values = new HashMap<>();
        for (String key : status.metadata().keys()) {
          if (key.startsWith("x-sqe-")) {
            values.put(key, status.metadata().get(key));
          }
        }
        if (info.method() == FlightMethod.DO_GET) {
          last = values;
        } else {
          lastPut = values;
        }
      }
    };
  }
}
