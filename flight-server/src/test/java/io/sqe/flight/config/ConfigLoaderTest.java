package io.sqe.flight.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.config.ServerConfig.CatalogType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void defaultsAreTheZeroSetupServer() {
    ServerConfig config = ConfigLoader.load(null, Map.of());
    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isEqualTo(50051);
    assertThat(config.catalog().type()).isEqualTo(CatalogType.EMBEDDED);
    assertThat(config.catalog().name()).isEqualTo("iceberg");
    assertThat(config.catalog().warehouse()).isEqualTo(config.dataDir().resolve("warehouse"));
    assertThat(config.auth().tokenLifetime()).isEqualTo(Duration.ofHours(1));
    assertThat(config.maxQueryMemoryBytes()).isEqualTo(1L << 30);
    assertThat(config.maxRunTime()).isEqualTo(Duration.ZERO);
    assertThat(config.maintenanceMinRetention()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void aSizeWithoutAUnitIsBytes() {
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-memory", "1048576")).maxQueryMemoryBytes()).isEqualTo(1L << 20);
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-memory", "512k")).maxQueryMemoryBytes()).isEqualTo(512L << 10);
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-memory", "2G")).maxQueryMemoryBytes()).isEqualTo(2L << 30);
  }

  @Test
  void maintenanceMinRetentionTakesADuration() {
    assertThat(ConfigLoader.load(null, Map.of("SQE_MAINTENANCE_MIN__RETENTION", "1h")).maintenanceMinRetention())
        .isEqualTo(Duration.ofHours(1));
    assertThat(ConfigLoader.fromSettings(Map.of("maintenance.min-retention", "0s")).maintenanceMinRetention()).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("maintenance.min-retention", "a week")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("maintenance.min-retention must be a duration");
  }

  @Test
  void writeAndUserSettings() {
    ServerConfig defaults = ConfigLoader.load(null, Map.of());
    assertThat(defaults.writeMaxCommitRetries()).isEqualTo(8);
    assertThat(defaults.auth().usersRefreshPeriod()).isEqualTo(Duration.ofSeconds(1));
    ServerConfig set = ConfigLoader.load(null, Map.of("SQE_WRITE_MAX__COMMIT__RETRIES", "0", "SQE_AUTH_USERS__REFRESH__PERIOD", "0s"));
    assertThat(set.writeMaxCommitRetries()).isZero();
    assertThat(set.auth().usersRefreshPeriod()).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("write.max-commit-retries", "-1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("write.max-commit-retries must be between 0");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("auth.users-refresh-period", "often")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("auth.users-refresh-period must be a duration");
  }

  @Test
  void tracingIsOffUntilACollectorIsNamed() {
    ServerConfig.TracingSettings defaults = ConfigLoader.load(null, Map.of()).operations().tracing();
    assertThat(defaults.enabled()).isFalse();
    assertThat(defaults.sampleRatio()).isEqualTo(1.0);
    assertThat(defaults.serviceName()).isEqualTo("sqe");
    ServerConfig.TracingSettings set = ConfigLoader.load(null, Map.of(
        "SQE_TRACING_OTLP__ENDPOINT", "http://collector:4318",
        "SQE_TRACING_SAMPLE__RATIO", "0.25",
        "SQE_TRACING_RESOURCE__ATTRIBUTES", "deployment.environment=prod, team=data")).operations().tracing();
    assertThat(set.otlpEndpoint()).hasToString("http://collector:4318/v1/traces");
    assertThat(set.sampleRatio()).isEqualTo(0.25);
    assertThat(set.resourceAttributes()).containsExactlyInAnyOrderEntriesOf(Map.of("deployment.environment", "prod", "team", "data"));
    assertThat(ConfigLoader.fromSettings(Map.of("tracing.otlp-endpoint", "https://tempo.example/otlp/v1/traces")).operations().tracing()
        .otlpEndpoint()).hasToString("https://tempo.example/otlp/v1/traces");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tracing.otlp-endpoint", "collector:4317")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tracing.otlp-endpoint must be an http:// or https:// URL");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tracing.protocol", "grpc")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tracing.protocol must be 'http/protobuf'");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tracing.sample-ratio", "2")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tracing.sample-ratio must be from 0 to 1");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tracing.resource-attributes", "team")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("key=value pairs");
  }

  @Test
  void operationsSettings() {
    ServerConfig.OperationsSettings defaults = ConfigLoader.load(null, Map.of()).operations();
    assertThat(defaults.httpEnabled()).isFalse();
    assertThat(defaults.shutdownGracePeriod()).isEqualTo(Duration.ofSeconds(30));
    assertThat(defaults.logFormat()).isEqualTo(ServerConfig.LogFormat.TEXT);
    assertThat(defaults.logLevel()).isEqualTo("INFO");
    ServerConfig.OperationsSettings set = ConfigLoader.load(null, Map.of(
        "SQE_HTTP_PORT", "8081", "SQE_SERVER_SHUTDOWN__GRACE__PERIOD", "2m", "SQE_LOG_FORMAT", "JSON", "SQE_LOG_LEVEL", "debug"))
        .operations();
    assertThat(set.httpPort()).isEqualTo(8081);
    assertThat(set.shutdownGracePeriod()).isEqualTo(Duration.ofMinutes(2));
    assertThat(set.logFormat()).isEqualTo(ServerConfig.LogFormat.JSON);
    assertThat(set.logLevel()).isEqualTo("DEBUG");
    assertThat(ConfigLoader.fromSettings(Map.of("http.port", "off")).operations().httpEnabled()).isFalse();
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("http.port", "70000")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("http.port must be between 0 and 65535");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("log.format", "xml")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("log.format must be 'text' or 'json', not 'xml'");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("log.level", "loud")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("log.level must be one of");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("server.shutdown-grace-period", "soon")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("server.shutdown-grace-period must be a duration");
  }

  @Test
  void trinoEndpointIsOffUnlessItHasAPort() {
    ServerConfig.TrinoSettings defaults = ConfigLoader.load(null, Map.of()).trino();
    assertThat(defaults.enabled()).isFalse();
    assertThat(defaults.clientTimeout()).isEqualTo(Duration.ofMinutes(5));
    ServerConfig.TrinoSettings set = ConfigLoader.load(null, Map.of(
        "SQE_TRINO_PORT", "8080", "SQE_TRINO_HOST", "0.0.0.0", "SQE_TRINO_CLIENT__TIMEOUT", "30s")).trino();
    assertThat(set.enabled()).isTrue();
    assertThat(set.port()).isEqualTo(8080);
    assertThat(set.host()).isEqualTo("0.0.0.0");
    assertThat(set.clientTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ConfigLoader.fromSettings(Map.of("trino.port", "off")).trino().enabled()).isFalse();
    assertThat(ConfigLoader.fromSettings(Map.of("trino.port", "8080")).trino().host()).isNull();
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("trino.port", "-5")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("trino.port must be between 0 and 65535");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("trino.client-timeout", "0s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("trino.client-timeout must be longer than zero");
  }

  @Test
  void allowedLocationsAreAListOfUnambiguousLocations() {
    assertThat(ConfigLoader.load(null, Map.of()).security().allowedLocations()).isEmpty();
    assertThat(ConfigLoader.load(null, Map.of("SQE_SECURITY_ALLOWED__LOCATIONS", "file:/srv/lake/, s3://bucket/external")).security()
        .allowedLocations()).containsExactly("file:/srv/lake/", "s3://bucket/external");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("security.allowed-locations", "/srv/lake/../etc")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("security.allowed-locations lists '/srv/lake/../etc'");
  }

  @Test
  void maxRunTimeTakesADuration() {
    assertThat(ConfigLoader.load(null, Map.of("SQE_QUERY_MAX__RUN__TIME", "90s")).maxRunTime()).isEqualTo(Duration.ofSeconds(90));
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-run-time", "PT2H")).maxRunTime()).isEqualTo(Duration.ofHours(2));
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.max-run-time", "forever")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.max-run-time must be a duration");
  }

  @Test
  void cacheSizesDefaultToOnAndZeroTurnsThemOff() {
    ServerConfig.CacheSettings defaults = ConfigLoader.load(null, Map.of()).caches();
    assertThat(defaults.planCacheMaxEntries()).isEqualTo(1_000);
    assertThat(defaults.resultCacheMaxBytes()).isEqualTo(64L << 20);
    ServerConfig.CacheSettings off =
        ConfigLoader.load(null, Map.of("SQE_QUERY_PLAN__CACHE_MAX__ENTRIES", "0", "SQE_QUERY_RESULT__CACHE_MAX__BYTES", "0")).caches();
    assertThat(off.planCacheMaxEntries()).isZero();
    assertThat(off.resultCacheMaxBytes()).isZero();
    assertThat(ConfigLoader.fromSettings(Map.of("query.result-cache.max-bytes", "256m")).caches().resultCacheMaxBytes())
        .isEqualTo(256L << 20);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.plan-cache.max-entries", "-1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.plan-cache.max-entries");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.result-cache.max-bytes", "lots")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.result-cache.max-bytes");
  }

  @Test
  void limitsOfTheServersOwnDefences() {
    ServerConfig.Limits defaults = ConfigLoader.fromSettings(Map.of()).limits();
    assertThat(defaults).isEqualTo(ServerConfig.Limits.DEFAULT);
    ServerConfig.Limits set = ConfigLoader.fromSettings(Map.of(
        "query.heap-stop-threshold", "0",
        "query.tickets.max-bytes-per-user", "8m",
        "query.tickets.max-bytes", "1g",
        "server.max-connections-per-address", "0",
        "server.handshake-timeout", "3s",
        "server.connection-idle-timeout", "0s")).limits();
    assertThat(set).isEqualTo(new ServerConfig.Limits(0, 8L << 20, 1L << 30, 0, Duration.ofSeconds(3), Duration.ZERO, 1_000, 0, 0, Duration.ofMinutes(5), 0, Duration.ofHours(8)));
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.heap-stop-threshold", "1.5")))
        .hasMessageContaining("query.heap-stop-threshold");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.tickets.max-bytes", "lots")))
        .hasMessageContaining("query.tickets.max-bytes");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("server.max-connections-per-address", "-1")))
        .hasMessageContaining("server.max-connections-per-address");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("server.handshake-timeout", "0s")))
        .hasMessageContaining("server.handshake-timeout");
  }

  @Test
  void spillGoesUnderTheDataDirectoryUnlessSetElsewhere() {
    ServerConfig defaults = ConfigLoader.fromSettings(Map.of("data-dir", dir.toString()));
    assertThat(defaults.spill().directory()).isEqualTo(dir.toAbsolutePath().normalize().resolve("spill"));
    assertThat(defaults.spill().maxBytesPerQuery()).isEqualTo(100L << 30);
    ServerConfig set = ConfigLoader.fromSettings(Map.of("query.spill-dir", dir.resolve("scratch").toString(), "query.max-spill", "2g"));
    assertThat(set.spill().directory()).isEqualTo(dir.resolve("scratch").toAbsolutePath().normalize());
    assertThat(set.spill().maxBytesPerQuery()).isEqualTo(2L << 30);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.max-spill", "lots")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.max-spill");
  }

  @Test
  void queryParallelismIsAtLeastOne() {
    assertThat(ConfigLoader.fromSettings(Map.of("query.parallelism", "1")).queryParallelism()).isEqualTo(1);
    assertThat(ConfigLoader.fromSettings(Map.of("query.parallelism", "4")).queryParallelism()).isEqualTo(4);
    assertThat(ConfigLoader.fromSettings(Map.of()).queryParallelism()).isGreaterThanOrEqualTo(1);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.parallelism", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.parallelism");
  }

  @Test
  void maxValueSizeIsFromOneMebibyteToOneGibibyte() {
    assertThat(ConfigLoader.fromSettings(Map.of()).maxValueSize()).isEqualTo(16L << 20);
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-value-size", "1m")).maxValueSize()).isEqualTo(1L << 20);
    assertThat(ConfigLoader.load(null, Map.of("SQE_QUERY_MAX__VALUE__SIZE", "1g")).maxValueSize()).isEqualTo(1L << 30);
    for (String bad : List.of("100k", "2g", "big")) {
      assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.max-value-size", bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("query.max-value-size");
    }
  }

  @Test
  void scanCachesAreBoundedByServerSettings() {
    ServerConfig.CacheSettings defaults = ConfigLoader.fromSettings(Map.of()).caches();
    assertThat(defaults.footerCacheMaxColumnChunks()).isEqualTo(500_000L);
    assertThat(defaults.planningCacheMaxFiles()).isEqualTo(200_000L);
    ServerConfig.CacheSettings set = ConfigLoader.fromSettings(
        Map.of("query.footer-cache.max-column-chunks", "1000", "query.planning-cache.max-files", "0")).caches();
    assertThat(set.footerCacheMaxColumnChunks()).isEqualTo(1000L);
    assertThat(set.planningCacheMaxFiles()).isZero();
    for (String bad : List.of("-1", "many")) {
      assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.planning-cache.max-files", bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("query.planning-cache.max-files");
    }
  }

  @Test
  void maxReorderedJoinsIsAtLeastTwo() {
    assertThat(ConfigLoader.fromSettings(Map.of()).maxReorderedJoins()).isEqualTo(16);
    assertThat(ConfigLoader.fromSettings(Map.of("query.max-reordered-joins", "40")).maxReorderedJoins()).isEqualTo(40);
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("query.max-reordered-joins", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("query.max-reordered-joins");
  }

  @Test
  void yamlFileThenEnvironmentOverrides() throws Exception {
    Path file = dir.resolve("sqe.yaml");
    Files.writeString(file, String.join("\n",
        "port: 6000",
        "data-dir: " + dir.resolve("state"),
        "catalog:",
        "  type: rest",
        "  name: lake",
        "  cache-ttl: 30s",
        "  properties:",
        "    uri: http://127.0.0.1:8181",
        "    warehouse: demo",
        "    credential: client:secret",
        "query:",
        "  max-memory: 512m",
        ""));
    ServerConfig config =
        ConfigLoader.load(file, Map.of(
            "SQE_PORT", "7000",
            "SQE_CATALOG_PROPERTIES_S3_ENDPOINT", "http://127.0.0.1:9000",
            "SQE_CATALOG_PROPERTIES_OAUTH2__SERVER__URI", "http://127.0.0.1:8080/token",
            "SQE_AUTH_TOKEN__LIFETIME", "15m",
            "PATH", "/usr/bin"));
    assertThat(config.port()).isEqualTo(7000);
    assertThat(config.dataDir()).isEqualTo(dir.resolve("state"));
    assertThat(config.catalog().type()).isEqualTo(CatalogType.REST);
    assertThat(config.catalog().name()).isEqualTo("lake");
    assertThat(config.catalog().cacheTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.catalog().properties())
        .containsEntry("uri", "http://127.0.0.1:8181")
        .containsEntry("warehouse", "demo")
        .containsEntry("credential", "client:secret")
        .containsEntry("s3.endpoint", "http://127.0.0.1:9000")
        .containsEntry("oauth2-server-uri", "http://127.0.0.1:8080/token");
    assertThat(config.auth().tokenLifetime()).isEqualTo(Duration.ofMinutes(15));
    assertThat(config.maxQueryMemoryBytes()).isEqualTo(512L << 20);
  }

  @Test
  void auditFileAndCatalogTokenPassThrough() {
    assertThat(ConfigLoader.load(null, Map.of()).auditFile()).isNull();
    assertThat(ConfigLoader.load(null, Map.of("SQE_AUDIT_FILE", "logs/audit.jsonl")).auditFile())
        .isEqualTo(Path.of("logs/audit.jsonl").toAbsolutePath().normalize());
    Map<String, String> rest = Map.of("catalog.type", "rest", "catalog.properties.uri", "http://127.0.0.1:1",
        "auth.oidc.issuer", "https://idp.example.com", "auth.oidc.audience", "sqe");
    java.util.Map<String, String> on = new java.util.HashMap<>(rest);
    on.put("catalog.rest.pass-through-token", "true");
    assertThat(ConfigLoader.fromSettings(rest).catalog().passThroughToken()).isFalse();
    assertThat(ConfigLoader.fromSettings(on).catalog().passThroughToken()).isTrue();
    on.remove("auth.oidc.issuer");
    on.remove("auth.oidc.audience");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(on))
        .isInstanceOf(ConfigException.class).hasMessageContaining("catalog.rest.pass-through-token needs auth.oidc.issuer");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("catalog.rest.pass-through-token", "true")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("needs catalog.type: rest");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("catalog.rest.pass-through-token", "yes")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("true or false");
  }

  @Test
  void badSettingsAreNamedInTheError() {
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_PORTT", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("portt");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_PORT", "99999")))
        .hasMessageContaining("port must be between 0 and 65535");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_CATALOG_TYPE", "hive")))
        .hasMessageContaining("catalog.type must be 'embedded' or 'rest'");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_CATALOG_TYPE", "rest")))
        .hasMessageContaining("catalog.properties.uri");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_QUERY_MAX__MEMORY", "lots")))
        .hasMessageContaining("query.max-memory");
    assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("SQE_AUTH_TOKEN__LIFETIME", "forever")))
        .hasMessageContaining("auth.token-lifetime");
  }

  @Test
  void unreadableOrMalformedFilesAreReported() throws Exception {
    assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.yaml"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing.yaml");
    Path list = dir.resolve("list.yaml");
    Files.writeString(list, "- a\n- b\n");
    assertThatThrownBy(() -> ConfigLoader.load(list, Map.of()))
        .hasMessageContaining("must hold a mapping");
    Path unknown = dir.resolve("unknown.yaml");
    Files.writeString(unknown, "catalog:\n  kind: rest\n");
    assertThatThrownBy(() -> ConfigLoader.load(unknown, Map.of()))
        .hasMessageContaining("catalog.kind");
  }

  @Test
  void oidcSettingsAreReadFromYamlListsAndValidated() throws Exception {
    Path file = dir.resolve("oidc.yaml");
    Files.writeString(file, String.join("\n",
        "auth:",
        "  oidc:",
        "    issuer: https://idp.example.com/realms/sqe",
        "    audience: [sqe, sqe-bi]",
        "    role-claims: [groups, realm_access.roles]",
        "    client-id: sqe",
        "    client-secret: s3cret",
        ""));
    ServerConfig.OidcSettings oidc = ConfigLoader.load(file, Map.of()).auth().oidc();
    assertThat(oidc.issuer().toString()).isEqualTo("https://idp.example.com/realms/sqe");
    assertThat(oidc.audiences()).containsExactlyInAnyOrder("sqe", "sqe-bi");
    assertThat(oidc.roleClaims()).containsExactly("groups", "realm_access.roles");
    assertThat(oidc.passwordGrant()).isTrue();
    assertThat(oidc.toString()).doesNotContain("s3cret");
    assertThat(ConfigLoader.fromSettings(Map.of()).auth().oidc()).isNull();

    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("auth.oidc.issuer", "https://idp")))
        .hasMessageContaining("auth.oidc.audience");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("auth.oidc.issuer", "https://idp", "auth.oidc.audience", "sqe", "auth.oidc.algorithms", "RS256,HS256")))
        .hasMessageContaining("HS256");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("auth.oidc.audience", "sqe")))
        .hasMessageContaining("need auth.oidc.issuer");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("auth.oidc.issuer", "ftp://idp", "auth.oidc.audience", "sqe")))
        .hasMessageContaining("http(s) URL");
  }

  @Test
  void tlsNeedsBothFilesAndTheyMustExist() throws Exception {
    Path cert = Files.writeString(dir.resolve("server.crt"), "x");
    Path key = Files.writeString(dir.resolve("server.key"), "x");
    ServerConfig.TlsSettings tls =
        ConfigLoader.fromSettings(Map.of("tls.certificate-chain", cert.toString(), "tls.private-key", key.toString())).tls();
    assertThat(tls.certificateChain()).isEqualTo(cert);
    assertThat(tls.clientCa()).isNull();
    assertThat(ConfigLoader.fromSettings(Map.of()).tls()).isNull();
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tls.certificate-chain", cert.toString())))
        .hasMessageContaining("both tls.certificate-chain and tls.private-key");
    assertThatThrownBy(() -> ConfigLoader.fromSettings(Map.of("tls.certificate-chain", cert.toString(), "tls.private-key", dir.resolve("nope").toString())))
        .hasMessageContaining("not a readable file");
  }
}
