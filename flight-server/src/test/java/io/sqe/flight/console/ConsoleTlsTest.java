package io.sqe.flight.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.config.ConfigException;
import io.sqe.flight.config.ConfigLoader;
import io.sqe.flight.testing.TestCertificates;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code http.tls}, the operations port (health, metrics, the web console) speaks HTTPS with
 * the server's TLS certificate: a client trusting the certificate's CA reads it and logs in to the
 * console, whose cookie is then {@code Secure}; plain HTTP and clients that do not trust the CA
 * get nothing.
 */
class ConsoleTlsTest {
  private static final String TRUST_STORE_PASSWORD = "changeit";

  @TempDir static Path dir;
  private static TestServer server;
  private static HttpClient trusting;

  @BeforeAll
  static void start() throws Exception {
    TestCertificates authority = TestCertificates.newAuthority("SQE test CA");
    TestCertificates.Issued certificate = authority.issueServer(dir, "server");
    server = TestServer.start(dir.resolve("sqe"), Map.of(
        "tls.certificate-chain", certificate.certificate().toString(),
        "tls.private-key", certificate.privateKey().toString(),
        "http.port", "0",
        "http.tls", "true"));
    ConsoleUsers.prepare(server);
    KeyStore trust = KeyStore.getInstance("JKS");
    try (InputStream in = Files.newInputStream(authority.writeTrustStore(dir.resolve("trust.jks"), TRUST_STORE_PASSWORD))) {
      trust.load(in, TRUST_STORE_PASSWORD.toCharArray());
    }
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, trustManagers.getTrustManagers(), null);
    trusting = ConsoleClient.client().sslContext(ssl).build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void healthMetricsAndTheConsoleAnswerOverHttpsWithASecureCookie() throws Exception {
    ConsoleClient browser = new ConsoleClient("https", httpPort(), trusting);
    assertThat(browser.get("/health").statusCode()).isEqualTo(200);
    HttpResponse<String> metrics = browser.get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("sqe_");

    HttpResponse<String> login = browser.logIn(ConsoleUsers.ALICE, ConsoleUsers.PASSWORD);
    assertThat(login.statusCode()).isEqualTo(303);
    assertThat(login.headers().firstValue("Set-Cookie")).hasValueSatisfying(cookie -> assertThat(cookie)
        .startsWith("sqe_console=")
        .contains("HttpOnly", "SameSite=Strict", "; Secure"));
    assertThat(browser.get("/ui/queries").body()).contains("id=\"current-user\">alice<");
  }

  @Test
  void plainHttpAndClientsThatDoNotTrustTheCertificateGetNothing() {
    HttpRequest health = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + httpPort() + "/health"))
        .timeout(Duration.ofSeconds(30)).build();
    assertThatThrownBy(() -> ConsoleClient.client().build().send(health, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(SSLHandshakeException.class);
    HttpRequest plain = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + "/health"))
        .timeout(Duration.ofSeconds(30)).build();
    assertThatThrownBy(() -> ConsoleClient.client().build().send(plain, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class);
  }

  @Test
  void httpTlsNeedsTheServersKeyMaterial() {
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("http.port", "0", "http.tls", "true")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("http.tls")
        .hasMessageContaining("tls.certificate-chain");
  }

  private static int httpPort() {
    return server.server().httpPort().orElseThrow();
  }
}
