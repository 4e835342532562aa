package io.sqe.flight.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.NoOpFlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Flight server with {@link SqeAuthenticator}, spoken to by FlightClient and the JDBC
 * driver.
 */
class AuthenticationIntegrationTest {
  private static final String BOB_PASSWORD = "bob's secret password";

  @TempDir Path dir;
  private AuthConfig config;
  private LocalAuthentication auth;
  private String adminPassword;
  private BufferAllocator allocator;
  private CatalogsProducer producer;
  private FlightServer server;
  private final List<FlightClient> clients = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    config =
        new AuthConfig(dir.resolve("state"), Duration.ofHours(1), "sqe", UserStore.MIN_ITERATIONS);
    auth = LocalAuthentication.create(config);
    adminPassword = auth.bootstrapAdminPassword().orElseThrow();
    auth.users().addUser("bob", BOB_PASSWORD.toCharArray(), Set.of("analyst"));
    allocator = new RootAllocator();
    startServer(auth);
  }

  private void startServer(LocalAuthentication authentication) throws IOException {
    producer = new CatalogsProducer(authentication.authenticator(), allocator);
    server =
        FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer)
            .headerAuthenticator(authentication.authenticator())
            .build()
            .start();
  }

  @AfterEach
  void stopServer() throws Exception {
    for (FlightClient client : clients) {
      client.close();
    }
    server.close();
    allocator.close();
  }

  @Test
  void bootstrapHappensOnce() throws IOException {
    assertThat(LocalAuthentication.create(config).bootstrapAdminPassword()).isEmpty();
    assertThat(auth.toString()).doesNotContain(adminPassword);
  }

  @Test
  void basicHandshakeYieldsABearerTokenForLaterCalls() {
    FlightClient client = client();
    CredentialCallOption bearer = client.authenticateBasicToken("bob", BOB_PASSWORD).orElseThrow();

    assertThat(actionTypes(client, bearer)).isNotEmpty();
    catalogs(client, bearer);
    assertThat(producer.seen)
        .containsExactly(
            new Principal("bob", Set.of("analyst")), new Principal("bob", Set.of("analyst")));

    FlightClient admin = client();
    CredentialCallOption adminBearer =
        admin.authenticateBasicToken("admin", adminPassword).orElseThrow();
    catalogs(admin, adminBearer);
    assertThat(producer.seen).last().isEqualTo(new Principal("admin", Set.of("admin")));
  }

  @Test
  void tokenSurvivesAServerRestart() throws Exception {
    CredentialCallOption bearer =
        client().authenticateBasicToken("bob", BOB_PASSWORD).orElseThrow();

    server.close();
    startServer(LocalAuthentication.create(config));
    catalogs(client(), bearer);
    assertThat(producer.seen)
        .containsExactly(
            new Principal("bob", Set.of("analyst")), new Principal("bob", Set.of("analyst")));
  }

  @Test
  void rolesComeFromTheStoreAndDeletedUsersAreLockedOut() throws IOException {
    FlightClient client = client();
    CredentialCallOption bearer = client.authenticateBasicToken("bob", BOB_PASSWORD).orElseThrow();

    auth.users().setRoles("bob", Set.of("auditor"));
    catalogs(client, bearer);
    assertThat(producer.seen).first().isEqualTo(new Principal("bob", Set.of("auditor")));

    auth.users().removeUser("bob");
    assertUnauthenticated(() -> catalogs(client, bearer), "Invalid or expired token");
    assertThat(producer.seen).hasSize(2);
  }

  @Test
  void callsWithoutCredentialsAreRejected() {
    FlightClient client = client();
    assertUnauthenticated(() -> actionTypes(client), "Authentication required");
    assertUnauthenticated(() -> catalogs(client), "Authentication required");
    assertThat(producer.seen).isEmpty();
  }

  @Test
  void wrongPasswordIsRejected() {
    assertUnauthenticated(
        () -> client().authenticateBasicToken("bob", "not " + BOB_PASSWORD),
        "Invalid username or password",
        "not " + BOB_PASSWORD);
    assertUnauthenticated(
        () -> client().authenticateBasicToken("nobody", BOB_PASSWORD),
        "Invalid username or password",
        BOB_PASSWORD);
  }

  @Test
  void badTokensAreRejected() throws IOException {
    FlightClient client = client();
    String garbage = "garbage-token-value";
    assertUnauthenticated(
        () -> actionTypes(client, bearer(garbage)), "Invalid or expired token", garbage);

    TokenService past =
        TokenService.open(
            config.signingKeysFile(),
            "sqe",
            Duration.ofHours(1),
            new MutableClock(Instant.now().minus(Duration.ofHours(2))));
    String expired = past.issue(Principal.of("bob"), auth.users().account("bob").orElseThrow().id());
    assertUnauthenticated(
        () -> actionTypes(client, bearer(expired)), "Invalid or expired token", expired);

    String token = auth.tokens().issue(Principal.of("bob"), auth.users().account("bob").orElseThrow().id());
    String[] parts = token.split("\\.");
    String payload =
        new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
            .replace("\"bob\"", "\"admin\"");
    String tampered =
        parts[0]
            + "."
            + Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(payload.getBytes(StandardCharsets.UTF_8))
            + "."
            + parts[2];
    assertUnauthenticated(
        () -> catalogs(client, bearer(tampered)), "Invalid or expired token", tampered);
    assertThat(producer.seen).isEmpty();
  }

  @Test
  void jdbcDriverWithPassword() throws SQLException {
    try (Connection connection =
            DriverManager.getConnection(jdbcUrl("user=admin&password=" + adminPassword));
        ResultSet catalogs = connection.getMetaData().getCatalogs()) {
      assertThat(catalogs.next()).isFalse();
    }
    assertThat(producer.seen).contains(new Principal("admin", Set.of("admin")));

    Properties bob = new Properties();
    bob.setProperty("user", "bob");
    bob.setProperty("password", BOB_PASSWORD);
    try (Connection connection = DriverManager.getConnection(jdbcUrl(""), bob);
        ResultSet catalogs = connection.getMetaData().getCatalogs()) {
      assertThat(catalogs.next()).isFalse();
    }
    assertThat(producer.seen).contains(new Principal("bob", Set.of("analyst")));

    String wrong = "wrong-" + adminPassword;
    assertThatThrownBy(
            () -> DriverManager.getConnection(jdbcUrl("user=admin&password=" + wrong)).close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("UNAUTHENTICATED")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong));
  }

  @Test
  void jdbcDriverWithToken() throws SQLException {
    String token = auth.tokens().issue(new Principal("admin", Set.of("admin")), auth.users().account("admin").orElseThrow().id());
    try (Connection connection = DriverManager.getConnection(jdbcUrl("token=" + token));
        ResultSet catalogs = connection.getMetaData().getCatalogs()) {
      assertThat(catalogs.next()).isFalse();
    }
    assertThat(producer.seen).contains(new Principal("admin", Set.of("admin")));

    String garbage = "not-a-real-token";
    assertThatThrownBy(() -> DriverManager.getConnection(jdbcUrl("token=" + garbage)).close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("UNAUTHENTICATED")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(garbage));
  }

  private String jdbcUrl(String credentials) {
    return "jdbc:arrow-flight-sql://127.0.0.1:"
        + server.getPort()
        + "/?useEncryption=false"
        + (credentials.isEmpty() ? "" : "&" + credentials);
  }

  private FlightClient client() {
    FlightClient client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.getPort()))
            .build();
    clients.add(client);
    return client;
  }

  private static CredentialCallOption bearer(String token) {
    return new CredentialCallOption(new BearerCredentialWriter(token));
  }

  private static List<ActionType> actionTypes(FlightClient client, CallOption... options) {
    List<ActionType> types = new ArrayList<>();
    client.listActions(options).forEach(types::add);
    return types;
  }

  private static void catalogs(FlightClient client, CallOption... options) {
    FlightSqlClient sql = new FlightSqlClient(client);
    FlightInfo info = sql.getCatalogs(options);
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), options)) {
      while (stream.next()) {
        assertThat(stream.getRoot().getRowCount()).isZero();
      }
    } catch (Exception e) {
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e);
    }
  }

  private static void assertUnauthenticated(Executable call, String message, String... secrets) {
    assertThatThrownBy(call::execute)
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
              assertThat(e.status().description()).isEqualTo(message);
              for (String secret : secrets) {
                assertThat(e.getMessage()).doesNotContain(secret);
              }
            });
  }

  /** Answers GetCatalogs with no rows and records who asked. */
  private static final class CatalogsProducer extends NoOpFlightSqlProducer {
    private final SqeAuthenticator authenticator;
    private final BufferAllocator allocator;
    final List<Principal> seen = new CopyOnWriteArrayList<>();

    CatalogsProducer(SqeAuthenticator authenticator, BufferAllocator allocator) {
      this.authenticator = authenticator;
      this.allocator = allocator;
    }

    @Override
    public FlightInfo getFlightInfoCatalogs(
        CommandGetCatalogs request, CallContext context, FlightDescriptor descriptor) {
      seen.add(authenticator.principal(context.peerIdentity()));
      Ticket ticket = new Ticket(Any.pack(request).toByteArray());
      return new FlightInfo(
          Schemas.GET_CATALOGS_SCHEMA, descriptor, List.of(new FlightEndpoint(ticket)), -1, -1);
    }

    @Override
    public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
      seen.add(authenticator.principal(context.peerIdentity()));
      try (VectorSchemaRoot root =
          VectorSchemaRoot.create(Schemas.GET_CATALOGS_SCHEMA, allocator)) {
        listener.start(root);
        listener.completed();
      }
    }
  }
}
