package io.sqe.flight.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestCertificates;
import io.sqe.flight.testing.TestServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS and mutual TLS on the Flight endpoint, with FlightClient and the Flight SQL JDBC driver. */
class TlsTest {
  private static final String TRUST_STORE_PASSWORD = "changeit";

  @TempDir Path dir;
  private BufferAllocator allocator;
  private TestCertificates authority;
  private TestCertificates.Issued serverCertificate;
  private TestServer server;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    authority = TestCertificates.newAuthority("SQE test CA");
    serverCertificate = authority.issueServer(dir, "server");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (server != null) {
      server.close();
    }
    allocator.close();
  }

  @Test
  void clientsThatTrustTheServerConnectOverTls() throws Exception {
    server = TestServer.start(dir.resolve("sqe"), Map.of(
        "tls.certificate-chain", serverCertificate.certificate().toString(),
        "tls.private-key", serverCertificate.privateKey().toString()));
    assertThat(server.server().location().getUri().getScheme()).isEqualTo("grpc+tls");

    Path ca = authority.writeCertificate(dir.resolve("ca.crt"));
    try (InputStream trusted = Files.newInputStream(ca);
        FlightClient client = FlightClient.builder(allocator, server.server().location()).trustedCertificates(trusted).build()) {
      assertThat(client.authenticateBasicToken(TestServer.ADMIN, server.adminPassword())).isPresent();
    }

    // The JDBC driver with a trust store (it reads trustStore only when the system store is off).
    Path trustStore = authority.writeTrustStore(dir.resolve("trust.jks"), TRUST_STORE_PASSWORD);
    String url = "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=true&useSystemTrustStore=false"
        + "&trustStore=" + trustStore + "&trustStorePassword=" + TRUST_STORE_PASSWORD;
    assertThat(currentUser(url)).isEqualTo(TestServer.ADMIN);
    // ... and with the CA as a PEM file.
    assertThat(currentUser("jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=true&tlsRootCerts=" + ca))
        .isEqualTo(TestServer.ADMIN);
  }

  @Test
  void plainTextAndUntrustedClientsAreRefused() throws Exception {
    server = TestServer.start(dir.resolve("sqe"), Map.of(
        "tls.certificate-chain", serverCertificate.certificate().toString(),
        "tls.private-key", serverCertificate.privateKey().toString()));
    try (FlightClient plain = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port())).build()) {
      assertThatThrownBy(() -> plain.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code()));
    }
    // A client that trusts another CA does not accept the server.
    Path otherCa = TestCertificates.newAuthority("Other CA").writeCertificate(dir.resolve("other.crt"));
    try (InputStream trusted = Files.newInputStream(otherCa);
        FlightClient client = FlightClient.builder(allocator, server.server().location()).trustedCertificates(trusted).build()) {
      assertThatThrownBy(() -> client.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()))
          .isInstanceOfSatisfying(FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code()));
    }
  }

  @Test
  void mutualTlsNeedsAClientCertificateFromTheConfiguredAuthority() throws Exception {
    TestCertificates clientAuthority = TestCertificates.newAuthority("SQE clients CA");
    Path clientCa = clientAuthority.writeCertificate(dir.resolve("clients-ca.crt"));
    server = TestServer.start(dir.resolve("sqe"), Map.of(
        "tls.certificate-chain", serverCertificate.certificate().toString(),
        "tls.private-key", serverCertificate.privateKey().toString(),
        "tls.client-ca", clientCa.toString()));
    Path ca = authority.writeCertificate(dir.resolve("ca.crt"));
    TestCertificates.Issued alice = clientAuthority.issueClient(dir, "alice");
    String base = "jdbc:arrow-flight-sql://127.0.0.1:" + server.port() + "/?useEncryption=true&tlsRootCerts=" + ca;

    assertThat(currentUser(base + "&clientCertificate=" + alice.certificate() + "&clientKey=" + alice.privateKey()))
        .isEqualTo(TestServer.ADMIN);
    assertThatThrownBy(() -> currentUser(base)).isInstanceOf(SQLException.class);
    // A certificate from another authority is refused too.
    TestCertificates.Issued stranger = authority.issueClient(dir, "stranger");
    assertThatThrownBy(() -> currentUser(base + "&clientCertificate=" + stranger.certificate() + "&clientKey=" + stranger.privateKey()))
        .isInstanceOf(SQLException.class);
  }

  @Test
  void aMissingCertificateFileStopsTheStartWithAClearMessage() {
    assertThatThrownBy(() -> TestServer.start(dir.resolve("sqe"), Map.of(
            "tls.certificate-chain", dir.resolve("missing.crt").toString(),
            "tls.private-key", serverCertificate.privateKey().toString())))
        .hasMessageContaining("tls.certificate-chain")
        .hasMessageContaining("missing.crt");
  }

  private String currentUser(String url) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url, TestServer.ADMIN, server.adminPassword());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT current_user")) {
      assertThat(rows.next()).isTrue();
      return rows.getString(1);
    }
  }
}
