package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.flight.trino.PemKeyStores;
import java.security.GeneralSecurityException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import io.grpc.netty.NettyServerBuilder;
import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.iceberg.SnapshotFiles;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.exec.Admission;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.PolicyFile;
import io.sqe.engine.users.LocalUsers;
import io.sqe.engine.users.UserStatements;
import io.sqe.flight.config.ConfigException;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.audit.StatementListener;
import io.sqe.flight.tracing.StatementTracing;
import io.sqe.flight.auth.AuthConfig;
import io.sqe.flight.auth.ClientAddressHeader;
import io.sqe.flight.auth.HttpAuthentication;
import io.sqe.flight.auth.SqeAuthenticator;
import io.sqe.flight.auth.LocalAuthentication;
import io.sqe.flight.auth.LoginThrottle;
import io.sqe.flight.auth.OidcProvider;
import io.sqe.flight.auth.StoreUsers;
import io.sqe.flight.config.ServerConfig;
import io.sqe.flight.console.WebConsole;
import io.sqe.flight.connections.GuardedTransport;
import io.sqe.flight.metadata.ServerSqlInfo;
import io.sqe.flight.ops.LakehouseHealth;
import io.sqe.flight.ops.LogSettings;
import io.sqe.flight.ops.OpsHttpServer;
import io.sqe.flight.ops.ServerMetrics;
import io.sqe.flight.ops.ServingState;
import io.sqe.flight.runtime.QueryFailures;
import io.sqe.flight.runtime.RuntimeSchema;
import io.sqe.flight.runtime.SessionProcedures;
import io.sqe.flight.session.SessionManager;
import io.sqe.flight.trino.TrinoEndpoint;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.infoschema.InformationSchema;
import io.sqe.infoschema.ShowStatements;
import io.sqe.sample.tpch.TpchLoader;
import io.sqe.write.WritePath;
import io.sqe.write.maintenance.MaintenanceSettings;
import io.sqe.write.storage.LocationRules;
import java.io.IOException;
import java.net.URI;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running SQE server: catalogs, engine, authentication, the Flight SQL endpoint with the gRPC
 * health service, and the HTTP operations endpoint (health, metrics, log levels) when configured.
 */
public final class SqeServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqeServer.class);
  private static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final int MAX_INBOUND_MESSAGE_BYTES = 256 * 1024 * 1024;
  private static final int KEEPALIVE_MIN_INTERVAL_SECONDS = 10;
  /** How long cancelled statements get to end after the grace period. */
  private static final Duration CANCEL_WAIT = Duration.ofSeconds(10);

  private final ServerConfig config;
  private final BufferAllocator allocator;
  private final Catalogs catalogs;
  private final LocalAuthentication authentication;
  private final QueryEngine engine;
  private final SqeFlightSqlProducer producer;
  private final FlightServer server;
  private final AuditLog audit;
  private final ServingState serving;
  private final ServerMetrics metrics;
  private final LakehouseHealth health;
  private final OpsHttpServer http;
  private final TrinoEndpoint trino;
  private final ExecutorService callThreads;
  private final HeapGuard heap;
  private final GuardedTransport transport;
  private final Object closing = new Object();
  private boolean closed;

  private SqeServer(
      ServerConfig config,
      BufferAllocator allocator,
      Catalogs catalogs,
      LocalAuthentication authentication,
      QueryEngine engine,
      SqeFlightSqlProducer producer,
      FlightServer server,
      AuditLog audit,
      Operations operations) {
    this.audit = audit;
    this.config = config;
    this.allocator = allocator;
    this.catalogs = catalogs;
    this.authentication = authentication;
    this.engine = engine;
    this.producer = producer;
    this.server = server;
    this.serving = operations.serving();
    this.metrics = operations.metrics();
    this.health = operations.health();
    this.http = operations.http();
    this.trino = operations.trino();
    this.callThreads = operations.callThreads();
    this.heap = operations.heap();
    this.transport = operations.transport();
  }

  /** The operations parts a server owns, and the Trino endpoint (null when off). */
  private record Operations(
      ServingState serving,
      ServerMetrics metrics,
      LakehouseHealth health,
      OpsHttpServer http,
      ExecutorService callThreads,
      HeapGuard heap,
      GuardedTransport transport,
      TrinoEndpoint trino) {}

  /** Opens the catalog, loads sample data if asked, and starts listening. */
  public static SqeServer start(ServerConfig config) {
    requireNonNull(config, "config is null");
    LogSettings.protectCredentials();
    BufferAllocator allocator = new RootAllocator();
    Catalogs catalogs = null;
    ServerMetrics metrics = ServerMetrics.create();
    // Made first: the audit hears how statements fail, for system.runtime.queries.
    ServerConfig.Limits limits = config.limits();
    Admission admission = new Admission(limits.maxRunningStatements(), limits.maxRunningStatementsPerUser(), limits.queueTimeout());
    QueryTracker queries = new QueryTracker(limits.queryHistory(), admission);
    StatementListener statements = new QueryFailures(metrics, queries);
    // The audit log begins and ends each statement's trace, and closes the tracer.
    StatementTracing tracing = StatementTracing.start(config.operations().tracing());
    if (tracing.enabled()) {
      URI collector = config.operations().tracing().otlpEndpoint();
      // Without the URL's user info, which may hold a password.
      LOG.info("Traces of statements to {}://{}:{}{}", collector.getScheme(), collector.getHost(), collector.getPort(), collector.getPath());
    }
    AuditLog audit = AuditLog.disabled(statements, tracing);
    LakehouseHealth health = null;
    OpsHttpServer http = null;
    TrinoEndpoint trino = null;
    ExecutorService callThreads = null;
    HeapGuard heap = null;
    GuardedTransport transport = null;
    try {
      if (config.auditFile() != null) {
        audit = AuditLog.open(config.auditFile(), statements, tracing);
        LOG.info("Audit log: {}", config.auditFile());
      }
      // Authentication (the user store: a new admin's password hash, 210,000 PBKDF2 rounds; the
      // signing key; OIDC discovery) needs nothing of the catalog or the engine: it is made on a
      // thread of its own while they are, the other core's work during a start.
      AuditLog auditLog = audit;
      CompletableFuture<LocalAuthentication> authenticating = new CompletableFuture<>();
      Thread authThread = new Thread(() -> {
        try {
          authenticating.complete(authentication(config, auditLog));
        } catch (IOException | RuntimeException | Error e) {
          authenticating.completeExceptionally(e);
        }
      }, "sqe-start-auth");
      authThread.setDaemon(true);
      authThread.start();
      LakehouseCatalog lakehouse = openCatalog(config);
      catalogs = new Catalogs(List.of(lakehouse), config.catalog().name());
      health = new LakehouseHealth(
          lakehouse, config.catalog().type() == ServerConfig.CatalogType.EMBEDDED ? config.catalog().warehouse() : null);
      if (config.tpchScale() > 0) {
        LakehouseCatalog catalog = catalogs.find(config.catalog().name()).orElseThrow();
        LOG.info("Loading TPC-H at scale {} into {}.tpch", config.tpchScale(), catalog.name());
        var summary = TpchLoader.defaults().load(catalog, "tpch", config.tpchScale());
        LOG.info("TPC-H ready in {}.tpch: {}", catalog.name(), summary.rowsPerTable());
      }
      AccessControl access = accessControl(config.security());
      CatalogMetadata metadata = new CatalogMetadata(access);
      // The scan's caches are the JVM's, shared by every engine in it.
      ParquetFooters.setMaxColumnChunks(config.caches().footerCacheMaxColumnChunks());
      SnapshotFiles.setMaxFiles(config.caches().planningCacheMaxFiles());
      // Made before the engine: system.runtime shows the engine's statements and the sessions.
      SessionManager sessions = new SessionManager(config.catalog().name(), limits.sessionIdleTimeout(), limits.maxSessions());
      List<SystemSchema> systemSchemas = new ArrayList<>(InformationSchema.schemas(metadata, catalogs));
      systemSchemas.add(new RuntimeSchema(queries, sessions));
      SessionProcedures sessionKills = new SessionProcedures(sessions, queries);
      QueryEngine engine =
          new QueryEngine(
              catalogs,
              allocator,
              EngineConfig.DEFAULT
                  .withMaxQueryMemoryBytes(config.maxQueryMemoryBytes())
                  .withStatementTimeout(config.maxRunTime())
                  .withPlanCacheMaxEntries(config.caches().planCacheMaxEntries())
                  .withResultCacheMaxBytes(config.caches().resultCacheMaxBytes())
                  .withMaxValueSize(config.maxValueSize())
                  .withMaxReorderedJoins(config.maxReorderedJoins())
                  .withPlannerOptions(config.planner())
                  .withExecutionOptions(config.execution())
                  .withSpill(config.spill())
                  .withOffload(config.offload()),
              executors(config, authenticating, locationRules(config, lakehouse), metadata, sessionKills),
              WritePath.transactions(),
              systemSchemas,
              access,
              queries);
      warmUp(engine, config.catalog().name());
      LocalAuthentication authentication = await(authenticating);
      var authenticator = authentication.authenticator();
      heap = HeapGuard.start(config.limits().heapStopThreshold(), engine.queries());
      TicketBudget ticketBudget = new TicketBudget(config.limits().ticketBytesPerUser(), config.limits().ticketBytes(), "tickets");
      // A budget of their own: executing a handle makes a ticket of the same statement, which in
      // one budget would evict the handle it came from.
      TicketBudget handleBudget =
          new TicketBudget(config.limits().ticketBytesPerUser(), config.limits().ticketBytes(), "prepared statements");
      SqeFlightSqlProducer producer =
          new SqeFlightSqlProducer(
              engine,
              catalogs,
              sessions,
              context -> authenticator.principal(context.peerIdentity()),
              metadata,
              allocator,
              audit,
              heap,
              ticketBudget,
              handleBudget,
              authentication.tokens());
      ServingState serving = new ServingState();
      callThreads = callThreads();
      registerMetrics(metrics, lakehouse, sessions, engine, producer, allocator);
      metrics.registerGauge(
          "sqe_tickets_kept_bytes", "What tickets keep (statements, parameters), estimated, within query.tickets.max-bytes",
          ticketBudget::totalBytes);
      metrics.registerGauge(
          "sqe_prepared_statements_kept_bytes",
          "What prepared statement handles keep (statements, bound parameters), estimated, within query.tickets.max-bytes",
          handleBudget::totalBytes);
      metrics.registerGauge(
          "sqe_sessions_refused", "New sessions refused since start for server.max-sessions", sessions::refused);
      metrics.registerGauge(
          "sqe_statements_queued", "Statements waiting for their turn to run (server.max-running-statements)", admission::queued);
      metrics.registerGauge(
          "sqe_statements_admitted", "Statements holding a place to run, within server.max-running-statements", admission::running);
      metrics.registerGauge(
          "sqe_statements_queue_timeouts",
          "Statements refused since start after waiting server.queue-timeout for their turn", admission::timedOut);
      metrics.registerGauge(
          "sqe_statements_refused_per_user",
          "Statements refused since start for their user's limit (server.max-running-statements-per-user)", admission::refused);
      transport = new GuardedTransport(limits.maxConnectionsPerAddress(), limits.handshakeTimeout(), limits.connectionIdleTimeout());
      GuardedTransport flightTransport = transport;
      metrics.registerGauge("sqe_connections_open", "Flight connections open", () -> flightTransport.guard().open());
      metrics.registerGauge(
          "sqe_connections_refused", "Flight connections refused since start for their address's limit (server.max-connections-per-address)",
          () -> flightTransport.guard().refused());
      FlightServer.Builder builder =
          FlightServer.builder(allocator, location(config, config.port()), producer)
              .executor(callThreads)
              .headerAuthenticator(authenticator)
              .middleware(CallHeadersMiddleware.KEY, new CallHeadersMiddleware.Factory())
              .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
              .setMaxHeaderListSize(MAX_HEADER_BYTES)
              .transportHint(
                  "grpc.builderConsumer",
                  (Consumer<NettyServerBuilder>)
                      netty -> {
                        flightTransport.configure(netty);
                        netty
                            .callExecutor(new ClientAddressHeader())
                            .intercept(new QueryTrailers(figures -> metrics.resultStreamed(
                                figures.rows(), figures.bytes(), figures.filesScanned(), figures.bytesScanned(),
                                figures.spilledBytes(), figures.spillFiles(), figures.runtime())))
                            // Flight's middleware (authentication) only sees Flight's own service,
                            // so health checks need no credentials.
                            .addService(serving.healthService())
                            // Load balancers and clients keep idle connections alive with pings.
                            .permitKeepAliveTime(KEEPALIVE_MIN_INTERVAL_SECONDS, TimeUnit.SECONDS)
                            .permitKeepAliveWithoutCalls(true);
                      });
      FlightServer server = tls(builder, config.tls()).build();
      server.start();
      serving.serving(true);
      if (config.operations().httpEnabled()) {
        try {
          WebConsole console = new WebConsole(
              authenticator::login, queries, sessions, sessionKills, metrics, serving, health, consoleSettings(config));
          http = OpsHttpServer.start(
              config.host(), config.operations().httpPort(), serving, health, metrics, authenticator::login, Optional.of(console),
              opsTls(config));
        } catch (IOException e) {
          server.shutdown();
          throw e;
        }
        LOG.info("Health and metrics on {}://{}:{}/health and /metrics, the web console on /ui", http.scheme(), config.host(), http.port());
      }
      if (config.trino().enabled()) {
        try {
          trino = trinoEndpoint(config, engine, authenticator, audit);
        } catch (IOException e) {
          server.shutdown();
          if (http != null) {
            http.close();
          }
          throw e;
        }
        LOG.info("Trino clients on {}://{}:{}", trino.scheme(), trinoHost(config), trino.port());
      }
      return new SqeServer(
          config, allocator, catalogs, authentication, engine, producer, server, audit,
          new Operations(serving, metrics, health, http, callThreads, heap, transport, trino));
    } catch (IOException e) {
      audit.close();
      closeQuietly(transport, heap, health, callThreads, catalogs, allocator);
      throw new UncheckedIOException("Cannot start SQE: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      audit.close();
      closeQuietly(transport, heap, health, callThreads, catalogs, allocator);
      throw e;
    }
  }

  private static TrinoEndpoint trinoEndpoint(ServerConfig config, QueryEngine engine, SqeAuthenticator authenticator, AuditLog audit)
      throws IOException {
    ServerConfig.TrinoSettings trino = config.trino();
    return TrinoEndpoint.start(
        new TrinoEndpoint.Settings(trinoHost(config), trino.port(), trino.clientTimeout(), config.limits().sessionIdleTimeout(), config.tls()),
        engine,
        new HttpAuthentication(authenticator, config.auth().passwordCacheTtl()),
        audit,
        config.catalog().name());
  }

  /** The limits the console's server page lists, by their setting names. */
  private static Map<String, String> consoleSettings(ServerConfig config) {
    ServerConfig.Limits limits = config.limits();
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("query.max-memory", (config.maxQueryMemoryBytes() >> 20) + " MiB");
    settings.put("query.max-run-time", config.maxRunTime().isZero() ? "none" : config.maxRunTime().toString());
    settings.put("server.max-running-statements", limits.maxRunningStatements() == 0 ? "unlimited" : Integer.toString(limits.maxRunningStatements()));
    settings.put(
        "server.max-running-statements-per-user",
        limits.maxRunningStatementsPerUser() == 0 ? "unlimited" : Integer.toString(limits.maxRunningStatementsPerUser()));
    settings.put("server.queue-timeout", limits.queueTimeout().toString());
    settings.put("server.max-sessions", limits.maxSessions() == 0 ? "unlimited" : Integer.toString(limits.maxSessions()));
    settings.put("server.session-idle-timeout", limits.sessionIdleTimeout().toString());
    settings.put("server.query-history", Integer.toString(limits.queryHistory()));
    settings.put("tls", config.tls() == null ? "off" : "on (Flight SQL)");
    settings.put("auth.oidc", config.auth().oidc() == null ? "off" : "on");
    return settings;
  }

  private static String trinoHost(ServerConfig config) {
    return config.trino().host() == null ? config.host() : config.trino().host();
  }

  /**
   * The statements besides queries: the write path's, user management over the user store, which
   * is ready before the server takes its first call, and the SHOW statements over the catalogs.
   */
  private static List<CommandExecutor> executors(
      ServerConfig config,
      CompletableFuture<LocalAuthentication> authenticating,
      LocationRules locations,
      CatalogMetadata metadata,
      SessionProcedures sessionKills) {
    List<CommandExecutor> executors = new ArrayList<>(
        WritePath.executors(new MaintenanceSettings(config.maintenanceMinRetention()), locations, config.writeMaxCommitRetries(), config.materializationReuse()));
    CompletableFuture<LocalUsers> users = authenticating.thenApply(authentication -> new StoreUsers(authentication.users()));
    executors.add(new UserStatements(users::join));
    executors.add(new ShowStatements(metadata));
    executors.add(sessionKills);
    return executors;
  }

  private static LocalAuthentication authentication(ServerConfig config, AuditLog audit) throws IOException {
    OidcProvider oidc = null;
    if (config.auth().oidc() != null) {
      oidc = new OidcProvider(config.auth().oidc(), Clock.systemUTC());
      oidc.discoverEagerly();
    }
    return LocalAuthentication.create(
        new AuthConfig(
            config.dataDir().resolve("security"),
            config.auth().tokenLifetime(),
            config.auth().issuer(),
            config.auth().passwordHashIterations(),
            config.auth().usersRefreshPeriod(),
            config.auth().passwordCacheTtl()),
        oidc,
        new LoginThrottle(config.auth().maxFailedLogins(), config.auth().lockout(), Clock.systemUTC()),
        audit);
  }

  /** The authentication made on its own thread; what it threw is thrown here, as if made on this one. */
  private static LocalAuthentication await(CompletableFuture<LocalAuthentication> authenticating) throws IOException {
    try {
      return authenticating.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while starting", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    }
  }

  /**
   * The threads gRPC runs Flight's calls on. Flight would make its own and stop it as soon as a
   * shutdown begins, which would refuse the running calls' later events (a DoPut's next message, a
   * client's readiness) during the grace period; this one stops after the calls end.
   */
  private static ExecutorService callThreads() {
    AtomicInteger ids = new AtomicInteger();
    return Executors.newCachedThreadPool(task -> new Thread(task, "flight-call-" + ids.incrementAndGet()));
  }

  /**
   * Plans a {@code SELECT 1} on a thread of its own while the server goes on starting: the first
   * plan loads a few thousand of Calcite's classes and compiles generated code, which would
   * otherwise all fall on the first client's query (bin/bench-startup, docs/benchmarks.md).
   */
  private static void warmUp(QueryEngine engine, String catalog) {
    Thread thread = new Thread(() -> {
      try {
        engine.prepare(new Session(Principal.of("sqe-warm-up"), catalog, null, ZoneOffset.UTC), "SELECT 1");
      } catch (RuntimeException e) {
        LOG.debug("Warming up the planner failed", e);
      }
    }, "sqe-warm-up");
    thread.setDaemon(true);
    thread.start();
  }

  private static void registerMetrics(
      ServerMetrics metrics,
      LakehouseCatalog lakehouse,
      SessionManager sessions,
      QueryEngine engine,
      SqeFlightSqlProducer producer,
      BufferAllocator allocator) {
    metrics.registerCache("tables", lakehouse.tableCache());
    metrics.registerCache("sessions", sessions.cache());
    engine.caches().forEach(metrics::registerCache);
    producer.caches().forEach(metrics::registerCache);
    metrics.registerGauge("sqe_sessions_active", "Client sessions open (estimated)", () -> sessions.cache().estimatedSize());
    metrics.registerGauge(
        "sqe_queries_running", "Statements running now",
        () -> engine.queries().all().stream().filter(q -> q.state() == TrackedQuery.State.RUNNING).count());
    metrics.registerGauge(
        "sqe_queries_tracked", "Statements with a query id a client holds (tickets, running statements)",
        () -> engine.queries().all().size());
    metrics.registerGauge("sqe_arrow_allocated_bytes", "Arrow memory held by running queries", allocator::getAllocatedMemory);
    metrics.registerGauge(
        "sqe_arrow_peak_allocated_bytes", "The most Arrow memory held at once since start", allocator::getPeakMemoryAllocation);
  }

  /** Where administrators may place tables; the allowed prefixes must be of the catalog's storage. */
  private static LocationRules locationRules(ServerConfig config, LakehouseCatalog catalog) {
    try {
      LocationRules rules = new LocationRules(config.security().allowedLocations(), config.dataDir());
      rules.validate(catalog);
      return rules;
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Setting security.allowed-locations: " + e.getMessage());
    }
  }

  private static AccessControl accessControl(ServerConfig.SecuritySettings security) {
    if (security.policyFile() == null) {
      LOG.warn("No access policy (security.policy-file): every authenticated user may read and change every table");
      return AccessControl.ALLOW_ALL;
    }
    try {
      return PolicyFile.load(security.policyFile(), security.refreshPeriod());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static Location location(ServerConfig config, int port) {
    return config.tls() == null
        ? Location.forGrpcInsecure(config.host(), port)
        : Location.forGrpcTls(config.host(), port);
  }

  /**
   * The operations port's TLS with {@code http.tls}: the Flight endpoint's certificate and key.
   * It asks no client certificate even under {@code tls.client-ca}: browsers and probes log in
   * as the console's users do.
   */
  private static Optional<SSLContext> opsTls(ServerConfig config) throws IOException {
    if (!config.operations().httpTls()) {
      return Optional.empty();
    }
    ServerConfig.TlsSettings tls = requireNonNull(config.tls(), "http.tls without tls.* settings");
    try {
      KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(PemKeyStores.keyStore(tls.certificateChain(), tls.privateKey()), PemKeyStores.PASSWORD.toCharArray());
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return Optional.of(context);
    } catch (GeneralSecurityException e) {
      throw new IOException("Cannot read the TLS certificate and key for http.tls: " + e.getMessage(), e);
    }
  }

  private static FlightServer.Builder tls(FlightServer.Builder builder, ServerConfig.TlsSettings tls) throws IOException {
    if (tls == null) {
      return builder;
    }
    // Flight reads the PEM files once, at build().
    builder.useTls(tls.certificateChain().toFile(), tls.privateKey().toFile());
    if (tls.clientCa() != null) {
      builder.useMTlsClientVerification(tls.clientCa().toFile());
    }
    return builder;
  }

  private static LakehouseCatalog openCatalog(ServerConfig config) {
    ServerConfig.CatalogConfig catalog = config.catalog();
    switch (catalog.type()) {
      case REST:
        return IcebergCatalogFactory.rest(catalog.name(), catalog.properties(), catalog.cacheTtl(), catalog.passThroughToken());
      default:
        return IcebergCatalogFactory.embedded(catalog.name(), catalog.warehouse(), catalog.cacheTtl());
    }
  }

  private static void closeQuietly(
      GuardedTransport transport,
      HeapGuard heap,
      LakehouseHealth health,
      ExecutorService callThreads,
      Catalogs catalogs,
      BufferAllocator allocator) {
    if (transport != null) {
      transport.close();
    }
    if (heap != null) {
      heap.close();
    }
    if (health != null) {
      health.close();
    }
    if (callThreads != null) {
      callThreads.shutdownNow();
    }
    try {
      if (catalogs != null) {
        catalogs.close();
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Failed to close catalogs", e);
    }
    allocator.close();
  }

  public ServerConfig config() {
    return config;
  }

  public int port() {
    return server.getPort();
  }

  public Location location() {
    return location(config, port());
  }

  /** Arrow memory the server's queries hold now, in bytes (every query's allocator is a child of one root). */
  public long arrowAllocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  public Catalogs catalogs() {
    return catalogs;
  }

  /** The root allocator; each running query holds a child of it named {@code query-<id>}. */
  BufferAllocator allocator() {
    return allocator;
  }

  public LocalAuthentication authentication() {
    return authentication;
  }

  /** The admin password generated by this start, when the user store was new. */
  public Optional<String> initialAdminPassword() {
    return authentication.bootstrapAdminPassword();
  }

  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** The server's metrics, where more parts (an engine cache, say) can register. */
  public ServerMetrics metrics() {
    return metrics;
  }

  /** The port of the Trino endpoint; empty when it is off. */
  public Optional<Integer> trinoPort() {
    return Optional.ofNullable(trino).map(TrinoEndpoint::port);
  }

  /** The port of the HTTP operations endpoint; empty when it is off. */
  public Optional<Integer> httpPort() {
    return Optional.ofNullable(http).map(OpsHttpServer::port);
  }

  /**
   * Shuts down gracefully: health turns NOT_SERVING and new calls are refused (UNAVAILABLE) at
   * once; running statements may finish within the configured grace period; those still running
   * then are cancelled (a cancelled write commits nothing), and everything is released.
   */
  @Override
  public void close() throws Exception {
    synchronized (closing) {
      if (closed) {
        return;
      }
      closed = true;
    }
    Duration grace = config.operations().shutdownGracePeriod();
    long graceEnds = System.nanoTime() + grace.toNanos();
    // New calls are refused before health says NOT_SERVING, so that no client that saw it can
    // still start one (calls already open, health watches among them, go on).
    server.shutdown();
    if (trino != null) {
      trino.refuseNew();
    }
    serving.serving(false);
    long running = running();
    if (running > 0) {
      LOG.info("Shutting down: new calls are refused; {} running statements have {} to finish", running, grace);
    }
    boolean ended = server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    // Trino's clients fetch their results over HTTP, where the Flight server does not wait for them.
    if (trino != null) {
      ended &= trino.awaitStatements(Duration.ofNanos(Math.max(0, graceEnds - System.nanoTime())));
    }
    if (!ended) {
      LOG.warn("Shutting down: cancelling the {} statements still running after {}", running(), grace);
    }
    // Cancels what still runs and waits for result streams, so that no buffer outlives the allocator.
    producer.close();
    if (trino != null) {
      trino.close();
    }
    heap.close();
    if (!server.awaitTermination(CANCEL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      LOG.warn("Calls still open {} after cancelling; closing their connections", CANCEL_WAIT);
    }
    server.close();
    transport.close();
    callThreads.shutdown();
    if (!callThreads.awaitTermination(CANCEL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      LOG.warn("Flight call threads still busy {} after the server stopped", CANCEL_WAIT);
    }
    if (http != null) {
      http.close();
    }
    health.close();
    // After the producer: the statements it stopped have recorded their lines.
    audit.close();
    catalogs.close();
    allocator.close();
  }

  /** Statements being planned or running now, queries and commands alike. */
  long running() {
    return engine.queries().all().stream()
        .filter(q -> q.state() == TrackedQuery.State.RUNNING || q.state() == TrackedQuery.State.PLANNING)
        .count();
  }
}
