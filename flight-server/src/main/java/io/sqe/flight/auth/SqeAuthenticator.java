package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.nimbusds.jwt.SignedJWT;
import io.sqe.engine.session.Principal;
import io.sqe.flight.audit.AuditLog;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightCallHeaders;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.AuthUtilities;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates every Flight call, Handshake included, from its {@code authorization} header.
 *
 * <ul>
 *   <li>{@code Basic base64(user:password)} is checked against the {@link UserStore}; on success
 *       the response carries {@code authorization: Bearer <token>} with a fresh token from the
 *       {@link TokenService}, which the Flight SQL JDBC driver, ADBC and {@code
 *       FlightClient.authenticateBasicToken} use for later calls.
 *   <li>With an OpenID Connect provider that has a password-grant client, {@code Basic}
 *       credentials are instead exchanged at the provider for an access token, which is verified
 *       and returned as the bearer token.
 *   <li>{@code Bearer <token>} is verified by the {@link TokenService} when SQE issued it, else by
 *       the {@link OidcProvider} when one is configured; no new token is sent. A verified provider
 *       token is remembered (by its SHA-256) until it expires, so later calls skip the signature.
 *   <li>Failed logins are counted per user name and per client address by a {@link LoginThrottle}.
 *   <li>Every Basic login, every provider token seen for the first time, and every refused token
 *       is recorded in the {@link AuditLog}, with the user name given but never a password or token.
 *   <li>Anything else fails with {@code UNAUTHENTICATED}. Messages do not say whether a user exists
 *       and never contain a password or token.
 * </ul>
 *
 * <p>The peer identity Flight passes to the producer ({@code CallContext.peerIdentity()}) is the
 * user name. The producer gets the {@link Principal} from {@link #principal(String)}, which reads
 * the user's roles from the store at that moment, so role changes apply to the next call and a
 * token of a deleted user stops working at once (the roles claim in the token is for other
 * consumers), also when a user of the same name is created again: the token names the user's id. For a provider token the peer identity is {@code oidc:} and the token's hash, and the
 * principal (user and roles from the token's claims) comes from the remembered verification.
 */
public final class SqeAuthenticator implements CallHeaderAuthenticator {
  static final String AUTHENTICATION_REQUIRED = "Authentication required";
  static final String INVALID_CREDENTIALS = "Invalid username or password";
  static final String INVALID_TOKEN = "Invalid or expired token";

  // A bound on what we decode and hash; Flight itself does not limit header size by default.
  private static final int MAX_BASIC_CREDENTIALS_LENGTH = 4 * 1024;

  private static final Logger log = LoggerFactory.getLogger(SqeAuthenticator.class);

  static final String TOO_MANY_FAILURES = "Too many failed logins; try again later";
  static final String PROVIDER_UNAVAILABLE = "The identity provider cannot be reached; try again later";

  /** The header {@link ClientAddressHeader} sets to the client's address. */
  public static final String CLIENT_ADDRESS_HEADER = "x-sqe-client-address";

  private static final String OIDC_IDENTITY_PREFIX = "oidc:";

  private final UserStore users;
  private final TokenService tokens;
  private final OidcProvider oidc;
  private final LoginThrottle throttle;
  private final Clock clock;
  private final AuditLog audit;
  private final Cache<String, OidcProvider.Identity> verified =
      Caffeine.newBuilder().maximumSize(100_000).expireAfterWrite(Duration.ofMinutes(10)).build();

  public SqeAuthenticator(UserStore users, TokenService tokens) {
    this(users, tokens, null, new LoginThrottle(5, Duration.ofMinutes(1), Clock.systemUTC()), Clock.systemUTC());
  }

  /**
   * @param oidc the identity provider whose tokens are accepted too; null for local users only
   */
  public SqeAuthenticator(UserStore users, TokenService tokens, OidcProvider oidc, LoginThrottle throttle, Clock clock) {
    this(users, tokens, oidc, throttle, clock, AuditLog.disabled());
  }

  /**
   * @param oidc the identity provider whose tokens are accepted too; null for local users only
   * @param audit where login attempts are recorded
   */
  public SqeAuthenticator(
      UserStore users, TokenService tokens, OidcProvider oidc, LoginThrottle throttle, Clock clock, AuditLog audit) {
    this.audit = requireNonNull(audit, "audit is null");
    this.users = requireNonNull(users, "users is null");
    this.tokens = requireNonNull(tokens, "tokens is null");
    this.oidc = oidc;
    this.throttle = requireNonNull(throttle, "throttle is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    LoginAttempt attempt = new LoginAttempt(clientAddress(headers));
    try {
      AuthResult result = authenticate(headers, attempt);
      attempt.succeeded();
      return result;
    } catch (FlightRuntimeException e) {
      attempt.failed(e);
      throw e;
    }
  }

  private AuthResult authenticate(CallHeaders headers, LoginAttempt attempt) {
    try {
      String header = singleAuthorizationHeader(headers);
      String bearer = AuthUtilities.getValueFromAuthHeader(headers, Auth2Constants.BEARER_PREFIX);
      if (bearer != null) {
        return authenticateBearer(bearer.trim(), attempt);
      }
      String basic = AuthUtilities.getValueFromAuthHeader(headers, Auth2Constants.BASIC_PREFIX);
      if (basic != null) {
        return authenticateBasic(basic.trim(), attempt);
      }
      throw unauthenticated(
          AUTHENTICATION_REQUIRED, header == null ? "no credentials" : "unsupported scheme");
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (RuntimeException e) {
      // Never let an unexpected failure become UNKNOWN with a message built from the input.
      log.warn("Authentication failed unexpectedly: {}", e.getClass().getName());
      throw unauthenticated(AUTHENTICATION_REQUIRED, "internal error");
    }
  }

  /**
   * One call's authentication, recorded as a login when it is one: a Basic login, a provider token
   * verified for the first time, or any refused credentials. Calls with a token already accepted
   * are not logins.
   */
  private final class LoginAttempt {
    private final String client;
    private final Instant start = Instant.now();
    private final long startNanos = System.nanoTime();
    private String user;
    private String method;
    private boolean login;

    LoginAttempt(String client) {
      this.client = client;
    }

    /** What the call tries: {@code login} for a Basic login or a first provider token. */
    void is(String method, String user, boolean login) {
      this.method = method;
      this.user = user;
      this.login = login;
    }

    void succeeded() {
      if (login) {
        audit.login(user, client, method, null, start, System.nanoTime() - startNanos);
      }
    }

    void failed(FlightRuntimeException e) {
      if (method != null) {
        audit.login(user, client, method, e, start, System.nanoTime() - startNanos);
      }
    }
  }

  /**
   * Authenticates credentials that arrive outside Flight, as an HTTP {@code Authorization} header
   * of the operations endpoint, by the same rules, throttle and audit as a Flight call's.
   *
   * @return the caller's principal; empty when the credentials are missing or refused
   */
  public Optional<Principal> login(String authorization, String clientAddress) {
    FlightCallHeaders headers = new FlightCallHeaders();
    if (authorization != null) {
      headers.insert(Auth2Constants.AUTHORIZATION_HEADER, authorization);
    }
    if (clientAddress != null) {
      headers.insert(CLIENT_ADDRESS_HEADER, clientAddress);
    }
    try {
      return Optional.of(principal(authenticate(headers).getPeerIdentity()));
    } catch (FlightRuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The principal of a call, from the peer identity this authenticator gave it; fails with {@code
   * UNAUTHENTICATED} if the user no longer exists.
   */
  public Principal principal(String peerIdentity) {
    requireNonNull(peerIdentity, "peerIdentity is null");
    if (peerIdentity.startsWith(OIDC_IDENTITY_PREFIX)) {
      OidcProvider.Identity identity = verified.getIfPresent(peerIdentity.substring(OIDC_IDENTITY_PREFIX.length()));
      if (identity == null || !current(identity)) {
        throw unauthenticated(INVALID_TOKEN, "token no longer remembered");
      }
      return identity.principal();
    }
    return users
        .principal(peerIdentity)
        .orElseThrow(() -> unauthenticated(AUTHENTICATION_REQUIRED, "user no longer exists"));
  }

  /** Whether a call with this identity (as this authenticator gave it) authenticated with an identity provider's token. */
  public static boolean providerIdentity(String peerIdentity) {
    return peerIdentity != null && peerIdentity.startsWith(OIDC_IDENTITY_PREFIX);
  }

  /**
   * The identity provider's token a call authenticated with, for passing it on to the catalog;
   * empty for local users and SQE's own tokens.
   *
   * @param peerIdentity the identity this authenticator gave the call
   * @param headers the call's headers
   */
  public static Optional<String> providerToken(String peerIdentity, CallHeaders headers) {
    if (headers == null || !providerIdentity(peerIdentity)) {
      return Optional.empty();
    }
    String bearer = AuthUtilities.getValueFromAuthHeader(headers, Auth2Constants.BEARER_PREFIX);
    if (bearer == null) {
      return Optional.empty();
    }
    String token = bearer.trim();
    // The token whose verification gave this identity, and no other.
    return TokenService.digest(token).equals(peerIdentity.substring(OIDC_IDENTITY_PREFIX.length())) ? Optional.of(token) : Optional.empty();
  }

  private AuthResult authenticateBearer(String token, LoginAttempt attempt) {
    if (oidc != null && !tokens.issuer().equals(unverifiedIssuer(token))) {
      attempt.is("oidc-token", null, false);
      return authenticateProviderToken(token, null, attempt);
    }
    attempt.is("token", null, false);
    TokenService.VerifiedToken verified;
    try {
      verified = tokens.check(token);
    } catch (InvalidTokenException e) {
      throw unauthenticated(INVALID_TOKEN, e.getMessage());
    }
    String user = verified.principal().user();
    // A user dropped and created again has a new id: the old user's tokens stay refused.
    Optional<UserStore.Account> account = users.account(user);
    if (account.isEmpty() || !Objects.equals(account.get().id(), verified.userId())) {
      throw unauthenticated(INVALID_TOKEN, "user no longer exists");
    }
    return new Authenticated(user, null);
  }

  /**
   * Accepts a token of the identity provider.
   *
   * @param issued the token to send back to the client (after a password grant); null for none
   */
  private AuthResult authenticateProviderToken(String token, String issued, LoginAttempt attempt) {
    String key = TokenService.digest(token);
    OidcProvider.Identity identity = verified.getIfPresent(key);
    if (identity == null || !current(identity)) {
      if (issued == null) {
        attempt.is("oidc-token", null, true);
      }
      try {
        identity = oidc.verify(token);
      } catch (OidcProvider.RejectedException e) {
        throw unauthenticated(INVALID_TOKEN, "provider token rejected: " + e.getMessage());
      } catch (OidcProvider.UnavailableException e) {
        log.warn("Cannot verify a token of {}: {}", oidc.settings().issuer(), e.getMessage());
        throw CallStatus.UNAVAILABLE.withDescription(PROVIDER_UNAVAILABLE).toRuntimeException();
      }
      verified.put(key, identity);
      if (issued == null) {
        attempt.is("oidc-token", identity.principal().user(), true);
      }
    }
    return new Authenticated(OIDC_IDENTITY_PREFIX + key, issued);
  }

  private boolean current(OidcProvider.Identity identity) {
    return identity.expiresAt().plus(oidc.settings().clockSkew()).isAfter(clock.instant());
  }

  private AuthResult passwordGrant(String user, char[] password, String address, LoginAttempt attempt) {
    String token;
    try {
      token = oidc.passwordGrant(user, password);
    } catch (OidcProvider.RejectedException e) {
      throttle.failed(user, address);
      throw unauthenticated(INVALID_CREDENTIALS, e.getMessage());
    } catch (OidcProvider.UnavailableException e) {
      log.warn("Password grant at {} failed: {}", oidc.settings().issuer(), e.getMessage());
      throw CallStatus.UNAVAILABLE.withDescription(PROVIDER_UNAVAILABLE).toRuntimeException();
    }
    throttle.succeeded(user);
    return authenticateProviderToken(token, token, attempt);
  }

  private AuthResult authenticateBasic(String encoded, LoginAttempt attempt) {
    String address = attempt.client;
    attempt.is(oidc != null && oidc.settings().passwordGrant() ? "oidc-password" : "password", null, true);
    if (encoded.length() > MAX_BASIC_CREDENTIALS_LENGTH) {
      throw unauthenticated(INVALID_CREDENTIALS, "credentials too long");
    }
    byte[] decoded;
    try {
      decoded = Base64.getDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      throw unauthenticated(INVALID_CREDENTIALS, "credentials are not Base64");
    }
    char[] chars = null;
    char[] password = null;
    try {
      chars = decodeUtf8(decoded);
      int colon = indexOf(chars, ':');
      if (colon <= 0) {
        throw unauthenticated(INVALID_CREDENTIALS, "no user name");
      }
      String user = new String(chars, 0, colon);
      attempt.is(attempt.method, user, true);
      password = Arrays.copyOfRange(chars, colon + 1, chars.length);
      if (!throttle.allows(user, address)) {
        throw unauthenticated(TOO_MANY_FAILURES, "throttled");
      }
      if (oidc != null && oidc.settings().passwordGrant()) {
        return passwordGrant(user, password, address, attempt);
      }
      Optional<UserStore.Account> account = users.login(user, password);
      if (account.isEmpty()) {
        throttle.failed(user, address);
        throw unauthenticated(INVALID_CREDENTIALS, "password check failed");
      }
      throttle.succeeded(user);
      return new Authenticated(user, tokens.issue(account.get().principal(), account.get().id()));
    } finally {
      Arrays.fill(decoded, (byte) 0);
      if (chars != null) {
        Arrays.fill(chars, '\0');
      }
      if (password != null) {
        Arrays.fill(password, '\0');
      }
    }
  }

  // Two authorization headers would leave it to the header map which one counts; refuse instead.
  private static String singleAuthorizationHeader(CallHeaders headers) {
    // gRPC's adapter returns null rather than an empty list for an absent header.
    Iterable<String> all = headers.getAll(Auth2Constants.AUTHORIZATION_HEADER);
    Iterator<String> values = all == null ? null : all.iterator();
    if (values == null || !values.hasNext()) {
      return null;
    }
    String value = values.next();
    if (values.hasNext()) {
      throw unauthenticated(AUTHENTICATION_REQUIRED, "more than one authorization header");
    }
    return value;
  }

  private static String clientAddress(CallHeaders headers) {
    return headers.get(CLIENT_ADDRESS_HEADER);
  }

  /** The {@code iss} of a JWT, unverified, only to choose who verifies it; null if it is no JWT. */
  private static String unverifiedIssuer(String token) {
    try {
      return SignedJWT.parse(token).getJWTClaimsSet().getIssuer();
    } catch (ParseException | RuntimeException e) {
      return null;
    }
  }

  private static char[] decodeUtf8(byte[] bytes) {
    CharBuffer buffer;
    try {
      buffer =
          UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes));
    } catch (CharacterCodingException e) {
      throw unauthenticated(INVALID_CREDENTIALS, "credentials are not UTF-8");
    }
    char[] chars = new char[buffer.remaining()];
    buffer.get(chars);
    Arrays.fill(buffer.array(), '\0');
    return chars;
  }

  private static int indexOf(char[] chars, char c) {
    for (int i = 0; i < chars.length; i++) {
      if (chars[i] == c) {
        return i;
      }
    }
    return -1;
  }

  private static FlightRuntimeException unauthenticated(String message, String reason) {
    log.debug("Rejected call: {} ({})", message, reason);
    return CallStatus.UNAUTHENTICATED.withDescription(message).toRuntimeException();
  }

  /** A successful authentication; keeps Object's toString so the token never reaches a log. */
  private static final class Authenticated implements AuthResult {
    private final String user;
    private final String issuedToken;

    Authenticated(String user, String issuedToken) {
      this.user = user;
      this.issuedToken = issuedToken;
    }

    @Override
    public String getPeerIdentity() {
      return user;
    }

    @Override
    public void appendToOutgoingHeaders(CallHeaders outgoingHeaders) {
      if (issuedToken != null) {
        outgoingHeaders.insert(
            Auth2Constants.AUTHORIZATION_HEADER, Auth2Constants.BEARER_PREFIX + issuedToken);
      }
    }
  }
}
