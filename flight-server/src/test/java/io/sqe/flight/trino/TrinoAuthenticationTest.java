package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sqe.flight.auth.UserStore;
import io.sqe.flight.testing.TestCertificates;
import io.sqe.flight.testing.TestServer;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Trino endpoint authenticates as Flight SQL does, through Trino's JDBC driver: SQE's own
 * bearer tokens, an OpenID Connect provider's tokens, passwords (remembered, not checked again for
 * every request, and refused as soon as their user is gone), the audit log's login lines, and
 * client certificates under mutual TLS.
 */
class TrinoAuthenticationTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void sqesOwnTokensAndTheProvidersTokensAreAccepted() throws Exception {
    MockOAuth2Server idp = new MockOAuth2Server();
    idp.start(InetAddress.getLoopbackAddress(), 0);
    try (TrinoFixture trino = TrinoFixture.start(dir, Map.of(
        "auth.oidc.issuer", idp.issuerUrl("idp").toString(), "auth.oidc.audience", "sqe", "auth.oidc.user-claim", "sub"))) {
      UserStore users = trino.server().server().authentication().users();
      String own = trino.server().server().authentication().tokens()
          .issue(users.principal(TestServer.ADMIN).orElseThrow(), users.account(TestServer.ADMIN).orElseThrow().id());
      assertThat(currentUser(trino, own)).isEqualTo(TestServer.ADMIN);

      String providers = idp.issueToken("idp", "dave", "sqe", Map.of(), 600).serialize();
      assertThat(currentUser(trino, providers)).isEqualTo("dave");

      assertThatThrownBy(() -> currentUser(trino, own + "x")).isInstanceOf(SQLException.class)
          .hasMessageContaining("Authentication failed").hasMessageNotContaining(own);
    } finally {
      idp.shutdown();
    }
  }

  @Test
  void aPasswordIsCheckedOnceAndRefusedWhenItsUserIsGone() throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    String carolPassword = "carol-password-1";
    try (TrinoFixture trino = TrinoFixture.start(dir, Map.of("audit.file", audit.toString()))) {
      try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
        statement.executeUpdate("CREATE USER carol PASSWORD '" + carolPassword + "'");
        for (int i = 0; i < 5; i++) {
          try (ResultSet rows = statement.executeQuery("SELECT " + i)) {
            assertThat(rows.next()).isTrue();
          }
        }
      }
      try (Connection carol = trino.connect("carol", carolPassword, Map.of()); Statement statement = carol.createStatement()) {
        try (ResultSet rows = statement.executeQuery("SELECT current_user")) {
          assertThat(rows.next()).isTrue();
          assertThat(rows.getString(1)).isEqualTo("carol");
        }
        try (Connection admin = trino.connect(); Statement drop = admin.createStatement()) {
          drop.executeUpdate("DROP USER carol");
        }
        // The same credentials, remembered a moment ago: their user no longer exists.
        assertThatThrownBy(() -> statement.executeQuery("SELECT 1")).isInstanceOf(SQLException.class)
            .hasMessageContaining("Authentication failed");
      }
    }
    List<JsonNode> logins = new ArrayList<>();
    for (String line : Files.readAllLines(audit)) {
      JsonNode event = JSON.readTree(line);
      if (event.get("event").asText().equals("login")) {
        logins.add(event);
      }
    }
    // Many HTTP requests, one password check per user (carol's last one failed).
    assertThat(logins).filteredOn(login -> login.get("user").asText().equals(TestServer.ADMIN)).hasSize(1);
    assertThat(logins).filteredOn(login -> login.get("user").asText().equals("carol"))
        .extracting(login -> login.get("outcome").asText()).containsExactly("ok", "UNAUTHENTICATED");
    assertThat(Files.readString(audit)).doesNotContain(carolPassword);
  }

  @Test
  void withThePasswordCacheOffEveryRequestChecksThePassword() throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    try (TrinoFixture trino = TrinoFixture.start(dir, Map.of("audit.file", audit.toString(), "auth.password-cache-ttl", "0s"));
        Connection connection = trino.connect();
        Statement statement = connection.createStatement()) {
      for (int i = 0; i < 3; i++) {
        try (ResultSet rows = statement.executeQuery("SELECT " + i)) {
          assertThat(rows.next()).isTrue();
        }
      }
    }
    long logins = Files.readAllLines(audit).stream()
        .map(line -> {
          try {
            return JSON.readTree(line);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        })
        .filter(event -> event.get("event").asText().equals("login") && event.get("outcome").asText().equals("ok"))
        .count();
    // A statement takes at least two requests (its POST and a GET of its results): each logs in.
    assertThat(logins).isGreaterThanOrEqualTo(6);
  }

  @Test
  void mutualTlsWantsAClientCertificate() throws Exception {
    TestCertificates clients = TestCertificates.newAuthority("SQE clients CA");
    Path clientCa = clients.writeCertificate(dir.resolve("clients-ca.pem"));
    TestCertificates.Issued client = clients.issueClient(dir, "analyst");
    Path clientPem = dir.resolve("client.pem");
    Files.writeString(clientPem, Files.readString(client.privateKey()) + Files.readString(client.certificate()));
    try (TrinoFixture trino = TrinoFixture.start(dir, Map.of("tls.client-ca", clientCa.toString()))) {
      assertThatThrownBy(() -> {
        try (Connection connection = trino.connect(); Statement statement = connection.createStatement()) {
          statement.executeQuery("SELECT 1");
        }
      }).isInstanceOf(SQLException.class);
      try (Connection connection = trino.connect(TestServer.ADMIN, trino.server().adminPassword(), Map.of("SSLKeyStorePath", clientPem.toString()));
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT current_user")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getString(1)).isEqualTo(TestServer.ADMIN);
      }
    }
  }

  private static String currentUser(TrinoFixture trino, String token) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("accessToken", token);
    try (Connection connection = DriverManager.getConnection(trino.jdbcUrl(), properties); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT current_user")) {
      assertThat(rows.next()).isTrue();
      return rows.getString(1);
    }
  }
}
