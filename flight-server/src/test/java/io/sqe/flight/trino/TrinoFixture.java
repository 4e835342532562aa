package io.sqe.flight.trino;

import io.sqe.flight.testing.TestCertificates;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A real SQE server with its Trino endpoint on HTTPS (Trino's clients send passwords only over
 * TLS), certificates from a throw-away CA, and connections of Trino's JDBC driver to it.
 */
final class TrinoFixture implements AutoCloseable {
  private final TestServer server;
  private final Path caCertificate;

  private TrinoFixture(TestServer server, Path caCertificate) {
    this.server = server;
    this.caCertificate = caCertificate;
  }

  static TrinoFixture start(Path dir) throws Exception {
    return start(dir, Map.of());
  }

  static TrinoFixture start(Path dir, Map<String, String> settings) throws Exception {
    TestCertificates authority = TestCertificates.newAuthority("SQE Trino test CA");
    TestCertificates.Issued certificate = authority.issueServer(dir, "server");
    Map<String, String> values = new HashMap<>();
    values.put("tls.certificate-chain", certificate.certificate().toString());
    values.put("tls.private-key", certificate.privateKey().toString());
    values.put("trino.port", "0");
    values.putAll(settings);
    TestServer server = TestServer.start(dir.resolve("sqe"), values);
    return new TrinoFixture(server, authority.writeCertificate(dir.resolve("ca.pem")));
  }

  TestServer server() {
    return server;
  }

  int port() {
    return server.server().trinoPort().orElseThrow();
  }

  /** The CA that signed the server's certificate, as PEM. */
  Path caCertificate() {
    return caCertificate;
  }

  String baseUri() {
    return "https://127.0.0.1:" + port();
  }

  String jdbcUrl() {
    return "jdbc:trino://127.0.0.1:" + port() + "/iceberg?SSL=true&SSLTrustStorePath=" + caCertificate;
  }

  /** A Trino JDBC connection as the admin. */
  Connection connect() throws SQLException {
    return connect(TestServer.ADMIN, server.adminPassword(), Map.of());
  }

  Connection connect(String user, String password, Map<String, String> extra) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    extra.forEach(properties::setProperty);
    return DriverManager.getConnection(jdbcUrl(), properties);
  }

  @Override
  public void close() throws Exception {
    server.close();
  }
}
