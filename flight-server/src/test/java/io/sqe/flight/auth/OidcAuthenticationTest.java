package io.sqe.flight.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import io.sqe.flight.config.ConfigLoader;
import io.sqe.flight.config.ServerConfig.OidcSettings;
import io.sqe.flight.testing.TestServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQE in OIDC mode against a real OpenID Connect provider on loopback (mock-oauth2-server):
 * discovery, JWKS, password grant, and every way a token can be wrong. Tokens are issued by the
 * provider, or signed in the test with the provider's own key where a test needs a claim the
 * provider will not set.
 */
class OidcAuthenticationTest {
  private static final String ISSUER_ID = "idp";
  private static final String AUDIENCE = "sqe";

  private static RotatingKeys keys;
  private static MockOAuth2Server idp;
  private static String issuer;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TestServer server;

  /** The provider's signing key, which a test can replace by one with a new key id. */
  static final class RotatingKeys extends KeyProvider {
    private volatile RSAKey key = newKey("key-1");

    @Override
    public JWK signingKey(String issuerId) {
      return key;
    }

    RSAKey current() {
      return key;
    }

    void rotate(String keyId) {
      key = newKey(keyId);
    }
  }

  @BeforeAll
  static void startProvider() {
    keys = new RotatingKeys();
    OAuth2Config config = new OAuth2Config(false, null, null, false, new OAuth2TokenProvider(keys), java.util.Set.of(),
        new no.nav.security.mock.oauth2.http.MockWebServerWrapper());
    idp = new MockOAuth2Server(config);
    idp.start(InetAddress.getLoopbackAddress(), 0);
    issuer = idp.issuerUrl(ISSUER_ID).toString();
  }

  @AfterAll
  static void stopProvider() {
    idp.shutdown();
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (server != null) {
      server.close();
    }
    allocator.close();
  }

  private TestServer start(Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>();
    settings.put("auth.oidc.issuer", issuer);
    settings.put("auth.oidc.audience", AUDIENCE);
    settings.put("auth.oidc.role-claims", "groups,realm_access.roles");
    settings.put("auth.oidc.jwks-min-refresh", "1s");
    settings.putAll(extra);
    server = TestServer.start(dir.resolve("sqe"), settings);
    return server;
  }

  @Test
  void aValidProviderTokenRunsQueriesAsItsUser() throws Exception {
    start(Map.of());
    String token = token(claims -> {}, keys.current());
    assertThat(currentUser(token)).isEqualTo("alice");
    // The Flight SQL JDBC driver with token=.
    try (Connection connection =
            DriverManager.getConnection("jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=false&token=" + token);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT current_user")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getString(1)).isEqualTo("alice");
    }
  }

  @Test
  void aTokenTheProviderIssuedIsAccepted() throws Exception {
    start(Map.of("auth.oidc.user-claim", "sub"));
    String token = idp.issueToken(ISSUER_ID, "dave", AUDIENCE, Map.of("groups", List.of("analysts")), 600).serialize();
    assertThat(currentUser(token)).isEqualTo("dave");
  }

  @Test
  void everyKindOfBadTokenIsUnauthenticated() throws Exception {
    start(Map.of());
    Instant now = Instant.now();
    RSAKey stranger = newKey("key-1"); // the provider's key id, another key
    RSAKey unknownKid = newKey("never-published");
    String valid = token(claims -> {}, keys.current());
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("expired", token(c -> c.expirationTime(Date.from(now.minusSeconds(120))), keys.current()));
    bad.put("not yet valid", token(c -> c.notBeforeTime(Date.from(now.plusSeconds(600))), keys.current()));
    bad.put("wrong issuer", token(c -> c.issuer(issuer + "-other"), keys.current()));
    bad.put("wrong audience", token(c -> c.audience("someone-else"), keys.current()));
    bad.put("no expiry", token(c -> c.expirationTime(null), keys.current()));
    bad.put("signed by another key with the same kid", token(c -> {}, stranger));
    bad.put("unknown kid", token(c -> {}, unknownKid));
    bad.put("alg none", new PlainJWT(claims(c -> {}).build()).serialize());
    bad.put("HMAC keyed with the public key", hmacWithPublicKey());
    bad.put("tampered payload", tamper(valid));
    bad.put("not a JWT", "not-a-jwt");
    for (Map.Entry<String, String> entry : bad.entrySet()) {
      assertThatThrownBy(() -> currentUser(entry.getValue()))
          .as(entry.getKey())
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
            assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHENTICATED.code());
            assertThat(e.getMessage()).doesNotContain(entry.getValue());
          });
    }
    // None of that disturbed the good token.
    assertThat(currentUser(valid)).isEqualTo("alice");
  }

  @Test
  void keysRotateWithoutARestart() throws Exception {
    start(Map.of());
    RSAKey first = keys.current();
    assertThat(currentUser(token(c -> {}, first))).isEqualTo("alice");
    keys.rotate("key-2");
    try {
      Thread.sleep(1_100); // past the least time between two key fetches (1 s here)
      String afterRotation = token(c -> c.subject("bob").claim("preferred_username", "bob"), keys.current());
      assertThat(currentUser(afterRotation)).isEqualTo("bob");
      // The provider no longer publishes the first key: new tokens signed with it are refused.
      Thread.sleep(1_100);
      String withRetiredKey = token(c -> c.subject("mallory").claim("preferred_username", "mallory"), first);
      assertThatThrownBy(() -> currentUser(withRetiredKey))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHENTICATED.code()));
    } finally {
      keys.rotate("key-1");
    }
  }

  @Test
  void basicCredentialsAreExchangedAtTheProvider() throws Exception {
    // The provider here sets the audience from the scopes asked for, as Azure AD does.
    start(Map.of("auth.oidc.client-id", "sqe-client", "auth.oidc.client-secret", "client-secret",
        "auth.oidc.user-claim", "sub", "auth.oidc.scopes", "openid,sqe"));
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build()) {
      CredentialCallOption auth = flight.authenticateBasicToken("carol", "carol's password").orElseThrow();
      try (FlightSqlClient sql = new FlightSqlClient(flight)) {
        assertThat(query(sql, auth, "SELECT current_user")).isEqualTo("carol");
      }
    }
    // The JDBC driver logs in the same way with user= and password=.
    try (Connection connection =
            DriverManager.getConnection(
                "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=false", "erin", "erin's password");
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT current_user")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getString(1)).isEqualTo("erin");
    }
  }

  @Test
  void anUnreachableProviderIsUnavailableNotAHang() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String deadIssuer = "http://127.0.0.1:" + closedPort + "/" + ISSUER_ID;
    start(Map.of("auth.oidc.issuer", deadIssuer, "auth.oidc.client-id", "sqe-client"));
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build()) {
      assertThatThrownBy(() -> flight.authenticateBasicToken("carol", "secret"))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code()));
    }
    String token = token(c -> c.issuer(deadIssuer), keys.current());
    assertThatThrownBy(() -> currentUser(token))
        .isInstanceOfSatisfying(FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code()));
  }

  @Test
  void localUsersKeepWorkingNextToTheProvider() throws Exception {
    start(Map.of());
    try (TestServer.Client admin = server.client(allocator)) {
      assertThat(query(admin.sql(), admin.auth(), "SELECT current_user")).isEqualTo(TestServer.ADMIN);
    }
  }

  @Test
  void rolesComeFromTheConfiguredClaimsNestedOrNot() throws Exception {
    OidcSettings settings =
        ConfigLoader.fromSettings(
                Map.of(
                    "data-dir", dir.toString(),
                    "auth.oidc.issuer", issuer,
                    "auth.oidc.audience", AUDIENCE,
                    "auth.oidc.role-claims", "groups,realm_access.roles"))
            .auth()
            .oidc();
    OidcProvider provider = new OidcProvider(settings, Clock.systemUTC());
    String token =
        token(c -> c.claim("groups", List.of("analysts", "finance")).claim("realm_access", Map.of("roles", List.of("admin"))),
            keys.current());
    OidcProvider.Identity identity = provider.verify(token);
    assertThat(identity.principal().user()).isEqualTo("alice");
    assertThat(identity.principal().roles()).containsExactlyInAnyOrder("analysts", "finance", "admin");
  }

  private String currentUser(String token) throws Exception {
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      return query(sql, new CredentialCallOption(new BearerCredentialWriter(token)), "SELECT current_user");
    }
  }

  private static String query(FlightSqlClient sql, CallOption auth, String statement) throws Exception {
    FlightInfo info = sql.execute(statement, auth);
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      assertThat(stream.next()).isTrue();
      return new String(((VarCharVector) stream.getRoot().getVector(0)).get(0), StandardCharsets.UTF_8);
    }
  }

  private static JWTClaimsSet.Builder claims(Consumer<JWTClaimsSet.Builder> tweak) {
    Instant now = Instant.now();
    JWTClaimsSet.Builder claims =
        new JWTClaimsSet.Builder()
            .issuer(issuer)
            .audience(AUDIENCE)
            .subject("alice")
            .claim("preferred_username", "alice")
            .claim("groups", List.of("analysts"))
            .issueTime(Date.from(now))
            .expirationTime(Date.from(now.plusSeconds(300)));
    tweak.accept(claims);
    return claims;
  }

  private static String token(Consumer<JWTClaimsSet.Builder> tweak, RSAKey key) throws JOSEException {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(),
            claims(tweak).build());
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  private static String hmacWithPublicKey() throws JOSEException {
    RSAKey key = keys.current();
    SignedJWT jwt =
        new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID(key.getKeyID()).build(), claims(c -> {}).build());
    jwt.sign(new MACSigner(key.toRSAPublicKey().getEncoded()));
    return jwt.serialize();
  }

  /** The same signature over a payload that says the bearer is admin. */
  private static String tamper(String token) {
    String[] parts = token.split("\\.");
    String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
        .replace("\"alice\"", "\"admin\"");
    return parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8))
        + "." + parts[2];
  }

  private static RSAKey newKey(String keyId) {
    try {
      return new RSAKeyGenerator(2048).keyID(keyId).algorithm(JWSAlgorithm.RS256).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }
}
