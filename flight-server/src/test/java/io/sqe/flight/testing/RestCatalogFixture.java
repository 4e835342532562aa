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
    RESTCatalogAdapter adapter =
        vendedStorageProperties.isEmpty() ? new RESTCatalogAdapter(backend) : new VendingAdapter(backend, vendedStorageProperties);
    RESTCatalogServlet servlet = new RESTCatalogServlet(adapter);
    context.addServlet(new ServletHolder(new CountingServlet(servlet, fixture.requests)), "/*");
    server.setHandler(context);
    server.start();
    return fixture;
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

  /** Server settings that point SQE at this catalog. */
  public Map<String, String> sqeSettings() {
    return Map.of("catalog.type", "rest", "catalog.properties.uri", uri());
  }

  @Override
  public void close() throws Exception {
    server.stop();
    backend.close();
  }

  /** Adds storage credentials to the tables it hands to clients that ask for them. */
  private static final class VendingAdapter extends RESTCatalogAdapter {
    static final String DELEGATION_HEADER = "X-Iceberg-Access-Delegation";
    private final Map<String, String> vended;

    VendingAdapter(org.apache.iceberg.catalog.Catalog backend, Map<String, String> vended) {
      super(backend);
      this.vended = Map.copyOf(vended);
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
      if (asked && response instanceof org.apache.iceberg.rest.responses.LoadTableResponse) {
        org.apache.iceberg.rest.responses.LoadTableResponse loaded = (org.apache.iceberg.rest.responses.LoadTableResponse) response;
        @SuppressWarnings("unchecked")
        T withCredentials =
            (T) org.apache.iceberg.rest.responses.LoadTableResponse.builder()
                .withTableMetadata(loaded.tableMetadata())
                .addAllConfig(loaded.config())
                .addAllConfig(vended)
                .addAllCredentials(loaded.credentials())
                .build();
        return withCredentials;
      }
      return response;
    }
  }

  private static final class CountingServlet extends jakarta.servlet.http.HttpServlet {
    private final RESTCatalogServlet delegate;
    private final AtomicLong requests;

    CountingServlet(RESTCatalogServlet delegate, AtomicLong requests) {
      this.delegate = delegate;
      this.requests = requests;
    }

    @Override
    public void init(jakarta.servlet.ServletConfig config) throws jakarta.servlet.ServletException {
      super.init(config);
      delegate.init(config);
    }

    @Override
    protected void service(jakarta.servlet.http.HttpServletRequest request, jakarta.servlet.http.HttpServletResponse response)
        throws jakarta.servlet.ServletException, java.io.IOException {
      requests.incrementAndGet();
      delegate.service(request, response);
    }
  }
}
