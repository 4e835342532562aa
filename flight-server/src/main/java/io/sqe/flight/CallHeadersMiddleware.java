package io.sqe.flight;

import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/** Keeps the headers of the current call so the producer can read them. */
final class CallHeadersMiddleware implements FlightServerMiddleware {
  static final FlightServerMiddleware.Key<CallHeadersMiddleware> KEY = FlightServerMiddleware.Key.of("sqe-call-headers");

  private final CallHeaders headers;

  private CallHeadersMiddleware(CallHeaders headers) {
    this.headers = headers;
  }

  CallHeaders headers() {
    return headers;
  }

  @Override
  public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

  @Override
  public void onCallCompleted(CallStatus status) {}

  @Override
  public void onCallErrored(Throwable err) {}

  static final class Factory implements FlightServerMiddleware.Factory<CallHeadersMiddleware> {
    @Override
    public CallHeadersMiddleware onCallStarted(CallInfo info, CallHeaders incomingHeaders, RequestContext context) {
      return new CallHeadersMiddleware(incomingHeaders);
    }
  }
}
