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

  private RestCatalogFixture(Server server, JdbcCatalog backend) {
    this.server = server;
    this.backend = backend;
  }

  public static RestCatalogFixture start(Path dir) throws Exception {
    java.nio.file.Files.createDirectories(dir);
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("rest-catalog.db"));
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("rest-warehouse").toUri().toString());
    properties.put("jdbc.schema-version", "V1");
    properties.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
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
    context.addServlet(new ServletHolder(new CountingServlet(servlet, fixture)), "/*");
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

  /**
   * Holds the next {@code count} commits to table {@code name} (in any namespace) until the gate
   * is released; replaces an earlier gate.
   */
  public CommitGate holdCommits(String name, int count) {
    CommitGate next = new CommitGate(name, count);
    gate = next;
    return next;
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
      CommitGate gate = fixture.gate;
      if (gate != null) {
        gate.pass(request);
      }
      delegate.service(request, response);
    }
  }
}
