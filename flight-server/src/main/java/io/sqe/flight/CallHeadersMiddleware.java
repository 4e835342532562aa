package io.sqe.flight;

import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightMethod;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/**
 * Keeps the headers of the current call so the producer can read them, and gives each connection
 * that logs in its own session cookie.
 *
 * <p>Sessions are keyed by the client's credential, since ADBC keeps no cookies. Connections that
 * share a credential (the JDBC driver with one {@code token=} in a pool) would then share one
 * session, and one connection's {@code schema} or CloseSession would change the others'. So the
 * answer to every Handshake sets a fresh {@value #SESSION_COOKIE} cookie; clients that keep
 * cookies (the JDBC driver does) send it back on every later call of that connection, and it
 * becomes part of the session key.
 */
final class CallHeadersMiddleware implements FlightServerMiddleware {
  static final FlightServerMiddleware.Key<CallHeadersMiddleware> KEY = FlightServerMiddleware.Key.of("sqe-call-headers");
  static final String SESSION_COOKIE = "sqe_session";

  private final CallHeaders headers;
  private final String newSessionId;
  private volatile Consumer<CallHeaders> beforeSendingHeaders;

  private CallHeadersMiddleware(CallHeaders headers, String newSessionId) {
    this.headers = headers;
    this.newSessionId = newSessionId;
  }

  CallHeaders headers() {
    return headers;
  }

  /** The session id of the client's {@value #SESSION_COOKIE} cookie, or null without one. */
  String sessionCookie() {
    Iterable<String> values = headers.getAll("cookie");
    if (values == null) {
      return null;
    }
    for (String value : values) {
      for (String cookie : value.split(";")) {
        int equals = cookie.indexOf('=');
        if (equals > 0 && cookie.substring(0, equals).trim().equals(SESSION_COOKIE)) {
          String id = cookie.substring(equals + 1).trim();
          return id.isEmpty() ? null : id;
        }
      }
    }
    return null;
  }

  /**
   * Has {@code action} add to the headers of this call's answer when they are sent: after the
   * call's work for a unary call (GetFlightInfo), so they can say what it did to the session.
   */
  void beforeSendingHeaders(Consumer<CallHeaders> action) {
    beforeSendingHeaders = action;
  }

  @Override
  public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {
    if (newSessionId != null) {
      outgoingHeaders.insert("set-cookie", SESSION_COOKIE + "=" + newSessionId + "; HttpOnly");
    }
    Consumer<CallHeaders> action = beforeSendingHeaders;
    if (action != null) {
      action.accept(outgoingHeaders);
    }
  }

  @Override
  public void onCallCompleted(CallStatus status) {}

  @Override
  public void onCallErrored(Throwable err) {}

  static final class Factory implements FlightServerMiddleware.Factory<CallHeadersMiddleware> {
    @Override
    public CallHeadersMiddleware onCallStarted(CallInfo info, CallHeaders incomingHeaders, RequestContext context) {
      String newSessionId = info.method() == FlightMethod.HANDSHAKE ? UUID.randomUUID().toString() : null;
      return new CallHeadersMiddleware(incomingHeaders, newSessionId);
    }
  }
}
