package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.flight.auth.InvalidTokenException;
import io.sqe.flight.auth.SqeAuthenticator;
import io.sqe.flight.auth.TokenService;
import java.util.Objects;

/**
 * Keeps a client's SQL transaction on the server that holds it, when a load balancer spreads the
 * client's calls over several servers.
 *
 * <p>A SQL {@code BEGIN} opens the transaction in the client session of one server. A client that
 * sends plain statements (ADBC) carries nothing else that names the transaction, so a statement a
 * per-call balancer sent to another server would run there on its own, outside the transaction.
 * So when a call leaves its session with a transaction open, the answer carries the client's token
 * again, re-signed to name this server (Flight clients take a token the server sends back: ADBC's
 * driver and Arrow's Java client do); when the transaction ends, a token naming none. Another
 * server refuses a call with a token naming a server other than itself, saying where the
 * transaction lives. The re-signed token keeps its id, by which sessions know it, so the client
 * keeps its session here. Tokens of an identity provider are left alone: the server cannot
 * re-sign them, and a catalog that takes them passed through needs the provider's own.
 */
final class TransactionBinding {
  private static final String BEARER = "Bearer ";

  private final TokenService tokens;
  private final String serverId;

  TransactionBinding(TokenService tokens, String serverId) {
    this.tokens = requireNonNull(tokens, "tokens is null");
    this.serverId = requireNonNull(serverId, "serverId is null");
  }

  /** What a call's credential says about its client's transaction, read once for the call. */
  Credential credential(String peerIdentity, String authorization) {
    return new Credential(authorization, sqeToken(peerIdentity, authorization));
  }

  /** A call's authorization header, and the SQE token in it if it holds one (null otherwise). */
  final class Credential {
    private final String authorization;
    private final TokenService.VerifiedToken token;

    private Credential(String authorization, TokenService.VerifiedToken token) {
      this.authorization = authorization;
      this.token = token;
    }

    /**
     * Refuses the call when its token names another server as the holder of its client's
     * transaction: FAILED_PRECONDITION naming that server.
     */
    void check() {
      if (token == null || token.transactionServer() == null || token.transactionServer().equals(serverId)) {
        return;
      }
      throw FlightErrors.toFlight(new SqeException(ErrorCode.FAILED_PRECONDITION,
          "This client has a transaction open on SQE server " + token.transactionServer() + ", not on this one (" + serverId
              + "): a transaction's statements, COMMIT and ROLLBACK go to the server that began it. Route a client's calls to "
              + "one server while it has a transaction open (docs/deploy.md, \"Several servers behind one address\"); if that "
              + "server restarted or is gone, the transaction ended with it: connect again"), null);
    }

    /**
     * What identifies the credential in its session's key: the token's id for SQE's tokens, which
     * re-signing keeps; otherwise the header itself.
     */
    String sessionKey() {
      return token == null || token.tokenId() == null ? authorization : "sqe-token:" + token.tokenId();
    }

    /** Whether the token is SQE's own with an id, which {@link #rebound} may re-sign. */
    boolean rebindable() {
      return token != null && token.tokenId() != null;
    }

    /**
     * The authorization header to send back when the token does not say what the session now is
     * (this server holding an open transaction, or none); null when it does or cannot be re-signed.
     */
    String rebound(boolean transactionOpen) {
      String holder = transactionOpen ? serverId : null;
      if (!rebindable() || Objects.equals(token.transactionServer(), holder)) {
        return null;
      }
      try {
        return BEARER + tokens.rebind(authorization.substring(BEARER.length()).trim(), holder);
      } catch (InvalidTokenException e) {
        return null; // expired meanwhile: the client logs in again
      }
    }
  }

  /** The verified SQE token of a bearer header, or null for another credential or a token not SQE's. */
  private TokenService.VerifiedToken sqeToken(String peerIdentity, String authorization) {
    if (SqeAuthenticator.providerIdentity(peerIdentity) || authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return null;
    }
    try {
      // Verified by the authenticator already: a lookup in the cache of verified tokens.
      return tokens.check(authorization.substring(BEARER.length()).trim());
    } catch (InvalidTokenException e) {
      return null; // the authenticator has refused the call already
    }
  }
}
