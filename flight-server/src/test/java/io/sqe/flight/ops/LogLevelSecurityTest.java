package io.sqe.flight.ops;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sqe.flight.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /log-level} changes the server only for an admin who logs in (Basic or bearer, as on
 * Flight), and no log level makes the server print what clients authenticate with: the loggers
 * that write request headers (gRPC's Netty frames, HTTP clients' wire logs) stay at INFO or above.
 */
class LogLevelSecurityTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private static final String ANALYST = "ann";
  private static final String ANALYST_PASSWORD = "an analyst's long password";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("http.port", "0"));
    server.server().authentication().users().addUser(ANALYST, ANALYST_PASSWORD.toCharArray(), Set.of("analyst"));
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @Test
  void changingALevelNeedsAnAdminLogin() throws Exception {
    String logger = "io.sqe.flight.ops.secured";
    HttpResponse<String> anonymous = post("/log-level?logger=" + logger + "&level=debug", null);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
    assertThat(post("/log-level?logger=" + logger + "&level=debug", basic(TestServer.ADMIN, "wrong password")).statusCode())
        .isEqualTo(401);
    assertThat(post("/log-level?logger=" + logger + "&level=debug", "Bearer not-a-token").statusCode()).isEqualTo(401);
    HttpResponse<String> analyst = post("/log-level?logger=" + logger + "&level=debug", basic(ANALYST, ANALYST_PASSWORD));
    assertThat(analyst.statusCode()).isEqualTo(403);
    assertThat(LoggerFactory.getLogger(logger).isDebugEnabled()).isFalse();

    assertThat(post("/log-level?logger=" + logger + "&level=debug", basic(TestServer.ADMIN, server.adminPassword())).statusCode())
        .isEqualTo(200);
    assertThat(LoggerFactory.getLogger(logger).isDebugEnabled()).isTrue();
    String token = adminToken();
    assertThat(post("/log-level?logger=" + logger + "&level=inherit", "Bearer " + token).statusCode()).isEqualTo(200);
    assertThat(LoggerFactory.getLogger(logger).isDebugEnabled()).isFalse();
    // Reading a level needs no login.
    assertThat(get("/log-level?logger=" + logger).statusCode()).isEqualTo(200);
  }

  @Test
  void noLevelLetsCredentialsIntoTheLog() throws Exception {
    String admin = basic(TestServer.ADMIN, server.adminPassword());
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.setContext(context);
    captured.start();
    root.addAppender(captured);
    try {
      // Their parents may be lowered, as any logger; what the wire loggers would print stays out.
      for (String parent : List.of("io.grpc", "io", "org.apache.hc")) {
        assertThat(post("/log-level?logger=" + parent + "&level=trace", admin).statusCode()).as(parent).isEqualTo(200);
      }
      String token = adminToken();
      try (FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
          FlightSqlClient sql = new FlightSqlClient(flight)) {
        CallOption bearer = new CredentialCallOption(new BearerCredentialWriter(token));
        FlightInfo info = sql.execute("select 1", bearer);
        sql.getStream(info.getEndpoints().get(0).getTicket(), bearer).close();
      }
    } finally {
      for (String parent : List.of("io.grpc", "io", "org.apache.hc")) {
        post("/log-level?logger=" + parent + "&level=inherit", admin);
      }
      root.detachAppender(captured);
    }
    String encoded = Base64.getEncoder().encodeToString((TestServer.ADMIN + ":" + server.adminPassword()).getBytes(UTF_8));
    assertThat(captured.list).as("something was logged at the lowered levels").isNotEmpty();
    for (ILoggingEvent event : captured.list) {
      assertThat(event.getFormattedMessage())
          .as(event.getLoggerName())
          .doesNotContain(server.adminPassword())
          .doesNotContain(encoded)
          .doesNotContainIgnoringCase("authorization:");
    }
    HttpResponse<String> wire = post("/log-level?logger=io.grpc.netty&level=debug", admin);
    assertThat(wire.statusCode()).isEqualTo(400);
    assertThat(wire.body()).contains("io.grpc.netty").contains("headers");
    assertThat(post("/log-level?logger=org.apache.hc.client5.http.headers&level=trace", admin).statusCode()).isEqualTo(400);
  }

  /** A bearer token for admin, as a Flight login returns. */
  private static String adminToken() {
    var users = server.server().authentication().users();
    return server.server().authentication().tokens()
        .issue(users.principal(TestServer.ADMIN).orElseThrow(), users.account(TestServer.ADMIN).orElseThrow().id());
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(UTF_8));
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.server().httpPort().orElseThrow() + path);
  }
}
