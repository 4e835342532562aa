package io.sqe.flight.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import jakarta.servlet.http.HttpServletRequest;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code catalog.rest.pass-through-token}: with an OpenID Connect provider (mock-oauth2-server on
 * loopback) and a real Iceberg REST catalog, each user's catalog calls carry that user's own
 * token, the catalog's refusal reaches the client as PERMISSION_DENIED, and a table one user
 * loaded does not let another user past the catalog.
 */
class CatalogPassThroughTest {
  private static final String ISSUER_ID = "idp";
  private static final String AUDIENCE = "sqe";

  @TempDir static Path dir;
  static MockOAuth2Server idp;
  static RestCatalogFixture catalog;
  static TestServer server;
  static BufferAllocator allocator;
  static String aliceToken;
  static String bobToken;
  /** Every request the catalog saw: method and path, then its authorization header. */
  static final List<List<String>> requests = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    idp = new MockOAuth2Server();
    idp.start(InetAddress.getLoopbackAddress(), 0);
    catalog = RestCatalogFixture.start(dir.resolve("rest"));
    catalog.backend().createNamespace(Namespace.of("shop"));
    catalog.backend().createTable(
        TableIdentifier.of("shop", "orders"), new Schema(Types.NestedField.optional(1, "id", Types.IntegerType.get())));
    aliceToken = idp.issueToken(ISSUER_ID, "alice", AUDIENCE, Map.of(), 600).serialize();
    bobToken = idp.issueToken(ISSUER_ID, "bob", AUDIENCE, Map.of(), 600).serialize();
    // The catalog's own access control: bob may not load shop.orders.
    catalog.guard(request -> {
      String authorization = request.getHeader("Authorization");
      requests.add(List.of(request.getMethod() + " " + request.getRequestURI(), authorization == null ? "" : authorization));
      return ("Bearer " + bobToken).equals(authorization) && loadsOrders(request) ? 403 : 0;
    });
    Map<String, String> settings = new HashMap<>(catalog.sqeSettings());
    settings.put("auth.oidc.issuer", idp.issuerUrl(ISSUER_ID).toString());
    settings.put("auth.oidc.audience", AUDIENCE);
    settings.put("auth.oidc.user-claim", "sub");
    settings.put("catalog.rest.pass-through-token", "true");
    // A long cache lifetime: a table alice loaded stays cached while bob asks for it.
    settings.put("catalog.cache-ttl", "10m");
    settings.put("audit.file", dir.resolve("audit.jsonl").toString());
    server = TestServer.start(dir.resolve("sqe"), settings);
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
    if (catalog != null) {
      catalog.close();
    }
    if (idp != null) {
      idp.shutdown();
    }
    if (allocator != null) {
      allocator.close();
    }
  }

  private static boolean loadsOrders(HttpServletRequest request) {
    return "GET".equals(request.getMethod()) && request.getRequestURI().endsWith("/namespaces/shop/tables/orders");
  }

  private static long count(String token, String sql) throws Exception {
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
        FlightSqlClient sql_ = new FlightSqlClient(flight)) {
      CallOption auth = new CredentialCallOption(new BearerCredentialWriter(token));
      return ((Number) new TestServer.Client(flight, sql_, auth).rows(sql_.execute(sql, auth)).get(0).get(0)).longValue();
    }
  }

  private static List<String> authorizationsOfLoads() {
    return requests.stream()
        .filter(r -> r.get(0).equals("GET " + "/v1/namespaces/shop/tables/orders") || r.get(0).endsWith("/namespaces/shop/tables/orders"))
        .map(r -> r.get(1))
        .toList();
  }

  @Test
  void eachUsersCatalogCallsCarryTheirOwnTokenAndTheCatalogsRefusalIsPermissionDenied() throws Exception {
    requests.clear();
    assertThat(count(aliceToken, "SELECT count(*) FROM shop.orders")).isZero();
    assertThat(authorizationsOfLoads()).isNotEmpty().allMatch(("Bearer " + aliceToken)::equals);

    // alice's load is cached, but not for bob: the catalog sees his token and refuses.
    requests.clear();
    assertThatThrownBy(() -> count(bobToken, "SELECT count(*) FROM shop.orders"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
          assertThat(e.getMessage()).contains("catalog refused").doesNotContain(bobToken);
        });
    assertThat(authorizationsOfLoads()).isNotEmpty().allMatch(("Bearer " + bobToken)::equals);

    // Still fine for alice, and nobody's token reached a request of another.
    assertThat(count(aliceToken, "SELECT count(*) FROM shop.orders")).isZero();

    // The audit log names both users, their provider logins and bob's refusal, and holds no token.
    Path audit = dir.resolve("audit.jsonl");
    long deadline = System.nanoTime() + 20_000_000_000L;
    String expected = "\"user\":\"bob\",\"client\":\"127.0.0.1\"";
    while (!(java.nio.file.Files.exists(audit) && java.nio.file.Files.readString(audit).contains("\"outcome\":\"PERMISSION_DENIED\"")
        && java.nio.file.Files.readString(audit).contains("\"method\":\"oidc-token\"")) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    String log = java.nio.file.Files.readString(audit);
    assertThat(log).contains(expected).contains("\"user\":\"alice\"").contains("\"method\":\"oidc-token\"")
        .contains("\"outcome\":\"PERMISSION_DENIED\"").doesNotContain(aliceToken).doesNotContain(bobToken);
  }

  @Test
  void writesCommitWithTheWritersToken() throws Exception {
    requests.clear();
    try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption auth = new CredentialCallOption(new BearerCredentialWriter(aliceToken));
      sql.executeUpdate("CREATE TABLE shop.alices (id INT)", auth);
      assertThat(sql.executeUpdate("INSERT INTO shop.alices VALUES (1), (2)", auth)).isEqualTo(2);
    }
    List<List<String>> writes = requests.stream().filter(r -> r.get(0).startsWith("POST ")).toList();
    // The table's creation and the commit of the insert, and nothing without alice's token.
    assertThat(writes).extracting(r -> r.get(0)).anyMatch(path -> path.endsWith("/namespaces/shop/tables"))
        .anyMatch(path -> path.endsWith("/namespaces/shop/tables/alices"));
    assertThat(requests).allMatch(r -> r.get(1).equals("Bearer " + aliceToken));
  }

  @Test
  void localUsersAndTheServerUseTheCatalogsOwnCredentials() throws Exception {
    requests.clear();
    try (TestServer.Client admin = server.client(allocator)) {
      admin.rows(admin.sql().execute("SELECT count(*) FROM shop.orders", admin.auth()));
    }
    assertThat(authorizationsOfLoads()).isNotEmpty().allMatch(String::isEmpty);
  }
}
