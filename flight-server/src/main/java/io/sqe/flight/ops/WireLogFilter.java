package io.sqe.flight.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.Marker;

/**
 * Keeps the loggers that write requests as they go over the wire at INFO or above, whatever
 * their level says: at DEBUG, gRPC's Netty frame logger prints every header of every call (a
 * Flight client's {@code authorization: Basic ...} or {@code Bearer ...}), and Apache HttpClient's
 * header and wire loggers print the catalog's and the identity provider's credentials.
 *
 * <p>A turbo filter, so that it holds against any level set at run time ({@code POST
 * /log-level}) or in an operator's logback file, and so that those loggers report DEBUG as
 * disabled: nothing formats the frames at all.
 */
public final class WireLogFilter extends TurboFilter {
  /** Loggers, with everything under them, that print request headers below INFO. */
  static final List<String> WIRE_LOGGERS = List.of(
      "io.grpc.netty",
      "io.netty",
      "org.apache.hc.client5.http.headers",
      "org.apache.hc.client5.http.wire",
      "org.apache.http.headers",
      "org.apache.http.wire");

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level != null && level.toInt() < Level.INFO_INT && isWireLogger(logger.getName())) {
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }

  /** Whether {@code name} is one of {@link #WIRE_LOGGERS} or under one. */
  static boolean isWireLogger(String name) {
    for (String wire : WIRE_LOGGERS) {
      if (name.startsWith(wire) && (name.length() == wire.length() || name.charAt(wire.length()) == '.')) {
        return true;
      }
    }
    return false;
  }
}
