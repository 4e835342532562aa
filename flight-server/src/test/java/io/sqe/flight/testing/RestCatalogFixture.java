package io.sqe.flight.testing;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Iceberg REST catalog server for tests: Apache Iceberg's own REST servlet and adapter (what
 * its {@code RESTCatalogServer} runs) over a JDBC catalog on SQLite, served by Jetty on
 * 127.0.0.1 only, and counting the requests it answers.
 */
public final class RestCatalogFixture implements AutoCloseable {
  private final Server server;
  private final JdbcCatalog backend;
  private final AtomicLong requests = new AtomicLong();
  private volatile CommitGate gate;
  private volatile LostAnswers lostAnswers;
  private volatile java.util.function.ToIntFunction<jakarta.servlet.http.HttpServletRequest> guard;
  private final AtomicLong credentialRequests = new AtomicLong();
  private volatile ShortLivedCredentials shortLived;

  private RestCatalogFixture(Server server, JdbcCatalog backend) {
    this.server = server;
    this.backend = backend;
  }

  public static RestCatalogFixture start(Path dir) throws Exception {
    return start(dir, Map.of());
  }

  /**
   * A catalog whose backend gets {@code backendProperties} on top of the defaults, e.g. a {@code
   * warehouse} on S3 with S3FileIO settings.
   */
  public static RestCatalogFixture start(Path dir, Map<String, String> backendProperties) throws Exception {
    return start(dir, backendProperties, Map.of());
  }

  /**
   * A catalog that vends {@code vendedStorageProperties} (e.g. S3 keys) with every table it loads
   * or creates for a client that asks for them ({@code X-Iceberg-Access-Delegation:
   * vended-credentials}), as Polaris and other catalogs do; as Iceberg's own {@code
   * RESTCatalogServer} does with {@code include-credentials}.
   */
  public static RestCatalogFixture start(
      Path dir, Map<String, String> backendProperties, Map<String, String> vendedStorageProperties) throws Exception {
    java.nio.file.Files.createDirectories(dir);
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("rest-catalog.db"));
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("rest-warehouse").toUri().toString());
    properties.put("jdbc.schema-version", "V1");
    properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    // Like a real catalog server: no table or view is created in a namespace that does not exist.
    properties.put("jdbc.strict-mode", "true");
    properties.putAll(backendProperties);
    JdbcCatalog backend = new JdbcCatalog();
    backend.setConf(new Configuration());
    backend.initialize("rest_backend", properties);

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    RestCatalogFixture fixture = new RestCatalogFixture(server, backend);
    RESTCatalogAdapter adapter = new VendingAdapter(backend, vendedStorageProperties, fixture);
    RESTCatalogServlet servlet = new RESTCatalogServlet(adapter);
    context.addServlet(new ServletHolder(new CountingServlet(servlet, fixture)), "/*");
    server.setHandler(context);
    server.start();
    return fixture;
  }

  /**
   * A catalog that vends short-lived storage credentials, as Apache Polaris does: each table it
   * loads or creates for a client that asks for credentials comes with a fresh set from {@code
   * mint} (in the REST spec's {@code storage-credentials}, with their expiry), and, with {@code
   * offerRefresh}, with {@code client.refresh-credentials-endpoint} naming the table's {@code
   * GET .../credentials} endpoint, which hands out a fresh set each time it is called.
   */
  public static RestCatalogFixture startVendingShortLived(
      Path dir, Map<String, String> backendProperties, java.util.function.Supplier<Map<String, String>> mint, boolean offerRefresh)
      throws Exception {
    RestCatalogFixture fixture = start(dir, backendProperties, Map.of());
    fixture.shortLived = new ShortLivedCredentials(mint, offerRefresh);
    return fixture;
  }

  /** How many times clients fetched fresh credentials from the credentials endpoint. */
  public long credentialRequests() {
    return credentialRequests.get();
  }

  public String uri() {
    return "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** The catalog behind the REST server, for changes "another engine" makes. */
  public JdbcCatalog backend() {
    return backend;
  }

  public long requests() {
    return requests.get();
  }

  /**
   * Holds the next {@code count} commits to table {@code name} (in any namespace) until the gate
   * is released; replaces an earlier gate.
   */
  public CommitGate holdCommits(String name, int count) {
    CommitGate next = new CommitGate(name, count);
    gate = next;
    return next;
  }

  /**
   * Applies the next commit to table {@code name} but answers it with 504 Gateway Timeout, as when
   * the answer is lost on the way back. Iceberg's client then reloads the table to see whether
   * its snapshot is there; with {@code refuseReload}, that one reload is refused (403), so the
   * committer cannot know whether its commit landed.
   */
  public void loseAnswerToCommit(String name, boolean refuseReload) {
    lostAnswers = new LostAnswers(
        CommitGate.commitPath(name),
        new java.util.concurrent.atomic.AtomicInteger(1),
        new java.util.concurrent.atomic.AtomicInteger(refuseReload ? 1 : 0));
  }

  private record LostAnswers(
      java.util.regex.Pattern path,
      java.util.concurrent.atomic.AtomicInteger commits,
      java.util.concurrent.atomic.AtomicInteger reloads) {
    boolean loseAnswer(jakarta.servlet.http.HttpServletRequest request) {
      return "POST".equals(request.getMethod()) && path.matcher(request.getRequestURI()).matches() && commits.getAndDecrement() > 0;
    }

    boolean refuse(jakarta.servlet.http.HttpServletRequest request) {
      return "GET".equals(request.getMethod()) && commits.get() <= 0 && path.matcher(request.getRequestURI()).matches()
          && reloads.getAndDecrement() > 0;
    }
  }

  /**
   * Runs {@code check} on every request before the catalog answers it, as a catalog's own access
   * control would: a result other than 0 refuses the request with that HTTP status (and the REST
   * protocol's error body). Null removes the check.
   */
  public void guard(java.util.function.ToIntFunction<jakarta.servlet.http.HttpServletRequest> check) {
    guard = check;
  }

  /**
   * Runs the catalog as a process of its own, for tests outside Java (clients/load-balanced-tests
   * starts SQE servers as processes over it): {@code RestCatalogFixture <dir>} prints {@code REST
   * catalog at <uri>} once it serves, and serves until its standard input closes.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: RestCatalogFixture <directory>");
      System.exit(2);
    }
    try (RestCatalogFixture fixture = start(Path.of(args[0]))) {
      System.out.println("REST catalog at " + fixture.uri());
      System.out.flush();
      while (System.in.read() >= 0) {
        // serve until the parent closes our input (or exits)
      }
    }
  }

  /** Server settings that point SQE at this catalog. */
  public Map<String, String> sqeSettings() {
    return Map.of("catalog.type", "rest", "catalog.properties.uri", uri());
  }

  @Override
  public void close() throws Exception {
    server.stop();
    backend.close();
  }

  /** Short-lived credentials from {@code mint}, refreshable at the credentials endpoint or not. */
  private record ShortLivedCredentials(java.util.function.Supplier<Map<String, String>> mint, boolean offerRefresh) {
    static final java.util.regex.Pattern ENDPOINT = java.util.regex.Pattern.compile("/v1/namespaces/[^/]+/tables/[^/]+/credentials");

    org.apache.iceberg.rest.credentials.Credential credential() {
      return org.apache.iceberg.rest.credentials.ImmutableCredential.builder().prefix("s3://").config(mint.get()).build();
    }

    String responseBody() {
      return org.apache.iceberg.rest.responses.LoadCredentialsResponseParser.toJson(
          org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse.builder().addCredentials(credential()).build());
    }
  }

  /**
   * Adds storage credentials to the tables it hands to clients that ask for them: the fixture's
   * static ones in the table config, or short-lived ones as storage credentials.
   */
  private static final class VendingAdapter extends RESTCatalogAdapter {
    static final String DELEGATION_HEADER = "X-Iceberg-Access-Delegation";
    private final Map<String, String> vended;
    private final RestCatalogFixture fixture;

    VendingAdapter(org.apache.iceberg.catalog.Catalog backend, Map<String, String> vended, RestCatalogFixture fixture) {
      super(backend);
      this.vended = Map.copyOf(vended);
      this.fixture = fixture;
    }

    @Override
    protected <T extends org.apache.iceberg.rest.RESTResponse> T execute(
        org.apache.iceberg.rest.HTTPRequest request,
        Class<T> responseType,
        java.util.function.Consumer<org.apache.iceberg.rest.responses.ErrorResponse> errorHandler,
        java.util.function.Consumer<Map<String, String>> responseHeaders) {
      T response = super.execute(request, responseType, errorHandler, responseHeaders);
      boolean asked =
          request.headers().entries(DELEGATION_HEADER).stream().anyMatch(h -> h.value().contains("vended-credentials"));
      ShortLivedCredentials shortLived = fixture.shortLived;
      if (asked && response instanceof org.apache.iceberg.rest.responses.LoadTableResponse loaded
          && (!vended.isEmpty() || shortLived != null)) {
        var builder = org.apache.iceberg.rest.responses.LoadTableResponse.builder()
            .withTableMetadata(loaded.tableMetadata())
            .addAllConfig(loaded.config())
            .addAllConfig(vended)
            .addAllCredentials(loaded.credentials());
        if (shortLived != null) {
          builder.addCredential(shortLived.credential());
          if (shortLived.offerRefresh()) {
            builder.addConfig("client.refresh-credentials-endpoint", credentialsPath(request, loaded));
          }
        }
        @SuppressWarnings("unchecked")
        T withCredentials = (T) builder.build();
        return withCredentials;
      }
      return response;
    }

    /** The table's credentials endpoint, relative to the catalog's URI, as Polaris gives it. */
    private static String credentialsPath(org.apache.iceberg.rest.HTTPRequest request, org.apache.iceberg.rest.responses.LoadTableResponse loaded) {
      String path = request.path().replaceFirst("^/", "");
      if (request.body() instanceof org.apache.iceberg.rest.requests.CreateTableRequest create) {
        path = path + "/" + create.name(); // POST .../tables creates; the table is named in the body
      }
      return path + "/credentials";
    }
  }

  private static final class CountingServlet extends jakarta.servlet.http.HttpServlet {
    private final RESTCatalogServlet delegate;
    private final RestCatalogFixture fixture;

    CountingServlet(RESTCatalogServlet delegate, RestCatalogFixture fixture) {
      this.delegate = delegate;
      this.fixture = fixture;
    }

    @Override
    public void init(jakarta.servlet.ServletConfig config) throws jakarta.servlet.ServletException {
      super.init(config);
      delegate.init(config);
    }

    @Override
    protected void service(jakarta.servlet.http.HttpServletRequest request, jakarta.servlet.http.HttpServletResponse response)
        throws jakarta.servlet.ServletException, java.io.IOException {
      fixture.requests.incrementAndGet();
      var check = fixture.guard;
      int refusal = check == null ? 0 : check.applyAsInt(request);
      if (refusal != 0) {
        response.setStatus(refusal);
        response.setContentType("application/json");
        response.getWriter().write(
            "{\"error\":{\"message\":\"Refused by the catalog's access control\",\"type\":\"ForbiddenException\",\"code\":" + refusal + "}}");
        return;
      }
      ShortLivedCredentials shortLived = fixture.shortLived;
      if (shortLived != null && shortLived.offerRefresh() && "GET".equals(request.getMethod())
          && ShortLivedCredentials.ENDPOINT.matcher(request.getRequestURI()).matches()) {
        fixture.credentialRequests.incrementAndGet();
        response.setStatus(200);
        response.setContentType("application/json");
        response.getWriter().write(shortLived.responseBody());
        return;
      }
      CommitGate gate = fixture.gate;
      if (gate != null) {
        gate.pass(request);
      }
      LostAnswers lost = fixture.lostAnswers;
      if (lost != null && lost.loseAnswer(request)) {
        delegate.service(request, new DiscardedResponse(response));
        response.sendError(jakarta.servlet.http.HttpServletResponse.SC_GATEWAY_TIMEOUT, "answer lost");
        return;
      }
      if (lost != null && lost.refuse(request)) {
        response.sendError(jakarta.servlet.http.HttpServletResponse.SC_FORBIDDEN, "not now");
        return;
      }
      delegate.service(request, response);
    }
  }

  /** A response whose status, headers and body go nowhere. */
  private static final class DiscardedResponse extends jakarta.servlet.http.HttpServletResponseWrapper {
    DiscardedResponse(jakarta.servlet.http.HttpServletResponse response) {
      super(response);
    }

    @Override
    public void setStatus(int sc) {}

    @Override
    public void sendError(int sc, String msg) {}

    @Override
    public void sendError(int sc) {}

    @Override
    public void setHeader(String name, String value) {}

    @Override
    public void addHeader(String name, String value) {}

    @Override
    public void setContentType(String type) {}

    @Override
    public void setContentLength(int len) {}

    @Override
    public void setContentLengthLong(long len) {}

    @Override
    public jakarta.servlet.ServletOutputStream getOutputStream() {
      return new jakarta.servlet.ServletOutputStream() {
        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(jakarta.servlet.WriteListener listener) {}

        @Override
        public void write(int b) {}
      };
    }

    @Override
    public java.io.PrintWriter getWriter() {
      return new java.io.PrintWriter(java.io.Writer.nullWriter());
    }

    @Override
    public void flushBuffer() {}
  }
}
