package io.sqe.flight.console;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsExchange;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.QueryProcedures;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.flight.ServerInfo;
import io.sqe.flight.console.ConsoleLogins.Login;
import io.sqe.flight.console.ConsolePages.CacheRow;
import io.sqe.flight.console.ConsolePages.Fact;
import io.sqe.flight.console.ConsolePages.Filter;
import io.sqe.flight.console.ConsolePages.SessionRow;
import io.sqe.flight.ops.LakehouseHealth;
import io.sqe.flight.ops.OperatorLogin;
import io.sqe.flight.ops.OpsHttpServer;
import io.sqe.flight.ops.ServerMetrics;
import io.sqe.flight.ops.ServingState;
import io.sqe.flight.runtime.RuntimeSchema;
import io.sqe.flight.runtime.SessionProcedures;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.session.SessionManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console under {@code /ui} on the operations port: running and recent statements with
 * live progress, a statement's text, timeline and plan with a kill button, the sessions, the
 * caches and the server's state. A person logs in with a form (the password checked as on Flight
 * SQL) and gets a cookie naming a login the server keeps; a script sends an OIDC or SQE bearer
 * token instead. Everyone sees what {@code system.runtime} shows them: their own statements and
 * sessions, or everyone's for an admin; killing needs the same rights as {@code
 * system.kill_query} and {@code system.kill_session}.
 */
public final class WebConsole implements HttpHandler {
  private static final String PREFIX = OpsHttpServer.CONSOLE_PATH;

  private static final Logger LOG = LoggerFactory.getLogger(WebConsole.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_FORM_BYTES = 16 * 1024;
  private static final Duration KILL_WAIT = Duration.ofSeconds(3);
  private static final Set<String> STATIC_FILES = Set.of("console.css", "queries.js", "query.js");
  // Scripts and styles only from the console itself; a value a page shows can never run.
  private static final String CONTENT_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
      + "connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  /** The caller of a request: their principal, and their cookie login unless they sent a bearer token. */
  private record Caller(Principal principal, Login login) {
    String csrf() {
      return login == null ? null : login.csrfToken();
    }
  }

  private final OperatorLogin passwords;
  private final QueryTracker queries;
  private final SessionManager sessions;
  private final SessionProcedures sessionKills;
  private final ServerMetrics metrics;
  private final ServingState serving;
  private final LakehouseHealth health;
  private final Map<String, String> settings;
  private final Instant started = Instant.now();
  private final ConsoleLogins logins = new ConsoleLogins();

  /**
   * @param passwords checks a form's user and password, or a bearer token, as Flight SQL does
   * @param settings the limits and settings the server page lists, by setting name
   */
  public WebConsole(
      OperatorLogin passwords,
      QueryTracker queries,
      SessionManager sessions,
      SessionProcedures sessionKills,
      ServerMetrics metrics,
      ServingState serving,
      LakehouseHealth health,
      Map<String, String> settings) {
    this.passwords = requireNonNull(passwords, "passwords is null");
    this.queries = requireNonNull(queries, "queries is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.sessionKills = requireNonNull(sessionKills, "sessionKills is null");
    this.metrics = requireNonNull(metrics, "metrics is null");
    this.serving = requireNonNull(serving, "serving is null");
    this.health = requireNonNull(health, "health is null");
    this.settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
  }

  /** Answers a request for a path of the console's; the caller closes the exchange. */
  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    exchange.getResponseHeaders().set("Content-Security-Policy", CONTENT_POLICY);
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (path.equals(PREFIX) || path.equals(PREFIX + "/")) {
      redirect(exchange, PREFIX + "/queries");
      return;
    }
    if (path.startsWith(PREFIX + "/static/")) {
      staticFile(exchange, path.substring((PREFIX + "/static/").length()));
      return;
    }
    if (path.equals(PREFIX + "/login")) {
      if (method.equals("POST")) {
        logIn(exchange);
      } else {
        html(exchange, 200, ConsolePages.login(null, null));
      }
      return;
    }
    Optional<Caller> caller = caller(exchange);
    if (caller.isEmpty()) {
      if (path.startsWith(PREFIX + "/api/")) {
        json(exchange, 401, Map.of("error", "Log in at " + PREFIX + "/login, or send a bearer token"));
      } else if (method.equals("GET")) {
        redirect(exchange, PREFIX + "/login");
      } else {
        html(exchange, 401, ConsolePages.login("Your login has expired; log in again.", null));
      }
      return;
    }
    Caller who = caller.get();
    if (method.equals("POST")) {
      Map<String, String> form = form(exchange);
      // A bearer token is never sent by a browser on its own, a cookie is: forms carry the login's token.
      if (who.login() != null && !who.login().csrfMatches(form.get("csrf"))) {
        html(exchange, 403, ConsolePages.error(who.principal(), who.csrf(), "Refused", "The form is stale or did not come from this console; reload the page."));
        return;
      }
      post(exchange, who, path, form);
    } else if (method.equals("GET") || method.equals("HEAD")) {
      get(exchange, who, path);
    } else {
      exchange.getResponseHeaders().set("Allow", "GET, POST");
      json(exchange, 405, Map.of("error", method + " is not allowed here; use GET or POST"));
    }
  }

  private void get(HttpExchange exchange, Caller who, String path) throws IOException {
    Map<String, String> params = urlEncoded(exchange.getRequestURI().getRawQuery());
    Principal principal = who.principal();
    if (path.equals(PREFIX + "/queries") || path.equals(PREFIX + "/api/queries")) {
      Filter filter = new Filter(params.get("user"), params.get("state"), params.get("tag"));
      List<QueryView> visible = new ArrayList<>();
      for (TrackedQuery query : queries.allWithHistory()) {
        if (query.isControllableBy(principal)) {
          QueryView view = QueryView.of(query, false);
          if (filter.accepts(view)) {
            visible.add(view);
          }
        }
      }
      if (path.startsWith(PREFIX + "/api/")) {
        // Newest first, as the page lists them.
        Collections.reverse(visible);
        json(exchange, 200, Map.of("queries", visible));
      } else {
        html(exchange, 200, ConsolePages.queries(principal, who.csrf(), visible, filter));
      }
      return;
    }
    String queryPage = PREFIX + "/queries/";
    String queryApi = PREFIX + "/api/queries/";
    if (path.startsWith(queryPage) || path.startsWith(queryApi)) {
      boolean api = path.startsWith(queryApi);
      String id = path.substring((api ? queryApi : queryPage).length());
      try {
        QueryView view = QueryView.of(visibleQuery(id, principal), true);
        if (api) {
          json(exchange, 200, view);
        } else {
          String notice = params.containsKey("killed") ? "You killed the query; its client got the message below." : null;
          html(exchange, 200, ConsolePages.query(principal, who.csrf(), view, notice));
        }
      } catch (SqeException e) {
        fail(exchange, who, api, e);
      }
      return;
    }
    switch (path) {
      case PREFIX + "/sessions" -> {
        String killed = params.get("killed");
        html(exchange, 200, ConsolePages.sessions(
            principal, who.csrf(), sessionRows(principal), killed == null ? null : "Session " + killed + " was killed."));
      }
      case PREFIX + "/caches" -> html(exchange, 200, ConsolePages.caches(principal, who.csrf(), cacheRows()));
      case PREFIX + "/server" -> html(exchange, 200, ConsolePages.server(principal, who.csrf(), serverFacts(), settings));
      default -> html(exchange, 404, ConsolePages.error(principal, who.csrf(), "Not found", "The console has no page " + path));
    }
  }

  private void post(HttpExchange exchange, Caller who, String path, Map<String, String> form) throws IOException {
    Principal principal = who.principal();
    String queryPrefix = PREFIX + "/queries/";
    String sessionPrefix = PREFIX + "/sessions/";
    try {
      if (path.equals(PREFIX + "/logout")) {
        if (who.login() != null) {
          logins.end(who.login());
        }
        exchange.getResponseHeaders().add("Set-Cookie", ConsoleLogins.clearCookie());
        redirect(exchange, PREFIX + "/login");
      } else if (path.startsWith(queryPrefix) && path.endsWith("/kill")) {
        String id = path.substring(queryPrefix.length(), path.length() - "/kill".length());
        TrackedQuery query = queries.controllable(id, principal);
        query.cancel(ErrorCode.CANCELLED, QueryProcedures.killReason(form.get("message")));
        LOG.info("Query {} killed from the web console by {}", id, principal.user());
        try {
          query.awaitIdle(KILL_WAIT);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        redirect(exchange, queryPrefix + encode(id) + "?killed");
      } else if (path.startsWith(sessionPrefix) && path.endsWith("/kill")) {
        String id = path.substring(sessionPrefix.length(), path.length() - "/kill".length());
        sessionKills.kill(id, form.get("message"), principal);
        LOG.info("Session {} killed from the web console by {}", id, principal.user());
        redirect(exchange, PREFIX + "/sessions?killed=" + encode(id));
      } else {
        html(exchange, 404, ConsolePages.error(principal, who.csrf(), "Not found", "The console has no action " + path));
      }
    } catch (SqeException e) {
      fail(exchange, who, false, e);
    }
  }

  /** A statement the caller may see, with the same rules and words as {@code system.kill_query}. */
  private TrackedQuery visibleQuery(String id, Principal principal) {
    TrackedQuery query = queries.findWithHistory(id).orElseThrow(() -> new SqeException(
        ErrorCode.NOT_FOUND, "Unknown query " + id + ": it never existed, or it ended and is no longer in the history"));
    if (!query.isControllableBy(principal)) {
      throw new SqeException(ErrorCode.PERMISSION_DENIED, "Query " + id + " belongs to another user; only that user or an admin may see it");
    }
    return query;
  }

  private List<SessionRow> sessionRows(Principal principal) {
    List<SessionRow> rows = new ArrayList<>();
    Map<String, Long> running = new LinkedHashMap<>();
    for (TrackedQuery query : queries.all()) {
      query.sessionId().ifPresent(id -> running.merge(id, 1L, Long::sum));
    }
    for (ClientSession client : sessions.all()) {
      Session session = client.session();
      if (!principal.isAdmin() && !principal.user().equals(session.principal().user())) {
        continue;
      }
      rows.add(new SessionRow(
          client.id(), session.principal().user(), session.catalog(), session.schema(),
          session.options().get(RuntimeSchema.QUERY_TAG),
          Html.time(client.created()), Html.time(client.lastUsed()), running.getOrDefault(client.id(), 0L)));
    }
    return rows;
  }

  private List<CacheRow> cacheRows() {
    List<CacheRow> rows = new ArrayList<>();
    for (Map.Entry<String, Cache<?, ?>> entry : metrics.caches().entrySet()) {
      CacheStats stats = entry.getValue().stats();
      boolean looked = stats.requestCount() > 0;
      rows.add(new CacheRow(
          entry.getKey(),
          Html.count(entry.getValue().estimatedSize()),
          looked ? Html.count(stats.hitCount()) : "",
          looked ? Html.count(stats.missCount()) : "",
          looked ? stats.hitRate() : null,
          Html.count(stats.evictionCount())));
    }
    return rows;
  }

  private List<Fact> serverFacts() {
    List<Fact> facts = new ArrayList<>();
    boolean up = serving.serving();
    facts.add(new Fact("State", up ? "SERVING" : "SHUTTING DOWN", up));
    facts.add(new Fact("Version", ServerInfo.NAME + " " + ServerInfo.VERSION, null));
    facts.add(new Fact("Uptime", Html.duration(Duration.between(started, Instant.now())), null));
    LakehouseHealth.Report report = health.check();
    facts.add(new Fact("Catalog", report.catalog().ok() ? "OK" : "FAILING", report.catalog().ok()));
    facts.add(new Fact("Storage", report.storage().ok() ? "OK" : "FAILING", report.storage().ok()));
    long running = queries.all().stream().filter(q -> q.state() == TrackedQuery.State.RUNNING).count();
    facts.add(new Fact("Running statements", Long.toString(running), null));
    facts.add(new Fact("Queued statements", Long.toString(queries.admission().queued()), null));
    facts.add(new Fact("Open sessions", Long.toString(sessions.all().size()), null));
    return facts;
  }

  private void logIn(HttpExchange exchange) throws IOException {
    Map<String, String> form = form(exchange);
    String user = form.getOrDefault("user", "");
    String password = form.getOrDefault("password", "");
    Optional<Principal> principal = user.isEmpty() || user.indexOf(':') >= 0
        ? Optional.empty()
        : passwords.login(basic(user, password), exchange.getRemoteAddress().getAddress().getHostAddress());
    if (principal.isEmpty()) {
      html(exchange, 401, ConsolePages.login("Wrong user name or password.", user));
      return;
    }
    Login login = logins.start(principal.get());
    boolean https = exchange instanceof HttpsExchange || "https".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("X-Forwarded-Proto"));
    exchange.getResponseHeaders().add("Set-Cookie", ConsoleLogins.setCookie(login, https));
    LOG.info("{} logged in to the web console from {}", principal.get().user(), exchange.getRemoteAddress().getAddress().getHostAddress());
    redirect(exchange, PREFIX + "/queries");
  }

  private Optional<Caller> caller(HttpExchange exchange) {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    // Only a bearer token: a browser may resend Basic credentials on its own, as it does a cookie.
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return passwords.login(authorization, exchange.getRemoteAddress().getAddress().getHostAddress())
          .map(principal -> new Caller(principal, null));
    }
    return logins.find(exchange.getRequestHeaders().get("Cookie")).map(login -> new Caller(login.principal(), login));
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(UTF_8));
  }

  private void fail(HttpExchange exchange, Caller who, boolean api, SqeException e) throws IOException {
    int status = switch (e.code()) {
      case NOT_FOUND -> 404;
      case PERMISSION_DENIED -> 403;
      case INVALID_ARGUMENT -> 400;
      default -> 409;
    };
    if (api) {
      json(exchange, status, Map.of("error", e.getMessage(), "code", e.code().name()));
    } else {
      String title = status == 404 ? "Not found" : status == 403 ? "Not allowed" : "Refused";
      html(exchange, status, ConsolePages.error(who.principal(), who.csrf(), title, e.getMessage()));
    }
  }

  private static void staticFile(HttpExchange exchange, String name) throws IOException {
    if (!STATIC_FILES.contains(name)) {
      exchange.sendResponseHeaders(404, -1);
      return;
    }
    byte[] bytes;
    try (InputStream in = WebConsole.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("The console's " + name + " is missing from the server's jar");
      }
      bytes = in.readAllBytes();
    }
    exchange.getResponseHeaders().set("Content-Type", name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "max-age=300");
    send(exchange, 200, bytes);
  }

  private static Map<String, String> form(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readNBytes(MAX_FORM_BYTES + 1);
    if (body.length > MAX_FORM_BYTES) {
      return Map.of();
    }
    return urlEncoded(new String(body, UTF_8));
  }

  private static Map<String, String> urlEncoded(String raw) {
    Map<String, String> values = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      try {
        String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), UTF_8);
        values.putIfAbsent(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), UTF_8));
      } catch (IllegalArgumentException e) {
        // A malformed escape: the pair is left out, as a browser never sends one.
      }
    }
    return values;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, UTF_8);
  }

  private static void redirect(HttpExchange exchange, String location) throws IOException {
    exchange.getResponseHeaders().set("Location", location);
    exchange.sendResponseHeaders(303, -1);
  }

  private static void html(HttpExchange exchange, int status, String page) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    send(exchange, status, page.getBytes(UTF_8));
  }

  private static void json(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    send(exchange, status, bytes);
  }

  private static void send(HttpExchange exchange, int status, byte[] bytes) throws IOException {
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
