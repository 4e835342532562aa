package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.QueryEngine;
import io.sqe.flight.ServerInfo;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.auth.HttpAuthentication;
import io.sqe.flight.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQE's endpoint for Trino's client protocol (v1), next to Flight SQL, so that the Trino CLI, the
 * Trino JDBC driver, {@code trino-python-client} and {@code dbt-trino} work unchanged. It serves
 * {@code /v1/statement} (see {@link TrinoStatements}) and {@code /v1/info} over HTTP, or HTTPS when
 * the server has TLS settings (Trino's clients send passwords only over HTTPS).
 */
public final class TrinoEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrinoEndpoint.class);
  /** Prepared statements travel in headers: room for a few large ones. */
  private static final int MAX_HEADER_BYTES = 1 << 20;
  /** Trino's query.max-length in characters, at up to four bytes each. */
  private static final int MAX_BODY_BYTES = 4 * TrinoStatements.MAX_SQL_CHARACTERS;
  private static final String STATEMENT = "/v1/statement";

  private final Server server;
  private final ServerConnector connector;
  private final TrinoStatements statements;
  private final boolean https;

  private TrinoEndpoint(Server server, ServerConnector connector, TrinoStatements statements, boolean https) {
    this.server = server;
    this.connector = connector;
    this.statements = statements;
    this.https = https;
  }

  /** Where the endpoint listens, how abandoned statements are recognised, and its TLS. */
  public record Settings(String host, int port, Duration clientTimeout, Duration transactionIdleTimeout, ServerConfig.TlsSettings tls) {
    public Settings {
      requireNonNull(host, "host is null");
      requireNonNull(clientTimeout, "clientTimeout is null");
      requireNonNull(transactionIdleTimeout, "transactionIdleTimeout is null");
    }
  }

  /** Starts listening; {@code port} 0 picks a free port. */
  public static TrinoEndpoint start(
      Settings settings, QueryEngine engine, HttpAuthentication authentication, AuditLog audit, String defaultCatalog)
      throws IOException {
    TrinoStatements statements = new TrinoStatements(
        new StatementTask.Context(engine, audit, new TrinoTransactions(settings.transactionIdleTimeout()), defaultCatalog),
        authentication,
        settings.clientTimeout());
    QueuedThreadPool threads = new QueuedThreadPool(200, 4);
    threads.setName("trino-http");
    threads.setDaemon(true);
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setRequestHeaderSize(MAX_HEADER_BYTES);
    ServerConnector connector;
    if (settings.tls() == null) {
      connector = new ServerConnector(server, new HttpConnectionFactory(http));
    } else {
      // Clients may address the server by any name its certificate has, or by address.
      http.addCustomizer(new SecureRequestCustomizer(false));
      connector = new ServerConnector(server, ssl(settings.tls()), new HttpConnectionFactory(http));
    }
    connector.setHost(settings.host());
    connector.setPort(settings.port());
    server.addConnector(connector);
    server.setHandler(new Routes(statements));
    try {
      server.start();
    } catch (Exception e) {
      statements.close();
      stopQuietly(server);
      throw new IOException("Cannot start the Trino endpoint on " + settings.host() + ":" + settings.port() + ": " + e.getMessage(), e);
    }
    return new TrinoEndpoint(server, connector, statements, settings.tls() != null);
  }

  private static SslContextFactory.Server ssl(ServerConfig.TlsSettings tls) throws IOException {
    SslContextFactory.Server ssl = new SslContextFactory.Server();
    try {
      ssl.setKeyStore(PemKeyStores.keyStore(tls.certificateChain(), tls.privateKey()));
      ssl.setKeyStorePassword(PemKeyStores.PASSWORD);
      if (tls.clientCa() != null) {
        ssl.setTrustStore(PemKeyStores.trustStore(tls.clientCa()));
        ssl.setNeedClientAuth(true);
      }
    } catch (GeneralSecurityException e) {
      throw new IOException("Cannot read the TLS certificate and key: " + e.getMessage(), e);
    }
    return ssl;
  }

  public int port() {
    return connector.getLocalPort();
  }

  /** {@code https} or {@code http}. */
  public String scheme() {
    return https ? "https" : "http";
  }

  /** Answers new statements with 503 from now on, while running ones may finish. */
  public void refuseNew() {
    statements.refuseNew();
  }

  /**
   * Waits until every statement has ended and its client has its last response, or until {@code
   * timeout} has passed.
   *
   * @return whether none is left
   */
  public boolean awaitStatements(Duration timeout) throws InterruptedException {
    return statements.awaitDrained(timeout);
  }

  /** Cancels what still runs, waits for it, and stops listening. */
  @Override
  public void close() {
    statements.close();
    stopQuietly(server);
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("Cannot stop the Trino endpoint", e);
    }
  }

  /** The endpoint's paths. */
  private static final class Routes extends Handler.Abstract {
    private final TrinoStatements statements;
    private final long started = System.nanoTime();

    Routes(TrinoStatements statements) {
      this.statements = statements;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      TrinoStatements.Answer answer;
      try {
        answer = route(request);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Trino request {} {} failed", request.getMethod(), Request.getPathInContext(request), e);
        answer = TrinoStatements.Answer.text(500, "Internal error: " + e.getClass().getSimpleName());
      }
      response.setStatus(answer.status());
      for (Map.Entry<String, String> header : answer.headers()) {
        response.getHeaders().add(header.getKey(), header.getValue());
      }
      if (answer.contentType() != null) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
      }
      response.write(true, ByteBuffer.wrap(answer.body()), callback);
      return true;
    }

    private TrinoStatements.Answer route(Request request) throws IOException {
      String path = Request.getPathInContext(request);
      String method = request.getMethod().toUpperCase(Locale.ROOT);
      HttpRequest http = new HttpRequest(request);
      if (path.equals(STATEMENT)) {
        switch (method) {
          case "POST":
            byte[] body = body(request);
            if (body == null) {
              return TrinoStatements.Answer.text(413, "Query text exceeds the maximum length (" + TrinoStatements.MAX_SQL_CHARACTERS + ")");
            }
            return statements.submit(http, body);
          case "HEAD":
            return statements.check(http);
          default:
            return TrinoStatements.Answer.text(405, method + " is not allowed on " + STATEMENT);
        }
      }
      if (path.startsWith(STATEMENT + "/executing/")) {
        switch (method) {
          case "GET":
            return statements.fetch(http, path);
          case "DELETE":
            return statements.cancel(http, path);
          default:
            return TrinoStatements.Answer.text(405, method + " is not allowed on " + path);
        }
      }
      if (path.equals("/v1/info") && method.equals("GET")) {
        return TrinoStatements.Answer.json(info(), List.of());
      }
      if (path.equals("/v1/info/state") && method.equals("GET")) {
        return TrinoStatements.Answer.json("\"ACTIVE\"".getBytes(StandardCharsets.US_ASCII), List.of());
      }
      return TrinoStatements.Answer.text(404, "Not found: " + path);
    }

    /** What Trino's clients read of a server: its version and whether it is ready. */
    private byte[] info() {
      double uptime = (System.nanoTime() - started) / 1e9;
      String json = "{\"nodeVersion\":{\"version\":\"" + ServerInfo.VERSION + "\"},\"environment\":\"sqe\","
          + "\"coordinator\":true,\"starting\":false,\"uptime\":\"" + String.format(Locale.ROOT, "%.2fs", uptime) + "\"}";
      return json.getBytes(StandardCharsets.UTF_8);
    }

    /** The request body, at most {@link #MAX_BODY_BYTES}; null when longer. */
    private static byte[] body(Request request) throws IOException {
      try (InputStream in = Content.Source.asInputStream(request)) {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        return body.length > MAX_BODY_BYTES ? null : body;
      }
    }
  }

  /** A Jetty request as the statement resource reads it. */
  private static final class HttpRequest implements TrinoStatements.Request {
    private final Request request;

    HttpRequest(Request request) {
      this.request = request;
    }

    @Override
    public String authorization() {
      return request.getHeaders().get(HttpHeader.AUTHORIZATION);
    }

    @Override
    public String clientAddress() {
      return Request.getRemoteAddr(request);
    }

    @Override
    public Function<String, List<String>> headers() {
      return name -> request.getHeaders().getValuesList(name);
    }

    @Override
    public String baseUri() {
      HttpURI uri = request.getHttpURI();
      return uri.getScheme() + "://" + uri.getAuthority();
    }
  }
}
