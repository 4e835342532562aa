package io.sqe.flight.auth;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.nimbusds.jwt.proc.ExpiredJWTException;
import io.sqe.engine.session.Principal;
import io.sqe.flight.auth.InvalidTokenException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues and verifies the server's own bearer tokens: ES256-signed JWTs.
 *
 * <p>The keys live in a JWK set file (private parts included, mode 0600) that is generated on first
 * start and read on later ones, so tokens survive a restart and any server given the same file
 * accepts them. Tokens are signed with the newest key (largest {@code iat} of the JWK; kid = its
 * RFC 7638 thumbprint) and verified against every key in the file, which lets an operator rotate by
 * adding a key and removing the old one once the token lifetime has passed.
 *
 * <p>Claims: {@code iss} (configured), {@code aud} = {@value #AUDIENCE}, {@code sub} = user, {@code
 * roles}, {@code iat}, {@code exp}, {@code jti}, and {@code uid}, the user's id in the user store
 * when the user has one. Verification accepts ES256 only, requires all of them but {@code uid},
 * matches issuer and audience exactly and allows {@value #MAX_CLOCK_SKEW_SECONDS} s of clock skew.
 */
public final class TokenService {
  public static final String DEFAULT_ISSUER = "sqe";
  public static final String AUDIENCE = "sqe";
  public static final Duration DEFAULT_LIFETIME = Duration.ofHours(1);
  public static final String ROLES_CLAIM = "roles";
  public static final String USER_ID_CLAIM = "uid";
  /** The SQE server that holds the SQL transaction the token's client has open there; absent when none. */
  public static final String TRANSACTION_SERVER_CLAIM = "txn";
  static final int MAX_CLOCK_SKEW_SECONDS = 30;
  // Our tokens are ~400 characters; anything far larger is not ours and not worth parsing.
  private static final int MAX_TOKEN_LENGTH = 8 * 1024;
  private static final int VERIFIED_TOKENS = 10_000;
  private static final Set<String> REQUIRED_CLAIMS =
      Set.of("iss", "aud", "sub", "iat", "exp", "jti", ROLES_CLAIM);

  private static final Logger log = LoggerFactory.getLogger(TokenService.class);

  private final String issuer;
  private final Duration lifetime;
  private final Clock clock;
  private final JWSSigner signer;
  private final JWSHeader header;
  private final ConfigurableJWTProcessor<SecurityContext> processor;
  private final HandleKeys handleKeys;
  /**
   * Tokens verified already, by their SHA-256 digest, until they expire: a client sends its token
   * with every call, and an ES256 verification costs about 4 ms of CPU on a small machine (two
   * calls per query, GetFlightInfo and DoGet). A token's claims and signature never change, so only
   * its expiry is checked again.
   */
  private final Cache<String, Verified> verified =
      Caffeine.newBuilder().maximumSize(VERIFIED_TOKENS).expireAfterWrite(Duration.ofMinutes(10)).build();

  /** A verified token's principal and user id, and the instant from which the processor would call it expired. */
  private record Verified(VerifiedToken token, Instant expiredFrom) {}

  /**
   * What a verified token says: the principal, the id of the user it was issued to (null when the
   * token names none), the token's id (its {@code jti}, which {@link #rebind} keeps), and the
   * server holding its client's open SQL transaction (null when none).
   */
  public record VerifiedToken(Principal principal, String userId, String tokenId, String transactionServer) {
    public VerifiedToken {
      requireNonNull(principal, "principal is null");
    }
  }

  private TokenService(String issuer, Duration lifetime, Clock clock, JWKSet keys)
      throws JOSEException {
    this.issuer = issuer;
    this.lifetime = lifetime;
    this.clock = clock;
    ECKey signingKey = newest(keys);
    this.signer = new ECDSASigner(signingKey);
    this.header =
        new JWSHeader.Builder(JWSAlgorithm.ES256)
            .type(JOSEObjectType.JWT)
            .keyID(signingKey.getKeyID())
            .build();

    DefaultJWTClaimsVerifier<SecurityContext> claimsVerifier =
        new DefaultJWTClaimsVerifier<>(
            Set.of(AUDIENCE),
            new JWTClaimsSet.Builder().issuer(issuer).build(),
            REQUIRED_CLAIMS,
            null) {
          @Override
          protected Date currentTime() {
            return Date.from(clock.instant());
          }
        };
    claimsVerifier.setMaxClockSkew(MAX_CLOCK_SKEW_SECONDS);
    DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
    processor.setJWSKeySelector(
        new JWSVerificationKeySelector<>(
            JWSAlgorithm.ES256, new ImmutableJWKSet<>(keys.toPublicJWKSet())));
    processor.setJWTClaimsSetVerifier(claimsVerifier);
    this.processor = processor;
    this.handleKeys = HandleKeys.derive(
        keys.getKeys().stream().map(key -> (ECKey) key).toList(), signingKey);
  }

  /** The keys that sign statement handles, derived from this service's signing keys. */
  public HandleKeys handleKeys() {
    return handleKeys;
  }

  /** Opens the service on a key file with the system clock. */
  public static TokenService open(Path keyFile, String issuer, Duration lifetime)
      throws IOException {
    return open(keyFile, issuer, lifetime, Clock.systemUTC());
  }

  /**
   * Opens the service on a key file, generating a new P-256 key there (mode 0600) when the file
   * does not exist. The clock decides {@code iat}/{@code exp} of new tokens and what counts as
   * expired.
   */
  public static TokenService open(Path keyFile, String issuer, Duration lifetime, Clock clock)
      throws IOException {
    requireNonNull(keyFile, "keyFile is null");
    requireNonNull(issuer, "issuer is null");
    requireNonNull(lifetime, "lifetime is null");
    requireNonNull(clock, "clock is null");
    checkArgument(!issuer.isBlank(), "Token issuer is blank");
    checkLifetime(lifetime);
    Path file = keyFile.toAbsolutePath();
    PrivateFiles.createDirectories(file.getParent());
    try {
      JWKSet keys = Files.exists(file) ? read(file) : createKeyFile(file, clock);
      return new TokenService(issuer, lifetime, clock, keys);
    } catch (JOSEException e) {
      throw new IOException("Cannot use the token signing key in " + file, e);
    }
  }

  static void checkLifetime(Duration lifetime) {
    checkArgument(
        lifetime.compareTo(Duration.ofSeconds(1)) >= 0,
        "Invalid token lifetime: %s (minimum 1 second)",
        lifetime);
  }

  /**
   * A signed token for this principal, valid for the configured lifetime from now.
   *
   * @param userId the user's id in the user store, so that the token works for no later user of
   *     the same name; null for a user without one
   */
  public String issue(Principal principal, String userId) {
    requireNonNull(principal, "principal is null");
    // JWT times have whole seconds; truncating keeps exp - iat equal to the lifetime.
    Instant now = Instant.ofEpochSecond(clock.instant().getEpochSecond());
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(issuer)
            .audience(AUDIENCE)
            .subject(principal.user())
            .claim(ROLES_CLAIM, List.copyOf(new TreeSet<>(principal.roles())))
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plusSeconds(lifetime.toSeconds())))
            .jwtID(UUID.randomUUID().toString())
            .claim(USER_ID_CLAIM, userId)
            .build();
    return sign(claims);
  }

  /**
   * The same token (subject, roles, user id, token id, issue and expiry times) naming {@code
   * transactionServer} as the server that holds its client's open SQL transaction, or naming none
   * when it is null: servers then refuse the client's statements but on that server, rather than
   * run them outside the transaction. {@code token} must be one this service verified.
   */
  public String rebind(String token, String transactionServer) throws InvalidTokenException {
    check(token);
    JWTClaimsSet claims;
    try {
      claims = JWTParser.parse(token).getJWTClaimsSet();
    } catch (ParseException e) {
      throw new InvalidTokenException(Reason.MALFORMED, e);
    }
    return sign(new JWTClaimsSet.Builder(claims).claim(TRANSACTION_SERVER_CLAIM, transactionServer).build());
  }

  private String sign(JWTClaimsSet claims) {
    SignedJWT jwt = new SignedJWT(header, claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("Cannot sign token", e);
    }
    return jwt.serialize();
  }

  /** The principal a token was issued for, if it is one of ours, unaltered and not expired. */
  public Principal verify(String token) throws InvalidTokenException {
    return check(token).principal();
  }

  /** The principal and user id a token was issued for, if it is one of ours, unaltered and not expired. */
  public VerifiedToken check(String token) throws InvalidTokenException {
    requireNonNull(token, "token is null");
    if (token.isEmpty() || token.length() > MAX_TOKEN_LENGTH) {
      throw new InvalidTokenException(Reason.MALFORMED, null);
    }
    String key = digest(token);
    Verified known = verified.getIfPresent(key);
    if (known != null) {
      if (clock.instant().isBefore(known.expiredFrom())) {
        return known.token();
      }
      verified.invalidate(key);
    }
    JWT jwt;
    try {
      jwt = JWTParser.parse(token);
      // The processor reports an unparsable payload as a claims failure; keep it apart.
      jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      throw new InvalidTokenException(Reason.MALFORMED, e);
    }
    JWTClaimsSet claims;
    try {
      claims = processor.process(jwt, null);
    } catch (ExpiredJWTException e) {
      throw new InvalidTokenException(Reason.EXPIRED, e);
    } catch (BadJWTException e) {
      throw new InvalidTokenException(Reason.CLAIMS, e);
    } catch (BadJOSEException | JOSEException e) {
      throw new InvalidTokenException(Reason.SIGNATURE, e);
    }
    try {
      List<String> roles = claims.getStringListClaim(ROLES_CLAIM);
      String userId = claims.getStringClaim(USER_ID_CLAIM);
      if (claims.getSubject().isBlank() || roles == null || roles.contains(null)) {
        throw new InvalidTokenException(Reason.CLAIMS, null);
      }
      VerifiedToken result = new VerifiedToken(
          new Principal(claims.getSubject(), Set.copyOf(roles)), userId, claims.getJWTID(),
          claims.getStringClaim(TRANSACTION_SERVER_CLAIM));
      // As the claims verifier decides: expired once exp + the clock skew is not after now.
      Instant expiredFrom = claims.getExpirationTime().toInstant().plusSeconds(MAX_CLOCK_SKEW_SECONDS);
      verified.put(key, new Verified(result, expiredFrom));
      return result;
    } catch (ParseException e) {
      throw new InvalidTokenException(Reason.CLAIMS, e);
    }
  }

  /** The SHA-256 digest of a token, URL-safe Base64: how caches of verified tokens key them without keeping them. */
  static String digest(String token) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The issuer claim of this service's tokens. */
  public String issuer() {
    return issuer;
  }

  /** The configured token lifetime. */
  public Duration lifetime() {
    return lifetime;
  }

  private static JWKSet read(Path file) throws IOException {
    PrivateFiles.warnIfShared(file, log);
    JWKSet keys;
    try {
      keys = JWKSet.parse(Files.readString(file, UTF_8));
    } catch (ParseException e) {
      // Nimbus parse messages describe the structure only, never key material.
      throw new IOException("Invalid signing key file " + file + ": " + e.getMessage(), e);
    }
    if (keys.isEmpty()) {
      throw new IOException("Invalid signing key file " + file + ": no keys");
    }
    Set<String> keyIds = new HashSet<>();
    for (JWK key : keys.getKeys()) {
      String problem = null;
      if (!(key instanceof ECKey ec) || !Curve.P_256.equals(ec.getCurve())) {
        problem = "only EC P-256 keys are supported";
      } else if (key.getKeyID() == null || !keyIds.add(key.getKeyID())) {
        problem = "every key needs a unique kid";
      } else if (key.getAlgorithm() != null && !JWSAlgorithm.ES256.equals(key.getAlgorithm())) {
        problem = "alg must be ES256";
      } else if (key.getKeyUse() != null && !KeyUse.SIGNATURE.equals(key.getKeyUse())) {
        problem = "use must be sig";
      }
      if (problem != null) {
        throw new IOException(
            "Invalid signing key file " + file + " (key " + key.getKeyID() + "): " + problem);
      }
    }
    if (!newest(keys).isPrivate()) {
      throw new IOException(
          "Invalid signing key file " + file + ": the newest key has no private part");
    }
    return keys;
  }

  private static JWKSet createKeyFile(Path file, Clock clock) throws IOException, JOSEException {
    ECKey key =
        new ECKeyGenerator(Curve.P_256)
            .keyUse(KeyUse.SIGNATURE)
            .algorithm(JWSAlgorithm.ES256)
            .keyIDFromThumbprint(true)
            .issueTime(Date.from(clock.instant()))
            .generate();
    JWKSet keys = new JWKSet(key);
    byte[] content = keys.toString(false).getBytes(UTF_8);
    if (!PrivateFiles.createIfAbsent(file, content)) {
      // Another server on the same directory won the race; use its key so tokens agree.
      return read(file);
    }
    log.info("Generated token signing key {} in {}", key.getKeyID(), file);
    return keys;
  }

  // Keys without iat count as oldest; on a tie the later key in the file wins.
  private static ECKey newest(JWKSet keys) {
    List<JWK> ordered = new ArrayList<>(keys.getKeys());
    Comparator<JWK> byIssueTime =
        Comparator.comparing(
            key -> key.getIssueTime() == null ? Instant.MIN : key.getIssueTime().toInstant());
    JWK newest = ordered.get(0);
    for (JWK key : ordered) {
      if (byIssueTime.compare(key, newest) >= 0) {
        newest = key;
      }
    }
    return (ECKey) newest;
  }
}
