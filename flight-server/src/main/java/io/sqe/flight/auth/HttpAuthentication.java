package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * Authenticates the requests of SQE's HTTP endpoints with the same {@link SqeAuthenticator} as
 * Flight calls: {@code Basic} passwords (local users, or the identity provider's password grant)
 * and {@code Bearer} tokens (SQE's own, or the provider's), with the same throttle and audit
 * lines.
 *
 * <p>HTTP clients such as Trino's send their password with every request, where a Flight client
 * logs in once and then presents a token. Checking a password costs hundreds of thousands of
 * PBKDF2 rounds, so a {@code Basic} credential that was accepted is remembered for {@code
 * auth.password-cache-ttl} with the token its login issued; later requests with the same
 * credential present that token, which is checked as any token is (a deleted user's is refused at
 * once). The credential itself is never kept: the cache is keyed by its HMAC under a key made at
 * start.
 */
public final class HttpAuthentication {
  private final SqeAuthenticator authenticator;
  private final ProcessKeyedHash keyedHash = new ProcessKeyedHash();
  /** Remembered logins by their credential's HMAC; null when logins are not remembered. */
  private final Cache<String, String> logins;

  /** @param rememberedLogin how long an accepted password stands for its login, as a token would; zero not at all */
  public HttpAuthentication(SqeAuthenticator authenticator, Duration rememberedLogin) {
    this.authenticator = requireNonNull(authenticator, "authenticator is null");
    this.logins = rememberedLogin.isZero()
        ? null
        : Caffeine.newBuilder().expireAfterWrite(rememberedLogin).maximumSize(10_000).<String, String>build();
  }

  /** An authenticated caller: the principal, and the provider token to pass to the catalog, if any. */
  public record Caller(Principal principal, Optional<String> providerToken) {
    public Caller {
      requireNonNull(principal, "principal is null");
      requireNonNull(providerToken, "providerToken is null");
    }
  }

  /** Credentials that were refused, or could not be checked, and the HTTP status that says so. */
  public static final class Refused extends Exception {
    private final int status;

    Refused(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }

    /** 401 for missing or wrong credentials, 503 when the identity provider cannot be reached. */
    public int status() {
      return status;
    }
  }

  /**
   * Authenticates a request by its {@code Authorization} header.
   *
   * @param authorization the header's value; null when the request has none
   * @param clientAddress the address the request came from, for the login throttle and the audit log
   */
  public Caller authenticate(String authorization, String clientAddress) throws Refused {
    if (authorization == null || authorization.isBlank()) {
      throw new Refused(401, SqeAuthenticator.AUTHENTICATION_REQUIRED);
    }
    String value = authorization.trim();
    if (logins != null && startsWithIgnoreCase(value, Auth2Constants.BASIC_PREFIX)) {
      String key = key(value);
      String remembered = logins.getIfPresent(key);
      if (remembered != null) {
        try {
          return caller(Auth2Constants.BEARER_PREFIX + remembered, clientAddress).caller();
        } catch (Refused e) {
          // The token it issued was refused (the user is gone, the token expired): log in again.
          logins.invalidate(key);
        }
      }
      Authenticated login = caller(value, clientAddress);
      login.issuedToken().ifPresent(token -> logins.put(key, token));
      return login.caller();
    }
    return caller(value, clientAddress).caller();
  }

  private record Authenticated(Caller caller, Optional<String> issuedToken) {}

  private Authenticated caller(String authorization, String clientAddress) throws Refused {
    CallHeaders headers = new FlightCallHeaders();
    headers.insert(Auth2Constants.AUTHORIZATION_HEADER, authorization);
    if (clientAddress != null) {
      headers.insert(SqeAuthenticator.CLIENT_ADDRESS_HEADER, clientAddress);
    }
    try {
      CallHeaderAuthenticator.AuthResult result = authenticator.authenticate(headers);
      CallHeaders outgoing = new FlightCallHeaders();
      result.appendToOutgoingHeaders(outgoing);
      Optional<String> issued = Optional.ofNullable(outgoing.get(Auth2Constants.AUTHORIZATION_HEADER))
          .filter(h -> startsWithIgnoreCase(h, Auth2Constants.BEARER_PREFIX))
          .map(h -> h.substring(Auth2Constants.BEARER_PREFIX.length()).trim());
      String identity = result.getPeerIdentity();
      Principal principal = authenticator.principal(identity);
      // The provider token this identity was verified from: the one presented, or the one a password grant issued.
      CallHeaders presented = headers;
      if (issued.isPresent()) {
        presented = new FlightCallHeaders();
        presented.insert(Auth2Constants.AUTHORIZATION_HEADER, Auth2Constants.BEARER_PREFIX + issued.get());
      }
      return new Authenticated(new Caller(principal, SqeAuthenticator.providerToken(identity, presented)), issued);
    } catch (FlightRuntimeException e) {
      int status = e.status().code() == FlightStatusCode.UNAVAILABLE ? 503 : 401;
      String message = e.status().description();
      throw new Refused(status, message == null || message.isBlank() ? SqeAuthenticator.AUTHENTICATION_REQUIRED : message);
    }
  }

  private String key(String credentials) {
    return HexFormat.of().formatHex(keyedHash.tag(credentials.getBytes(UTF_8)));
  }

  private static boolean startsWithIgnoreCase(String value, String prefix) {
    return value.regionMatches(true, 0, prefix, 0, prefix.length());
  }
}
