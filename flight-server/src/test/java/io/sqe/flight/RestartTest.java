package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.auth.AuthConfig;
import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded default across restarts: tables and users stay, the admin password is shown once
 * and stored only as a salted hash, and tokens stay valid on a restarted server and on any server
 * that shares the security directory (signing keys and users). Clients are the JDBC driver and
 * Flight's own handshake.
 */
class RestartTest {
  private static final Schema PRICES =
      new Schema(
          Types.NestedField.required(1, "sku", Types.StringType.get()),
          Types.NestedField.required(2, "price", Types.DecimalType.of(10, 2)));

  @TempDir Path dir;

  @Test
  void tablesPasswordsAndTokensSurviveARestart() throws Exception {
    Path data = dir.resolve("a");
    List<Record> rows = prices();
    String adminPassword;
    String token;
    try (TestServer first = TestServer.start(data, Map.of())) {
      adminPassword = first.server().initialAdminPassword().orElseThrow();
      String users = Files.readString(data.resolve("security").resolve(AuthConfig.USERS_FILE), StandardCharsets.UTF_8);
      assertThat(users).contains("admin").doesNotContain(adminPassword);
      TestTables.create(first.server().catalogs().find("iceberg").orElseThrow(), "store", "prices", PRICES, rows, 2);
      assertThat(prices(jdbc(first, "user=admin&password=" + adminPassword))).isEqualTo(expected(rows));
      token = handshakeToken(first, adminPassword);
    }

    try (TestServer second = TestServer.start(data, Map.of(), adminPassword)) {
      assertThat(second.server().initialAdminPassword()).isEmpty();
      assertThat(prices(jdbc(second, "user=admin&password=" + adminPassword))).isEqualTo(expected(rows));
      assertThat(prices(jdbc(second, "token=" + token))).isEqualTo(expected(rows));
    }
  }

  @Test
  void aServerSharingTheSigningKeyAcceptsTheOthersTokens() throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    Path c = dir.resolve("c");
    try (TestServer issuer = TestServer.start(a, Map.of())) {
      String token = handshakeToken(issuer, issuer.adminPassword());
      // Servers side by side share the security directory: the signing keys and the users, whose
      // ids the tokens name.
      Files.createDirectories(b.resolve("security"));
      for (String file : List.of(AuthConfig.SIGNING_KEYS_FILE, AuthConfig.USERS_FILE)) {
        Path shared = Path.of("security", file);
        Files.copy(a.resolve(shared), b.resolve(shared));
      }
      try (TestServer sharing = TestServer.start(b, Map.of());
          TestServer stranger = TestServer.start(c, Map.of())) {
        assertThat(one(jdbc(sharing, "token=" + token))).isEqualTo(1);
        assertUnauthenticated(() -> jdbc(stranger, "token=" + token), token);
        // And the other way round: the sharing server's tokens work on the issuer.
        String back = handshakeToken(sharing, issuer.adminPassword());
        assertThat(one(jdbc(issuer, "token=" + back))).isEqualTo(1);
      }
    }
  }

  @Test
  void badCredentialsAreUnauthenticatedAndDoNotRevealUsers() throws Exception {
    try (TestServer server = TestServer.start(dir.resolve("a"), Map.of())) {
      String token = handshakeToken(server, server.adminPassword());
      String[] parts = token.split("\\.");
      String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
      String forged =
          parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
              claims.replace("\"admin\"", "\"root\"").getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
      String resigned = parts[0] + "." + parts[1] + "." + parts[2].substring(0, parts[2].length() - 4) + "AAAA";
      assertUnauthenticated(() -> jdbc(server, "token=" + forged), forged);
      assertUnauthenticated(() -> jdbc(server, "token=" + resigned), resigned);
      assertUnauthenticated(() -> jdbc(server, "token=garbage"), "garbage");

      String wrongPassword = "not-" + server.adminPassword();
      String forAdmin = assertUnauthenticated(() -> jdbc(server, "user=admin&password=" + wrongPassword), wrongPassword);
      String forNobody = assertUnauthenticated(() -> jdbc(server, "user=nobody&password=" + wrongPassword), wrongPassword);
      assertThat(forNobody).isEqualTo(forAdmin.replace("admin", "nobody"));
      assertThat(forAdmin).doesNotContainIgnoringCase("unknown user").doesNotContainIgnoringCase("does not exist");
    }
  }

  private static Connection jdbc(TestServer server, String credentials) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&" + credentials);
  }

  /** The SQLException's message, after checking it says UNAUTHENTICATED and shows no secret. */
  private static String assertUnauthenticated(ConnectionAttempt attempt, String secret) {
    SQLException[] thrown = new SQLException[1];
    assertThatThrownBy(() -> attempt.connect().close())
        .isInstanceOfSatisfying(SQLException.class, e -> thrown[0] = e)
        .hasMessageContaining("UNAUTHENTICATED")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret));
    return thrown[0].getMessage();
  }

  private interface ConnectionAttempt {
    Connection connect() throws SQLException;
  }

  /** Logs in through Flight's handshake and returns the bearer token the server sent back. */
  private static String handshakeToken(TestServer server, String password) throws Exception {
    TokenCapture capture = new TokenCapture();
    try (RootAllocator allocator = new RootAllocator();
        FlightClient client = FlightClient.builder(allocator, server.server().location()).intercept(capture).build()) {
      client.authenticateBasicToken(TestServer.ADMIN, password).orElseThrow();
    }
    assertThat(capture.token).isNotNull();
    return capture.token;
  }

  private static final class TokenCapture implements FlightClientMiddleware.Factory {
    private volatile String token;

    @Override
    public FlightClientMiddleware onCallStarted(CallInfo info) {
      return new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

        @Override
        public void onHeadersReceived(CallHeaders incomingHeaders) {
          String value = incomingHeaders.get("authorization");
          if (value != null && value.startsWith("Bearer ")) {
            token = value.substring("Bearer ".length());
          }
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      };
    }
  }

  private static List<Record> prices() {
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Record r = GenericRecord.create(PRICES);
      r.setField("sku", "sku-" + i);
      r.setField("price", BigDecimal.valueOf(i * 1999L + 5, 2));
      rows.add(r);
    }
    return rows;
  }

  private static List<String> expected(List<Record> rows) {
    List<String> out = new ArrayList<>();
    for (Record r : rows) {
      out.add(r.getField("sku") + "=" + r.getField("price"));
    }
    return out;
  }

  private static List<String> prices(Connection connection) throws SQLException {
    List<String> out = new ArrayList<>();
    try (connection;
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select sku, price from store.prices order by sku")) {
      while (rs.next()) {
        out.add(rs.getString(1) + "=" + rs.getBigDecimal(2));
      }
    }
    return out;
  }

  private static int one(Connection connection) throws SQLException {
    try (connection;
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("select 1")) {
      assertThat(rs.next()).isTrue();
      return rs.getInt(1);
    }
  }
}
