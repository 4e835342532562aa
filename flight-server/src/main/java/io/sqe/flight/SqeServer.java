package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.grpc.netty.NettyServerBuilder;
import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.PolicyFile;
import io.sqe.flight.config.ConfigException;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.auth.AuthConfig;
import io.sqe.flight.auth.ClientAddressHeader;
import io.sqe.flight.auth.LocalAuthentication;
import io.sqe.flight.auth.LoginThrottle;
import io.sqe.flight.auth.OidcProvider;
import io.sqe.flight.config.ServerConfig;
import io.sqe.flight.metadata.ServerSqlInfo;
import io.sqe.flight.session.SessionManager;
import io.sqe.infoschema.CatalogMetadata;
import io.sqe.infoschema.InformationSchema;
import io.sqe.sample.tpch.TpchLoader;
import io.sqe.write.WritePath;
import io.sqe.write.maintenance.MaintenanceSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One running SQE server: catalogs, engine, authentication and the Flight SQL endpoint. */
public final class SqeServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SqeServer.class);
  private static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final int MAX_INBOUND_MESSAGE_BYTES = 256 * 1024 * 1024;
  private static final int KEEPALIVE_MIN_INTERVAL_SECONDS = 10;

  private final ServerConfig config;
  private final BufferAllocator allocator;
  private final Catalogs catalogs;
  private final LocalAuthentication authentication;
  private final SqeFlightSqlProducer producer;
  private final FlightServer server;
  private final AuditLog audit;

  private SqeServer(
      ServerConfig config,
      BufferAllocator allocator,
      Catalogs catalogs,
      LocalAuthentication authentication,
      SqeFlightSqlProducer producer,
      FlightServer server,
      AuditLog audit) {
    this.audit = audit;
    this.config = config;
    this.allocator = allocator;
    this.catalogs = catalogs;
    this.authentication = authentication;
    this.producer = producer;
    this.server = server;
  }

  /** Opens the catalog, loads sample data if asked, and starts listening. */
  public static SqeServer start(ServerConfig config) {
    requireNonNull(config, "config is null");
    BufferAllocator allocator = new RootAllocator();
    Catalogs catalogs = null;
    AuditLog audit = AuditLog.disabled();
    try {
      if (config.auditFile() != null) {
        audit = AuditLog.open(config.auditFile());
        LOG.info("Audit log: {}", config.auditFile());
      }
      catalogs = new Catalogs(List.of(openCatalog(config)), config.catalog().name());
      OidcProvider oidc = null;
      if (config.auth().oidc() != null) {
        oidc = new OidcProvider(config.auth().oidc(), Clock.systemUTC());
        oidc.discoverEagerly();
      }
      LocalAuthentication authentication =
          LocalAuthentication.create(
              new AuthConfig(
                  config.dataDir().resolve("security"),
                  config.auth().tokenLifetime(),
                  config.auth().issuer(),
                  config.auth().passwordHashIterations()),
              oidc,
              new LoginThrottle(config.auth().maxFailedLogins(), config.auth().lockout(), Clock.systemUTC()),
              audit);
      if (config.tpchScale() > 0) {
        LakehouseCatalog catalog = catalogs.find(config.catalog().name()).orElseThrow();
        LOG.info("Loading TPC-H at scale {} into {}.tpch", config.tpchScale(), catalog.name());
        var summary = TpchLoader.defaults().load(catalog, "tpch", config.tpchScale());
        LOG.info("TPC-H ready in {}.tpch: {}", catalog.name(), summary.rowsPerTable());
      }
      AccessControl access = accessControl(config.security());
      CatalogMetadata metadata = new CatalogMetadata(access);
      QueryEngine engine =
          new QueryEngine(
              catalogs,
              allocator,
              EngineConfig.DEFAULT
                  .withMaxQueryMemoryBytes(config.maxQueryMemoryBytes())
                  .withStatementTimeout(config.maxRunTime())
                  .withPlanCacheMaxEntries(config.caches().planCacheMaxEntries())
                  .withResultCacheMaxBytes(config.caches().resultCacheMaxBytes()),
              WritePath.executors(new MaintenanceSettings(config.maintenanceMinRetention())),
              WritePath.transactions(),
              InformationSchema.schemas(metadata),
              access);
      SessionManager sessions = new SessionManager(config.catalog().name(), ServerSqlInfo.SESSION_IDLE_TIMEOUT);
      var authenticator = authentication.authenticator();
      SqeFlightSqlProducer producer =
          new SqeFlightSqlProducer(
              engine,
              catalogs,
              sessions,
              context -> authenticator.principal(context.peerIdentity()),
              metadata,
              allocator,
              audit);
      FlightServer.Builder builder =
          FlightServer.builder(allocator, location(config, config.port()), producer)
              .headerAuthenticator(authenticator)
              .middleware(CallHeadersMiddleware.KEY, new CallHeadersMiddleware.Factory())
              .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
              .setMaxHeaderListSize(MAX_HEADER_BYTES)
              .transportHint(
                  "grpc.builderConsumer",
                  (Consumer<NettyServerBuilder>)
                      netty ->
                          netty
                              .callExecutor(new ClientAddressHeader())
                              .intercept(new QueryTrailers())
                              // Load balancers and clients keep idle connections alive with pings.
                              .permitKeepAliveTime(KEEPALIVE_MIN_INTERVAL_SECONDS, TimeUnit.SECONDS)
                              .permitKeepAliveWithoutCalls(true));
      FlightServer server = tls(builder, config.tls()).build();
      server.start();
      return new SqeServer(config, allocator, catalogs, authentication, producer, server, audit);
    } catch (IOException e) {
      audit.close();
      closeQuietly(catalogs, allocator);
      throw new UncheckedIOException("Cannot start SQE: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      audit.close();
      closeQuietly(catalogs, allocator);
      throw e;
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

  private static void closeQuietly(Catalogs catalogs, BufferAllocator allocator) {
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

  @Override
  public void close() throws Exception {
    server.shutdown();
    if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
      server.close();
    }
    producer.close();
    // After the producer: the statements it stopped have recorded their lines.
    audit.close();
    catalogs.close();
    allocator.close();
  }
}
