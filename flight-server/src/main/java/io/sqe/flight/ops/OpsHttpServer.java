package io.sqe.flight.ops;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations endpoint, HTTP (or HTTPS, with {@code http.tls}) on the server's host: {@code GET /health} (200 when the
 * server takes work and the catalog and storage answer, else 503, with a JSON body saying what
 * failed), {@code GET /metrics} (Prometheus text format), and {@code GET|POST /log-level}, which
 * reads or sets a logger's level. Since setting one changes the server, a POST answers only an
 * admin (role {@code admin}) who logs in as on Flight SQL (Basic credentials or a bearer token),
 * from the server's own machine (a loopback address). With a console, {@code /ui} and the paths
 * under it are the web console's, which has logins of its own.
 */
public final class OpsHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OpsHttpServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Where the web console is served. */
  public static final String CONSOLE_PATH = "/ui";

  private final HttpServer server;
  private final ExecutorService threads;
  private final ServingState serving;
  private final LakehouseHealth health;
  private final ServerMetrics metrics;
  private final OperatorLogin login;
  private final Optional<HttpHandler> console;

  private OpsHttpServer(
      HttpServer server,
      ExecutorService threads,
      ServingState serving,
      LakehouseHealth health,
      ServerMetrics metrics,
      OperatorLogin login,
      Optional<HttpHandler> console) {
    this.server = server;
    this.threads = threads;
    this.serving = serving;
    this.health = health;
    this.metrics = metrics;
    this.login = login;
    this.console = console;
  }

  /**
   * Listens on {@code host:port} (0: a free port).
   *
   * @param login logs in the callers that would change the server
   * @param console the web console, which answers {@code /ui} and the paths under it, if any
   * @param tls serves HTTPS with this context; empty serves plain HTTP
   */
  public static OpsHttpServer start(
      String host,
      int port,
      ServingState serving,
      LakehouseHealth health,
      ServerMetrics metrics,
      OperatorLogin login,
      Optional<HttpHandler> console,
      Optional<SSLContext> tls)
      throws IOException {
    requireNonNull(serving, "serving is null");
    requireNonNull(health, "health is null");
    requireNonNull(metrics, "metrics is null");
    requireNonNull(login, "login is null");
    requireNonNull(console, "console is null");
    requireNonNull(tls, "tls is null");
    HttpServer http;
    if (tls.isPresent()) {
      HttpsServer https = HttpsServer.create(new InetSocketAddress(host, port), 16);
      https.setHttpsConfigurator(new HttpsConfigurator(tls.get()));
      http = https;
    } else {
      http = HttpServer.create(new InetSocketAddress(host, port), 16);
    }
    AtomicInteger ids = new AtomicInteger();
    // Probes and scrapes take one thread each; a console's page polls and kills take the others.
    ExecutorService threads = Executors.newFixedThreadPool(console.isPresent() ? 4 : 2, task -> {
      Thread thread = new Thread(task, "sqe-http-" + ids.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    http.setExecutor(threads);
    OpsHttpServer ops = new OpsHttpServer(http, threads, serving, health, metrics, login, console);
    http.createContext("/", ops::handle);
    http.start();
    return ops;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code https} or {@code http}. */
  public String scheme() {
    return server instanceof HttpsServer ? "https" : "http";
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      switch (path) {
        case "/health":
          if (allow(exchange, method, "GET", "HEAD")) {
            health(exchange);
          }
          break;
        case "/metrics":
          if (allow(exchange, method, "GET")) {
            exchange.getResponseHeaders().set("Content-Type", metrics.contentType());
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
              metrics.writeTo(out);
            }
          }
          break;
        case "/log-level":
          if (allow(exchange, method, "GET", "POST")) {
            logLevel(exchange, method);
          }
          break;
        default:
          if (console.isPresent() && (path.equals("/") || path.equals(CONSOLE_PATH) || path.startsWith(CONSOLE_PATH + "/"))) {
            if (path.equals("/")) {
              exchange.getResponseHeaders().set("Location", CONSOLE_PATH + "/");
              exchange.sendResponseHeaders(303, -1);
            } else {
              console.get().handle(exchange);
            }
            break;
          }
          json(exchange, 404, Map.of("error", "Unknown path " + path + "; try /health, /metrics or /log-level"));
      }
    } catch (IOException e) {
      // The client hung up before its answer was written: a load balancer's health check does so
      // every few seconds (HAProxy resets the connection once it has the status line).
      LOG.debug("HTTP {} {} failed: {}", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e.toString());
    } catch (RuntimeException e) {
      LOG.warn("HTTP {} {} failed: {}", exchange.getRequestMethod(), exchange.getRequestURI().getPath(), e.toString());
    }
  }

  private static boolean allow(HttpExchange exchange, String method, String... allowed) throws IOException {
    for (String m : allowed) {
      if (m.equals(method)) {
        return true;
      }
    }
    exchange.getResponseHeaders().set("Allow", String.join(", ", allowed));
    json(exchange, 405, Map.of("error", method + " is not allowed here; use " + String.join(" or ", allowed)));
    return false;
  }

  private void health(HttpExchange exchange) throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    if (!serving.serving()) {
      body.put("status", "NOT_SERVING");
      body.put("reason", "the server is shutting down");
      json(exchange, 503, body);
      return;
    }
    LakehouseHealth.Report report = health.check();
    body.put("status", report.ok() ? "SERVING" : "NOT_SERVING");
    body.put("catalog", check(report.catalog()));
    body.put("storage", check(report.storage()));
    json(exchange, report.ok() ? 200 : 503, body);
  }

  private static Map<String, Object> check(LakehouseHealth.Check check) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("ok", check.ok());
    out.put("detail", check.detail());
    return out;
  }

  private void logLevel(HttpExchange exchange, String method) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    String logger = query.getOrDefault("logger", LogSettings.SQE_LOGGERS);
    if (method.equals("GET")) {
      json(exchange, 200, Map.of("logger", logger, "level", LogSettings.level(logger).orElse("unknown")));
      return;
    }
    InetAddress caller = exchange.getRemoteAddress().getAddress();
    if (caller == null || !caller.isLoopbackAddress()) {
      json(exchange, 403, Map.of("error", "Log levels can only be changed from the server's own machine (loopback)"));
      return;
    }
    Optional<Principal> operator = login.login(exchange.getRequestHeaders().getFirst("Authorization"), caller.getHostAddress());
    if (operator.isEmpty()) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"sqe\", charset=\"UTF-8\"");
      json(exchange, 401, Map.of("error", "Log in as an admin to change log levels: Basic credentials or a bearer token, as for Flight SQL"));
      return;
    }
    if (!operator.get().roles().contains(TrackedQuery.ADMIN_ROLE)) {
      json(exchange, 403, Map.of("error", "Only admins (role " + TrackedQuery.ADMIN_ROLE + ") may change log levels"));
      return;
    }
    String level = query.get("level");
    if (level == null || level.isBlank()) {
      json(exchange, 400, Map.of("error", "Name the level: POST /log-level?logger=io.sqe&level=debug"));
      return;
    }
    try {
      LogSettings.setLevel(logger, level);
    } catch (IllegalArgumentException e) {
      json(exchange, 400, Map.of("error", e.getMessage()));
      return;
    } catch (UnsupportedOperationException e) {
      json(exchange, 501, Map.of("error", e.getMessage()));
      return;
    }
    LOG.info("Log level of {} set to {} by {} from {}", logger, level, operator.get().user(), caller.getHostAddress());
    json(exchange, 200, Map.of("logger", logger, "level", LogSettings.level(logger).orElse("unknown")));
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> values = new LinkedHashMap<>();
    if (raw == null) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), UTF_8);
      values.put(key, value);
    }
    return values;
  }

  private static void json(HttpExchange exchange, int status, Map<String, ?> body) throws IOException {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
