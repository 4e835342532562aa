package io.sqe.flight.config;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.plan.PlannerOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the server is configured with, read once at start and validated.
 *
 * @param host address to bind; loopback unless configured otherwise
 * @param port port to listen on
 * @param dataDir where the server keeps its state: the embedded warehouse, users and keys
 * @param catalog the Iceberg catalog to serve
 * @param auth authentication settings
 * @param maxQueryMemoryBytes Arrow memory one query may hold
 * @param maxRunTime how long a statement may run unless its session sets its own
 *     {@code statement_timeout}; zero for no limit
 * @param tpchScale TPC-H scale factor to load into the {@code tpch} schema at start (0 = none)
 * @param tls TLS for the Flight endpoint; null serves plain gRPC
 * @param security the access policy
 * @param auditFile where the audit log goes (JSON Lines); null for no audit log
 * @param maintenanceMinRetention the shortest retention threshold expire_snapshots and
 *     remove_orphan_files accept
 * @param caches the sizes of the engine's plan and result caches
 * @param operations health, metrics, logging and shutdown
 * @param planner the options statements are planned with ({@code query.parallelism}, {@code
 *     planner.*}), unless their session sets its own
 * @param execution the options plans run with ({@code execution.*}), unless their session sets its own
 * @param writeMaxCommitRetries how many times a statement outside a transaction runs again after
 *     its commit lost a race with another writer (0: never)
 * @param maxValueSize the longest value (in characters) one call of {@code repeat}, {@code lpad},
 *     {@code ||} and the other functions that can grow their input may return
 * @param maxReorderedJoins the most tables one join may bring together for the planner to choose
 *     their order; a larger join keeps the FROM list's order
 * @param limits what the server's own defences allow: heap, pending tickets, connections
 * @param trino the endpoint for Trino's client protocol
 * @param spill where queries spill ({@code query.spill-dir}, by default {@code <data-dir>/spill})
 *     and how much each may write there ({@code query.max-spill})
 * @param materializationReuse whether a CREATE OR REPLACE TABLE ... AS whose inputs did not change
 *     commits nothing ({@code materialization-reuse}), unless its session sets its own
 * @param offload the Trino cluster big queries may run on ({@code offload.*})
 */
public record ServerConfig(
    String host,
    int port,
    Path dataDir,
    CatalogConfig catalog,
    AuthSettings auth,
    long maxQueryMemoryBytes,
    Duration maxRunTime,
    double tpchScale,
    TlsSettings tls,
    SecuritySettings security,
    Path auditFile,
    Duration maintenanceMinRetention,
    CacheSettings caches,
    OperationsSettings operations,
    PlannerOptions planner,
    ExecutionOptions execution,
    int writeMaxCommitRetries,
    long maxValueSize,
    int maxReorderedJoins,
    Limits limits,
    TrinoSettings trino,
    SpillConfig spill,
    boolean materializationReuse,
    io.sqe.engine.offload.OffloadConfig offload) {
  public ServerConfig {
    requireNonNull(spill, "spill is null");
    requireNonNull(offload, "offload is null");
    requireNonNull(limits, "limits is null");
    requireNonNull(trino, "trino is null");
    if (writeMaxCommitRetries < 0) {
      throw new IllegalArgumentException("writeMaxCommitRetries must not be negative, not " + writeMaxCommitRetries);
    }
    requireNonNull(planner, "planner is null");
    requireNonNull(execution, "execution is null");
    requireNonNull(caches, "caches is null");
    requireNonNull(operations, "operations is null");
    requireNonNull(maintenanceMinRetention, "maintenanceMinRetention is null");
    requireNonNull(host, "host is null");
    requireNonNull(security, "security is null");
    requireNonNull(dataDir, "dataDir is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(auth, "auth is null");
    requireNonNull(maxRunTime, "maxRunTime is null");
  }

  /** The most threads one query's parallel pipelines use (1: none). */
  public int queryParallelism() {
    return planner.parallelism();
  }

  public ServerConfig withPort(int newPort) {
    return new ServerConfig(host, newPort, dataDir, catalog, auth, maxQueryMemoryBytes, maxRunTime, tpchScale, tls, security, auditFile, maintenanceMinRetention, caches, operations, planner, execution, writeMaxCommitRetries, maxValueSize, maxReorderedJoins, limits, trino, spill, materializationReuse, offload);
  }

  public ServerConfig withTpchScale(double scale) {
    return new ServerConfig(host, port, dataDir, catalog, auth, maxQueryMemoryBytes, maxRunTime, scale, tls, security, auditFile, maintenanceMinRetention, caches, operations, planner, execution, writeMaxCommitRetries, maxValueSize, maxReorderedJoins, limits, trino, spill, materializationReuse, offload);
  }

  public ServerConfig withMaxQueryMemoryBytes(long bytes) {
    return new ServerConfig(host, port, dataDir, catalog, auth, bytes, maxRunTime, tpchScale, tls, security, auditFile, maintenanceMinRetention, caches, operations, planner, execution, writeMaxCommitRetries, maxValueSize, maxReorderedJoins, limits, trino, spill, materializationReuse, offload);
  }

  public ServerConfig withOperations(OperationsSettings settings) {
    return new ServerConfig(host, port, dataDir, catalog, auth, maxQueryMemoryBytes, maxRunTime, tpchScale, tls, security, auditFile, maintenanceMinRetention, caches, settings, planner, execution, writeMaxCommitRetries, maxValueSize, maxReorderedJoins, limits, trino, spill, materializationReuse, offload);
  }

  /**
   * What the server's own defences allow, so that no client can take the server down for others.
   *
   * @param heapStopThreshold the share of the heap (0 to 1) still in use after a full collection
   *     at which the running statement that allocated the most is stopped; 0 turns this off
   * @param ticketBytesPerUser the most bytes the tickets of one user keep (statements, parameters)
   * @param ticketBytes the most bytes all tickets keep
   * @param maxConnectionsPerAddress the most Flight connections open at once from one client
   *     address; 0 for no limit
   * @param handshakeTimeout how long a new connection may take to send its first bytes and, with
   *     TLS, to finish its handshake
   * @param connectionIdleTimeout how long a connection may go without a call before it is closed
   *     (clients reconnect on their next call); zero for never
   * @param queryHistory how many ended statements {@code system.runtime.queries} keeps listing
   * @param maxRunningStatements statements that run at once, the rest waiting in order; 0 for no limit
   * @param maxRunningStatementsPerUser statements of one user that run or wait at once; 0 for no limit
   * @param queueTimeout how long a statement waits for its turn before RESOURCE_EXHAUSTED; zero for as long as it takes
   * @param maxSessions the most Flight SQL sessions open at once; 0 for no limit
   * @param sessionIdleTimeout how long a Flight SQL session lives without a call; its open transactions then roll back
   */
  public record Limits(
      double heapStopThreshold,
      long ticketBytesPerUser,
      long ticketBytes,
      int maxConnectionsPerAddress,
      Duration handshakeTimeout,
      Duration connectionIdleTimeout,
      int queryHistory,
      int maxRunningStatements,
      int maxRunningStatementsPerUser,
      Duration queueTimeout,
      int maxSessions,
      Duration sessionIdleTimeout) {
    public static final Limits DEFAULT = new Limits(
        0.9, 64L << 20, 256L << 20, 256, Duration.ofSeconds(10), Duration.ofMinutes(30), 1_000, 0, 0, Duration.ofMinutes(5), 0,
        Duration.ofHours(8));

    public Limits {
      if (heapStopThreshold < 0 || heapStopThreshold > 1) {
        throw new IllegalArgumentException("heapStopThreshold must be between 0 and 1, not " + heapStopThreshold);
      }
      if (ticketBytesPerUser <= 0 || ticketBytes <= 0) {
        throw new IllegalArgumentException("Ticket limits must be positive: " + ticketBytesPerUser + ", " + ticketBytes);
      }
      if (maxConnectionsPerAddress < 0) {
        throw new IllegalArgumentException("maxConnectionsPerAddress must not be negative: " + maxConnectionsPerAddress);
      }
      requireNonNull(handshakeTimeout, "handshakeTimeout is null");
      requireNonNull(connectionIdleTimeout, "connectionIdleTimeout is null");
      if (queryHistory < 0 || maxRunningStatements < 0 || maxRunningStatementsPerUser < 0 || maxSessions < 0) {
        throw new IllegalArgumentException(
            "Limits must not be negative: " + queryHistory + ", " + maxRunningStatements + ", " + maxRunningStatementsPerUser);
      }
      requireNonNull(queueTimeout, "queueTimeout is null");
      if (sessionIdleTimeout.isZero() || sessionIdleTimeout.isNegative()) {
        throw new IllegalArgumentException("sessionIdleTimeout must be positive: " + sessionIdleTimeout);
      }
    }
  }

  /**
   * The endpoint for Trino's client protocol (the Trino CLI and JDBC driver, trino-python-client,
   * dbt-trino), off unless it has a port; it serves HTTPS with the {@code tls.*} settings when
   * those are set.
   *
   * @param host the address to bind; null for the server's {@code host}
   * @param port the port; 0 picks a free one; -1: no Trino endpoint
   * @param clientTimeout how long a statement may go without its client fetching results before
   *     it is cancelled as abandoned (Trino's {@code query.client.timeout})
   */
  public record TrinoSettings(String host, int port, Duration clientTimeout) {
    public static final TrinoSettings OFF = new TrinoSettings(null, -1, Duration.ofMinutes(5));

    public TrinoSettings {
      requireNonNull(clientTimeout, "clientTimeout is null");
    }

    public boolean enabled() {
      return port >= 0;
    }
  }

  /** How log lines are written. */
  public enum LogFormat {
    /** One line of text per event: time, level, thread, query id, logger, message. */
    TEXT,
    /** One JSON object per line (logback's JSON encoder), the query id among its MDC fields. */
    JSON
  }

  /**
   * @param httpPort the port of the HTTP endpoint ({@code /health}, {@code /metrics},
   *     {@code /log-level}) on the server's host; 0 picks a free port; -1: no HTTP endpoint
   * @param shutdownGracePeriod how long running statements may go on after a shutdown begins,
   *     before they are cancelled
   * @param logFormat text or JSON log lines
   * @param logLevel the level of SQE's own loggers ({@code io.sqe}) at start
   * @param tracing where the traces of statements go, if anywhere
   * @param httpTls whether the HTTP endpoint (health, metrics, the web console) serves HTTPS with
   *     the {@code tls.*} key material ({@code http.tls})
   */
  public record OperationsSettings(
      int httpPort, Duration shutdownGracePeriod, LogFormat logFormat, String logLevel, TracingSettings tracing, boolean httpTls) {
    public static final OperationsSettings DEFAULT =
        new OperationsSettings(-1, Duration.ofSeconds(30), LogFormat.TEXT, "INFO", TracingSettings.OFF, false);

    public OperationsSettings {
      requireNonNull(shutdownGracePeriod, "shutdownGracePeriod is null");
      requireNonNull(logFormat, "logFormat is null");
      requireNonNull(logLevel, "logLevel is null");
      requireNonNull(tracing, "tracing is null");
    }

    public boolean httpEnabled() {
      return httpPort >= 0;
    }

    public OperationsSettings withShutdownGracePeriod(Duration period) {
      return new OperationsSettings(httpPort, period, logFormat, logLevel, tracing, httpTls);
    }
  }

  /**
   * OpenTelemetry traces of statements, sent over OTLP (HTTP/protobuf) to a collector.
   *
   * @param otlpEndpoint the collector's OTLP/HTTP traces URL ({@code tracing.otlp-endpoint}, its
   *     path {@code /v1/traces} unless it names one); null: no traces
   * @param sampleRatio the share of statements traced (0 to 1), unless a client's trace decided
   * @param serviceName the {@code service.name} of the traces' resource
   * @param resourceAttributes more attributes of the resource ({@code tracing.resource-attributes})
   */
  public record TracingSettings(URI otlpEndpoint, double sampleRatio, String serviceName, Map<String, String> resourceAttributes) {
    public static final TracingSettings OFF = new TracingSettings(null, 1.0, "sqe", Map.of());

    public TracingSettings {
      requireNonNull(serviceName, "serviceName is null");
      resourceAttributes = Map.copyOf(resourceAttributes);
      if (!(sampleRatio >= 0 && sampleRatio <= 1)) {
        throw new IllegalArgumentException("sampleRatio must be from 0 to 1, not " + sampleRatio);
      }
    }

    public boolean enabled() {
      return otlpEndpoint != null;
    }
  }

  /**
   * The engine's caches.
   *
   * @param planCacheMaxEntries compiled plans kept; zero turns the plan cache off
   * @param resultCacheMaxBytes bytes of query results kept; zero turns the result cache off
   */
  public record CacheSettings(int planCacheMaxEntries, long resultCacheMaxBytes, long footerCacheMaxColumnChunks, long planningCacheMaxFiles) {}

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
   * @param passThroughToken whether REST catalog calls carry the user's own identity-provider token
   */
  public record CatalogConfig(
      String name, CatalogType type, Path warehouse, Map<String, String> properties, Duration cacheTtl, boolean passThroughToken) {
    public CatalogConfig(String name, CatalogType type, Path warehouse, Map<String, String> properties, Duration cacheTtl) {
      this(name, type, warehouse, properties, cacheTtl, false);
    }

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
   * @param maxFailedLogins failed logins allowed per user, and per client address, within {@code lockout}
   * @param lockout how long a user or address that reached {@code maxFailedLogins} is refused
   * @param oidc an OpenID Connect identity provider whose tokens SQE accepts; null for none
   * @param usersRefreshPeriod how often the users file is checked for changes made by other
   *     servers or {@code sqe user}; zero never
   * @param passwordCacheTtl how long a user's last verified password is remembered, so that its
   *     next login skips PBKDF2, and an HTTP endpoint's accepted password stands for its login;
   *     zero never
   */
  public record AuthSettings(
      Duration tokenLifetime,
      String issuer,
      int passwordHashIterations,
      int maxFailedLogins,
      Duration lockout,
      OidcSettings oidc,
      Duration usersRefreshPeriod,
      Duration passwordCacheTtl) {
    public AuthSettings {
      requireNonNull(tokenLifetime, "tokenLifetime is null");
      requireNonNull(issuer, "issuer is null");
      requireNonNull(lockout, "lockout is null");
      requireNonNull(usersRefreshPeriod, "usersRefreshPeriod is null");
      requireNonNull(passwordCacheTtl, "passwordCacheTtl is null");
    }
  }

  /**
   * An OpenID Connect provider.
   *
   * @param issuer the provider's issuer URL; tokens must carry exactly this {@code iss}
   * @param audiences a token must name one of these in {@code aud}
   * @param jwksUri where the signing keys are; null to discover it from the issuer
   * @param algorithms the signature algorithms accepted (never {@code none} or HMAC)
   * @param userClaim the claim that names the user; {@code sub} when a token lacks it
   * @param roleClaims dotted claim paths holding the user's roles ({@code realm_access.roles})
   * @param clockSkew tolerance for {@code exp} and {@code nbf}
   * @param jwksMinRefresh the least time between two fetches of the signing keys, which happen when
   *     a token names a key id not seen yet (a rotation); bounds what made-up key ids can cost
   * @param clientId the client SQE uses for the password grant; null: Basic logins are local
   * @param clientSecret that client's secret; null for a public client
   * @param tokenEndpoint the password grant's endpoint; null to discover it from the issuer
   * @param scopes the scopes the password grant asks for; some providers choose the token's
   *     audience by scope ({@code api://sqe/.default})
   */
  public record OidcSettings(
      URI issuer,
      Set<String> audiences,
      URI jwksUri,
      Set<String> algorithms,
      String userClaim,
      List<String> roleClaims,
      Duration clockSkew,
      Duration jwksMinRefresh,
      String clientId,
      String clientSecret,
      URI tokenEndpoint,
      String scopes) {
    public OidcSettings {
      requireNonNull(issuer, "issuer is null");
      audiences = Set.copyOf(audiences);
      algorithms = Set.copyOf(algorithms);
      requireNonNull(userClaim, "userClaim is null");
      roleClaims = List.copyOf(roleClaims);
      requireNonNull(clockSkew, "clockSkew is null");
      requireNonNull(jwksMinRefresh, "jwksMinRefresh is null");
    }

    public boolean passwordGrant() {
      return clientId != null;
    }

    /** Keeps the client secret out of logs. */
    @Override
    public String toString() {
      return "OidcSettings[issuer=" + issuer + ", audiences=" + audiences + ", clientId=" + clientId + "]";
    }
  }

  /**
   * TLS on the Flight endpoint, from PEM files.
   *
   * @param certificateChain the server's certificate chain
   * @param privateKey the server's private key (PKCS#8, {@code BEGIN PRIVATE KEY})
   * @param clientCa when set, clients must present a certificate signed by one of these (mTLS)
   */
  public record TlsSettings(Path certificateChain, Path privateKey, Path clientCa) {
    public TlsSettings {
      requireNonNull(certificateChain, "certificateChain is null");
      requireNonNull(privateKey, "privateKey is null");
    }
  }

  /**
   * @param policyFile the access policy (Trino rules.json format, JSON or YAML); null: every user may do everything
   * @param refreshPeriod how often the policy file is checked for changes; zero: never
   * @param allowedLocations the location prefixes under which administrators may place tables
   *     ({@code location} and the path properties); empty: nobody may choose where files go
   */
  public record SecuritySettings(Path policyFile, Duration refreshPeriod, List<String> allowedLocations) {
    public SecuritySettings {
      requireNonNull(refreshPeriod, "refreshPeriod is null");
      allowedLocations = List.copyOf(allowedLocations);
    }
  }
}
