package io.sqe.flight.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Everything the server is configured with, read once at start and validated.
 *
 * @param host address to bind; loopback unless configured otherwise
 * @param port port to listen on
 * @param dataDir where the server keeps its state: the embedded warehouse, users and keys
 * @param catalog the Iceberg catalog to serve
 * @param auth authentication settings
 * @param maxQueryMemoryBytes Arrow memory one query may hold
 * @param tpchScale TPC-H scale factor to load into the {@code tpch} schema at start (0 = none)
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    CatalogConfig catalog,
    AuthSettings auth,
    long maxQueryMemoryBytes,
    double tpchScale) {
  public ServerConfig {
    requireNonNull(host, "host is null");
    requireNonNull(dataDir, "dataDir is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(auth, "auth is null");
  }

  public ServerConfig withPort(int newPort) {
    return new ServerConfig(host, newPort, dataDir, catalog, auth, maxQueryMemoryBytes, tpchScale);
  }

  public ServerConfig withTpchScale(double scale) {
    return new ServerConfig(host, port, dataDir, catalog, auth, maxQueryMemoryBytes, scale);
  }

  public ServerConfig withMaxQueryMemoryBytes(long bytes) {
    return new ServerConfig(host, port, dataDir, catalog, auth, bytes, tpchScale);
  }

  /** Which catalog to serve and how to reach it. */
  public enum CatalogType {
    /** Iceberg's JDBC catalog on SQLite over a local warehouse directory: no other service. */
    EMBEDDED,
    /** An Iceberg REST catalog such as Polaris, Nessie or Lakekeeper. */
    REST
  }

  /**
   * @param name the catalog's name in SQL ({@code name.schema.table})
   * @param type embedded or REST
   * @param warehouse the embedded catalog's directory
   * @param properties handed to Iceberg's catalog client unchanged (REST: uri, warehouse, credential, ...)
   * @param cacheTtl how long a loaded table is reused before the catalog is asked again
   */
  public record CatalogConfig(
      String name, CatalogType type, Path warehouse, Map<String, String> properties, Duration cacheTtl) {
    public CatalogConfig {
      requireNonNull(name, "name is null");
      requireNonNull(type, "type is null");
      requireNonNull(warehouse, "warehouse is null");
      properties = Map.copyOf(properties);
      requireNonNull(cacheTtl, "cacheTtl is null");
    }
  }

  /**
   * @param tokenLifetime how long a bearer token from the handshake stays valid
   * @param issuer the issuer claim of SQE's tokens
   * @param passwordHashIterations PBKDF2 iterations for new password hashes
   */
  public record AuthSettings(Duration tokenLifetime, String issuer, int passwordHashIterations) {
    public AuthSettings {
      requireNonNull(tokenLifetime, "tokenLifetime is null");
      requireNonNull(issuer, "issuer is null");
    }
  }
}
