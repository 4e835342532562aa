package io.sqe.flight;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.UUID;
import org.apache.arrow.flight.CallStatus;

/**
 * This server's identity in the handles it issues. Each ticket, prepared-statement handle and poll
 * descriptor names the state this server keeps for it by an id carrying this server's id ({@code
 * <server id>.<uuid>}): another server redeems a self-contained handle from what it carries
 * ({@link StatementHandles}), and answers one that is not (a transaction's, one too large) with
 * what happened and what to do, not as if it had expired.
 */
final class IssuingServer {
  private static final char SEPARATOR = '.';
  private final String id;

  IssuingServer() {
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    this.id = HexFormat.of().formatHex(random);
  }

  /** A new id for a query, prepared statement or poll, carrying this server's id. */
  String newId() {
    return id + SEPARATOR + UUID.randomUUID();
  }

  String id() {
    return id;
  }

  /**
   * The error for a handle this server does not hold and cannot redeem: UNAVAILABLE when another
   * server (or this one before a restart) issued it, so the client retries where it belongs or
   * starts over; otherwise NOT_FOUND with {@code notFound}.
   */
  RuntimeException unknown(String handle, String what, String notFound) {
    int separator = handle.indexOf(SEPARATOR);
    String issuer = separator > 0 ? handle.substring(0, separator) : null;
    if (issuer != null && !issuer.equals(id) && issuer.length() == id.length()) {
      return CallStatus.UNAVAILABLE
          .withDescription("This " + what + " was issued by SQE server " + issuer + ", not by this one (" + id + "), or before "
              + "this server restarted; it exists only on the server that issued it. Retry on that server (route a client's "
              + "calls for one statement to one server), or run the statement again")
          .toRuntimeException();
    }
    return CallStatus.NOT_FOUND.withDescription(notFound).toRuntimeException();
  }
}
