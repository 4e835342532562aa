package io.sqe.flight.ops;

import io.sqe.engine.session.Principal;
import java.util.Optional;

/** Logs in a caller of the operations endpoint with the credentials Flight SQL takes. */
@FunctionalInterface
public interface OperatorLogin {
  /**
   * The caller's principal, or empty when the credentials are missing or refused.
   *
   * @param authorization the request's {@code Authorization} header ({@code Basic ...} or {@code
   *     Bearer ...}); null when there is none
   * @param clientAddress the address of the caller's connection, for the failed-login throttle
   */
  Optional<Principal> login(String authorization, String clientAddress);
}
