package io.sqe.flight.auth;

import static java.util.Objects.requireNonNull;

/**
 * A bearer token that failed verification. The message names the kind of failure only; it never
 * contains the token, so it is safe to log.
 */
public final class InvalidTokenException extends Exception {
  /** Why a token was rejected. */
  public enum Reason {
    /** Not a compact JWS, or claims that do not parse. */
    MALFORMED("malformed token"),
    /**
     * Unsigned, an algorithm other than ES256, an unknown key, or a signature that does not match.
     */
    SIGNATURE("signature, algorithm or key rejected"),
    /** Past its expiry time, clock skew included. */
    EXPIRED("token expired"),
    /** Wrong issuer or audience, or a required claim missing. */
    CLAIMS("claims rejected");

    private final String description;

    Reason(String description) {
      this.description = description;
    }
  }

  private final Reason reason;

  InvalidTokenException(Reason reason, Throwable cause) {
    super(requireNonNull(reason, "reason is null").description, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
