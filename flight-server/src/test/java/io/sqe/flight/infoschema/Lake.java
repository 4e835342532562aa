package io.sqe.flight.infoschema;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * An SQE server in one catalog mode, and the same Iceberg catalog as another engine reaches it:
 * the REST server's backend, or a second client of the embedded catalog's SQLite database.
 */
final class Lake implements AutoCloseable {
  final CatalogMode mode;
  final TestServer server;
  private final RestCatalogFixture rest;
  private final LakehouseCatalog otherEngine;

  private Lake(CatalogMode mode, TestServer server, RestCatalogFixture rest, LakehouseCatalog otherEngine) {
    this.mode = mode;
    this.server = server;
    this.rest = rest;
    this.otherEngine = otherEngine;
  }

  static Lake start(CatalogMode mode, Path dir, Map<String, String> settings) throws Exception {
    Map<String, String> values = new HashMap<>(settings);
    if (mode == CatalogMode.REST) {
      RestCatalogFixture rest = RestCatalogFixture.start(dir.resolve("rest"));
      values.putAll(rest.sqeSettings());
      return new Lake(mode, TestServer.start(dir.resolve("sqe"), values), rest, null);
    }
    TestServer server = TestServer.start(dir.resolve("sqe"), values);
    LakehouseCatalog other =
        IcebergCatalogFactory.embedded("iceberg", dir.resolve("sqe").resolve("warehouse"), Duration.ZERO);
    return new Lake(mode, server, null, other);
  }

  /** The catalog as another engine writes to it, bypassing SQE (an embedded catalog is named in its SQLite rows). */
  JdbcCatalog otherEngine() {
    return rest != null ? rest.backend() : (JdbcCatalog) otherEngine.iceberg();
  }

  Catalog tables() {
    return otherEngine();
  }

  SupportsNamespaces namespaces() {
    return otherEngine();
  }

  ViewCatalog views() {
    return otherEngine();
  }

  /** Requests the REST catalog has answered so far. */
  long catalogRequests() {
    if (rest == null) {
      throw new IllegalStateException("Only the REST catalog counts its requests");
    }
    return rest.requests();
  }

  Connection jdbc() throws SQLException {
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    return DriverManager.getConnection(server.jdbcUrl(), props);
  }

  @Override
  public void close() throws Exception {
    try (AutoCloseable s = server; AutoCloseable r = rest; AutoCloseable o = otherEngine) {
      // Closed in reverse order: the other engine's client, the REST catalog, then the server.
    }
  }
}
