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
    RESTCatalogServlet servlet = new RESTCatalogServlet(new RESTCatalogAdapter(backend));
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
