package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.sqe.engine.session.Principal;
import io.sqe.flight.auth.InvalidTokenException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenServiceTest {
  private static final Principal ALICE = new Principal("alice", Set.of("analyst", "writer"));

  @TempDir Path dir;
  private Path keyFile;
  private TokenService service;

  @BeforeEach
  void setUp() throws IOException {
    keyFile = dir.resolve("state").resolve("signing-keys.jwks");
    service = TokenService.open(keyFile, "sqe", Duration.ofHours(1));
  }

  @Test
  void roundTrip() throws Exception {
    String token = service.issue(ALICE, null);
    assertThat(service.verify(token)).isEqualTo(ALICE);
    assertThat(service.verify(service.issue(Principal.of("bob"), null))).isEqualTo(Principal.of("bob"));
  }

  @Test
  void aReboundTokenIsTheSameTokenNamingTheTransactionsServer() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    TokenService timed = TokenService.open(keyFile, "sqe", Duration.ofMinutes(15), clock);
    String token = timed.issue(ALICE, "u-1");
    clock.advance(Duration.ofMinutes(5));
    String bound = timed.rebind(token, "server-a");
    JWTClaimsSet original = SignedJWT.parse(token).getJWTClaimsSet();
    JWTClaimsSet rebound = SignedJWT.parse(bound).getJWTClaimsSet();
    assertThat(rebound.getClaims())
        .containsAllEntriesOf(original.getClaims())
        .containsEntry("txn", "server-a")
        .hasSize(original.getClaims().size() + 1);
    TokenService.VerifiedToken verified = timed.check(bound);
    assertThat(verified.principal()).isEqualTo(ALICE);
    assertThat(verified.userId()).isEqualTo("u-1");
    assertThat(verified.tokenId()).isEqualTo(original.getJWTID());
    assertThat(verified.transactionServer()).isEqualTo("server-a");
    assertThat(timed.check(token).transactionServer()).isNull();
    // Ended: the claim is gone, nothing else changed.
    assertThat(SignedJWT.parse(timed.rebind(bound, null)).getJWTClaimsSet().getClaims()).isEqualTo(original.getClaims());
    // Rebinding gives no token a longer life, and refuses one that is not ours or has expired.
    clock.advance(Duration.ofMinutes(12));
    assertThatThrownBy(() -> timed.check(bound)).isInstanceOf(InvalidTokenException.class);
    assertThatThrownBy(() -> timed.rebind(token, "server-a")).isInstanceOf(InvalidTokenException.class);
  }

  @Test
  void tokenCarriesTheDocumentedHeaderAndClaims() throws Exception {
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    TokenService timed =
        TokenService.open(keyFile, "sqe-test", Duration.ofMinutes(15), new MutableClock(now));
    SignedJWT jwt = SignedJWT.parse(timed.issue(ALICE, null));

    ECKey key = (ECKey) JWKSet.load(keyFile.toFile()).getKeys().get(0);
    assertThat(jwt.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.ES256);
    assertThat(jwt.getHeader().getKeyID())
        .isEqualTo(key.getKeyID())
        .isEqualTo(key.computeThumbprint().toString());
    JWTClaimsSet claims = jwt.getJWTClaimsSet();
    assertThat(claims.getIssuer()).isEqualTo("sqe-test");
    assertThat(claims.getAudience()).containsExactly("sqe");
    assertThat(claims.getSubject()).isEqualTo("alice");
    assertThat(claims.getStringListClaim("roles")).containsExactly("analyst", "writer");
    assertThat(claims.getIssueTime().toInstant()).isEqualTo(now);
    assertThat(claims.getExpirationTime().toInstant()).isEqualTo(now.plus(Duration.ofMinutes(15)));
    assertThat(claims.getJWTID()).isNotBlank();
    assertThat(SignedJWT.parse(timed.issue(ALICE, null)).getJWTClaimsSet().getJWTID())
        .isNotEqualTo(claims.getJWTID());
  }

  @Test
  void keyFileIsPrivateAndSurvivesRestart() throws Exception {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
        .isEqualTo("rw-------");
    try (var files = Files.list(keyFile.getParent())) {
      assertThat(files).containsExactly(keyFile);
    }
    JWKSet keys = JWKSet.load(keyFile.toFile());
    assertThat(keys.getKeys()).hasSize(1);
    assertThat(keys.containsNonPublicKeys()).isTrue();

    String token = service.issue(ALICE, null);
    byte[] before = Files.readAllBytes(keyFile);
    TokenService restarted = TokenService.open(keyFile, "sqe", Duration.ofHours(1));
    assertThat(Files.readAllBytes(keyFile)).isEqualTo(before);
    assertThat(restarted.verify(token)).isEqualTo(ALICE);
    assertThat(service.verify(restarted.issue(ALICE, null))).isEqualTo(ALICE);
  }

  @Test
  void anotherServerWithACopyOfTheKeyFileAcceptsTokens() throws Exception {
    Path copy = dir.resolve("other").resolve("keys.jwks");
    Files.createDirectories(copy.getParent());
    Files.copy(keyFile, copy);
    TokenService other = TokenService.open(copy, "sqe", Duration.ofHours(1));

    assertThat(other.verify(service.issue(ALICE, null))).isEqualTo(ALICE);
    assertThat(service.verify(other.issue(ALICE, null))).isEqualTo(ALICE);
  }

  @Test
  void serverWithOtherKeysRejectsTokens() throws Exception {
    TokenService other = TokenService.open(dir.resolve("other.jwks"), "sqe", Duration.ofHours(1));
    assertRejected(other.issue(ALICE, null), Reason.SIGNATURE);
  }

  @Test
  void expiredTokensAreRejectedAfterClockSkew() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    TokenService timed = TokenService.open(keyFile, "sqe", Duration.ofMinutes(10), clock);
    String token = timed.issue(ALICE, null);

    clock.advance(Duration.ofMinutes(10).plusSeconds(20));
    assertThat(timed.verify(token)).isEqualTo(ALICE);
    clock.advance(Duration.ofSeconds(20));
    assertRejected(timed, token, Reason.EXPIRED);
    // Issued two hours ago with a one-hour lifetime: expired for the service on the real clock.
    TokenService past =
        TokenService.open(
            keyFile,
            "sqe",
            Duration.ofHours(1),
            new MutableClock(Instant.now().minus(Duration.ofHours(2))));
    assertRejected(past.issue(ALICE, null), Reason.EXPIRED);
  }

  @Test
  void aTokenVerifiedBeforeExpiresAtTheSameInstantAsOneSeenFirst() throws Exception {
    Instant start = Instant.parse("2030-01-01T00:00:00Z");
    MutableClock clock = new MutableClock(start);
    TokenService timed = TokenService.open(keyFile, "sqe", Duration.ofMinutes(10), clock);
    String seen = timed.issue(ALICE, null);
    String unseen = timed.issue(ALICE, null);
    assertThat(timed.verify(seen)).isEqualTo(ALICE);
    // A tampered copy of a verified token is not taken for it, while the token itself is known.
    String[] parts = seen.split("\\.");
    assertRejected(timed, parts[0] + "." + parts[1] + "." + parts[2].substring(1) + "A", Reason.SIGNATURE);

    // exp is start + 10 min; the 30 s of clock skew keep it valid until just before exp + 30 s.
    clock.advance(Duration.ofMinutes(10).plusSeconds(29));
    assertThat(timed.verify(seen)).isEqualTo(ALICE);
    clock.advance(Duration.ofSeconds(1));
    assertRejected(timed, seen, Reason.EXPIRED);
    assertRejected(timed, unseen, Reason.EXPIRED);
  }

  @Test
  void tamperedPayloadIsRejected() throws Exception {
    String token = service.issue(ALICE, null);
    String[] parts = token.split("\\.");

    char[] payload = parts[1].toCharArray();
    int middle = payload.length / 2;
    payload[middle] = payload[middle] == 'A' ? 'B' : 'A';
    assertThat(rejectionOf(parts[0] + "." + new String(payload) + "." + parts[2]))
        .isIn(Reason.SIGNATURE, Reason.MALFORMED);

    String escalated =
        new String(Base64.getUrlDecoder().decode(parts[1]), UTF_8)
            .replace("\"alice\"", "\"admin\"")
            .replace("\"analyst\"", "\"admin\"");
    assertThat(escalated).contains("\"sub\":\"admin\"");
    String forged =
        parts[0]
            + "."
            + Base64.getUrlEncoder().withoutPadding().encodeToString(escalated.getBytes(UTF_8))
            + "."
            + parts[2];
    assertRejected(forged, Reason.SIGNATURE);
  }

  @Test
  void unsignedTokenIsRejected() throws Exception {
    String token = new PlainJWT(validClaims().build()).serialize();
    assertThat(token).endsWith(".");
    assertRejected(token, Reason.SIGNATURE);
  }

  @Test
  void hmacTokensAreRejected() throws Exception {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    assertRejected(signHmac(secret), Reason.SIGNATURE);

    // The classic confusion attack: HMAC keyed with the server's public key.
    byte[] publicKey =
        JWKSet.load(keyFile.toFile())
            .toPublicJWKSet()
            .getKeys()
            .get(0)
            .toJSONString()
            .getBytes(UTF_8);
    assertRejected(signHmac(publicKey), Reason.SIGNATURE);
  }

  @Test
  void tokensSignedWithAnotherKeyAreRejected() throws Exception {
    ECKey foreign = new ECKeyGenerator(Curve.P_256).keyIDFromThumbprint(true).generate();
    assertRejected(sign(foreign, foreign.getKeyID(), validClaims().build()), Reason.SIGNATURE);

    String ourKeyId = serverKey().getKeyID();
    assertRejected(sign(foreign, ourKeyId, validClaims().build()), Reason.SIGNATURE);
  }

  @Test
  void claimsAreChecked() throws Exception {
    assertThat(service.verify(signWithServerKey(validClaims().build()))).isEqualTo(ALICE);

    assertRejected(signWithServerKey(validClaims().issuer("evil").build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().audience("other").build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().audience((String) null).build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().expirationTime(null).build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().subject(null).build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().jwtID(null).build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().claim("roles", null).build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().claim("roles", "admin").build()), Reason.CLAIMS);
    assertRejected(signWithServerKey(validClaims().subject(" ").build()), Reason.CLAIMS);
  }

  @Test
  void wrongIssuerIsRejected() throws Exception {
    TokenService otherIssuer = TokenService.open(keyFile, "not-sqe", Duration.ofHours(1));
    assertRejected(otherIssuer.issue(ALICE, null), Reason.CLAIMS);
    assertRejected(otherIssuer, service.issue(ALICE, null), Reason.CLAIMS);
  }

  @Test
  void garbageIsRejected() {
    assertRejected("", Reason.MALFORMED);
    assertRejected("garbage", Reason.MALFORMED);
    assertRejected("a.b.c", Reason.MALFORMED);
    assertRejected("e30.e30.e30", Reason.MALFORMED);
    assertRejected("x".repeat(100_000), Reason.MALFORMED);
  }

  @Test
  void signsWithTheNewestKeyAndAcceptsAllKeys() throws Exception {
    Instant now = Instant.now();
    ECKey older = es256Key(now.minus(Duration.ofDays(30)));
    ECKey newer = es256Key(now.minus(Duration.ofDays(1)));
    Path rotated = dir.resolve("rotated.jwks");
    Files.writeString(rotated, new JWKSet(List.of(newer, older)).toString(false));
    Files.setPosixFilePermissions(rotated, PosixFilePermissions.fromString("rw-------"));

    TokenService rotatedService = TokenService.open(rotated, "sqe", Duration.ofHours(1));
    assertThat(SignedJWT.parse(rotatedService.issue(ALICE, null)).getHeader().getKeyID())
        .isEqualTo(newer.getKeyID());
    assertThat(rotatedService.verify(sign(older, older.getKeyID(), validClaims().build())))
        .isEqualTo(ALICE);
    assertRejected(
        rotatedService, sign(older, newer.getKeyID(), validClaims().build()), Reason.SIGNATURE);
  }

  @Test
  void rejectsUnusableKeyFiles() throws Exception {
    Path bad = dir.resolve("bad.jwks");
    Files.writeString(bad, "{\"keys\":[]}");
    assertThatThrownBy(() -> TokenService.open(bad, "sqe", Duration.ofHours(1)))
        .isInstanceOf(IOException.class)
        .hasMessage("Invalid signing key file " + bad + ": no keys");

    ECKey publicOnly = es256Key(Instant.now()).toPublicJWK();
    Files.writeString(bad, new JWKSet(publicOnly).toString(false));
    assertThatThrownBy(() -> TokenService.open(bad, "sqe", Duration.ofHours(1)))
        .hasMessage("Invalid signing key file " + bad + ": the newest key has no private part");

    Files.writeString(bad, "not json");
    assertThatThrownBy(() -> TokenService.open(bad, "sqe", Duration.ofHours(1)))
        .hasMessageStartingWith("Invalid signing key file " + bad + ": ");
  }

  @Test
  void rejectsInvalidSettings() {
    assertThatThrownBy(() -> TokenService.open(keyFile, " ", Duration.ofHours(1)))
        .hasMessage("Token issuer is blank");
    assertThatThrownBy(() -> TokenService.open(keyFile, "sqe", Duration.ZERO))
        .hasMessage("Invalid token lifetime: PT0S (minimum 1 second)");
  }

  private void assertRejected(String token, Reason reason) {
    assertRejected(service, token, reason);
  }

  private static void assertRejected(TokenService verifier, String token, Reason reason) {
    assertThatThrownBy(() -> verifier.verify(token))
        .isInstanceOfSatisfying(
            InvalidTokenException.class, e -> assertThat(e.reason()).isEqualTo(reason))
        .satisfies(e -> assertThat(e.getMessage()).isEqualTo(expectedMessage(reason)));
  }

  private static String expectedMessage(Reason reason) {
    return switch (reason) {
      case MALFORMED -> "malformed token";
      case SIGNATURE -> "signature, algorithm or key rejected";
      case EXPIRED -> "token expired";
      case CLAIMS -> "claims rejected";
    };
  }

  private Reason rejectionOf(String token) {
    try {
      service.verify(token);
    } catch (InvalidTokenException e) {
      return e.reason();
    }
    throw new AssertionError("token was accepted");
  }

  private static JWTClaimsSet.Builder validClaims() {
    Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());
    return new JWTClaimsSet.Builder()
        .issuer("sqe")
        .audience("sqe")
        .subject("alice")
        .claim("roles", List.of("analyst", "writer"))
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(Duration.ofMinutes(5))))
        .jwtID("test-jti");
  }

  private ECKey serverKey() throws IOException, ParseException {
    return (ECKey) JWKSet.load(keyFile.toFile()).getKeys().get(0);
  }

  private String signWithServerKey(JWTClaimsSet claims) throws Exception {
    ECKey key = serverKey();
    return sign(key, key.getKeyID(), claims);
  }

  private static String sign(ECKey key, String keyId, JWTClaimsSet claims) throws JOSEException {
    SignedJWT jwt =
        new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(keyId).build(), claims);
    jwt.sign(new ECDSASigner(key));
    return jwt.serialize();
  }

  private String signHmac(byte[] secret) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(serverKey().getKeyID()).build(),
            validClaims().build());
    jwt.sign(new MACSigner(secret));
    return jwt.serialize();
  }

  private static ECKey es256Key(Instant issued) throws JOSEException {
    return new ECKeyGenerator(Curve.P_256)
        .keyUse(KeyUse.SIGNATURE)
        .algorithm(JWSAlgorithm.ES256)
        .keyIDFromThumbprint(true)
        .issueTime(Date.from(issued))
        .generate();
  }
}
