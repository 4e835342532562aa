package io.sqe.flight.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.exec.spill.SpillConfig;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.iceberg.SnapshotFiles;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.DurationText;
import io.sqe.flight.config.ServerConfig.AuthSettings;
import io.sqe.flight.config.ServerConfig.CatalogConfig;
import io.sqe.flight.config.ServerConfig.CatalogType;
import io.sqe.flight.config.ServerConfig.OidcSettings;
import io.sqe.flight.config.ServerConfig.TlsSettings;
import io.sqe.write.dml.DmlExecutor;
import io.sqe.write.storage.StorageLocation;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the server configuration: an optional YAML file, then {@code SQE_*} environment variables
 * on top. Every key is checked; an unknown key or a bad value stops the server with a message that
 * names it.
 *
 * <p>Environment variables map to keys by lower-casing, turning {@code __} into {@code -} and
 * {@code _} into {@code .}, as Iceberg's own REST server does: {@code SQE_CATALOG_TYPE} sets
 * {@code catalog.type}, {@code SQE_CATALOG_CACHE__TTL} sets {@code catalog.cache-ttl}, and
 * {@code SQE_CATALOG_PROPERTIES_S3_ENDPOINT} sets the catalog property {@code s3.endpoint}.
 */
public final class ConfigLoader {
  public static final String CONFIG_FILE_VARIABLE = "SQE_CONFIG";
  /** More re-runs than this only add waiting: each lost race means another writer committed. */
  private static final int MAX_COMMIT_RETRIES = 100;
  /** Variables of the launch scripts (bin/sqe, bin/sqe-server), which are not settings. */
  private static final Set<String> LAUNCHER_VARIABLES =
      Set.of(
          "SQE_JAVA_OPTS", "SQE_RUN_DIR", "SQE_SHELL_URL", "SQE_STOP_TIMEOUT", "SQE_HOME", "SQE_BENCH_JAVA_OPTS",
          "SQE_CDS", "SQE_CDS_DIR");
  private static final String CATALOG_PROPERTIES = "catalog.properties.";
  private static final Set<String> KEYS =
      Set.of(
          "host",
          "port",
          "data-dir",
          "catalog.name",
          "catalog.type",
          "catalog.warehouse",
          "catalog.cache-ttl",
          "catalog.rest.pass-through-token",
          "auth.token-lifetime",
          "auth.issuer",
          "auth.password-hash-iterations",
          "auth.max-failed-logins",
          "auth.lockout",
          "auth.users-refresh-period",
          "auth.password-cache-ttl",
          "auth.oidc.issuer",
          "auth.oidc.audience",
          "auth.oidc.jwks-uri",
          "auth.oidc.algorithms",
          "auth.oidc.user-claim",
          "auth.oidc.role-claims",
          "auth.oidc.clock-skew",
          "auth.oidc.jwks-min-refresh",
          "auth.oidc.client-id",
          "auth.oidc.client-secret",
          "auth.oidc.token-endpoint",
          "auth.oidc.scopes",
          "security.policy-file",
          "security.refresh-period",
          "security.allowed-locations",
          "tls.certificate-chain",
          "tls.private-key",
          "tls.client-ca",
          "query.max-memory",
          "query.spill-dir",
          "query.max-spill",
          "query.max-run-time",
          "query.plan-cache.max-entries",
          "query.result-cache.max-bytes",
          "query.footer-cache.max-column-chunks",
          "query.planning-cache.max-files",
          "query.max-value-size",
          "query.heap-stop-threshold",
          "query.tickets.max-bytes-per-user",
          "query.tickets.max-bytes",
          "query.max-reordered-joins",
          "maintenance.min-retention",
          "write.max-commit-retries",
          "materialization-reuse",
          "sample-data.tpch-scale",
          "offload.trino-uri",
          "offload.user",
          "offload.min-scan-bytes",
          "offload.fallback",
          "audit.file",
          "http.port",
          "http.tls",
          "trino.port",
          "trino.host",
          "trino.client-timeout",
          "server.shutdown-grace-period",
          "server.max-connections-per-address",
          "server.handshake-timeout",
          "server.connection-idle-timeout",
          "server.query-history",
          "server.max-running-statements",
          "server.max-running-statements-per-user",
          "server.queue-timeout",
          "server.max-sessions",
          "server.session-idle-timeout",
          "log.format",
          "log.level",
          "tracing.otlp-endpoint",
          "tracing.protocol",
          "tracing.sample-ratio",
          "tracing.service-name",
          "tracing.resource-attributes");
  private static final Set<String> LOG_LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
  private static final Pattern SIZE = Pattern.compile("(?i)^\\s*(\\d+)\\s*([kmgt]?)b?\\s*$");

  private ConfigLoader() {}

  /** Loads from {@code $SQE_CONFIG} (if set) and the environment. */
  public static ServerConfig load(Map<String, String> environment) {
    String file = environment.get(CONFIG_FILE_VARIABLE);
    return load(file == null || file.isBlank() ? null : Path.of(file), environment);
  }

  public static ServerConfig load(Path file, Map<String, String> environment) {
    Map<String, String> values = new LinkedHashMap<>();
    if (file != null) {
      values.putAll(readYaml(file));
    }
    values.putAll(fromEnvironment(environment));
    return fromSettings(values);
  }

  static Map<String, String> readYaml(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
    } catch (IOException e) {
      throw new ConfigException("Cannot read configuration file " + file + ": " + e.getMessage());
    }
    Map<String, String> values = new LinkedHashMap<>();
    if (root != null && !root.isMissingNode() && !root.isNull()) {
      if (!root.isObject()) {
        throw new ConfigException("Configuration file " + file + " must hold a mapping of settings");
      }
      flatten("", root, values, file);
    }
    return values;
  }

  private static void flatten(String prefix, JsonNode node, Map<String, String> out, Path file) {
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = prefix + field.getKey();
      JsonNode value = field.getValue();
      if (value.isObject()) {
        flatten(key + ".", value, out, file);
      } else if (value.isArray()) {
        // A list of plain values is the same setting as their comma-separated text.
        List<String> items = new ArrayList<>();
        for (JsonNode item : value) {
          if (item.isContainerNode() || item.isNull()) {
            throw new ConfigException("Setting " + key + " in " + file + " must be a list of plain values");
          }
          items.add(item.asText());
        }
        out.put(key, String.join(",", items));
      } else {
        out.put(key, value.isNull() ? "" : value.asText());
      }
    }
  }

  static Map<String, String> fromEnvironment(Map<String, String> environment) {
    Map<String, String> values = new TreeMap<>();
    for (Map.Entry<String, String> e : environment.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith("SQE_") || name.equals(CONFIG_FILE_VARIABLE) || LAUNCHER_VARIABLES.contains(name)) {
        continue;
      }
      String key = name.substring(4).toLowerCase(Locale.ROOT).replace("__", "-").replace('_', '.');
      values.put(key, e.getValue());
    }
    return values;
  }

  /** Builds a configuration from settings keyed as in the YAML file ({@code catalog.type}, ...). */
  public static ServerConfig fromSettings(Map<String, String> values) {
    List<String> unknown = new ArrayList<>();
    Map<String, String> catalogProperties = new TreeMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (e.getKey().startsWith(CATALOG_PROPERTIES) && e.getKey().length() > CATALOG_PROPERTIES.length()) {
        catalogProperties.put(e.getKey().substring(CATALOG_PROPERTIES.length()), e.getValue());
      } else if (!KEYS.contains(e.getKey()) && !PlannerOptions.NAMES.contains(e.getKey())
          && !ExecutionOptions.NAMES.contains(e.getKey())) {
        unknown.add(e.getKey());
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigException("Unknown settings: " + String.join(", ", unknown) + "; known settings are "
          + String.join(", ", KEYS.stream().sorted().toList())
          + ", the options " + String.join(", ", PlannerOptions.NAMES.stream().sorted().toList()) + ", "
          + String.join(", ", ExecutionOptions.NAMES.stream().sorted().toList())
          + " and catalog.properties.*");
    }
    String host = values.getOrDefault("host", "127.0.0.1").trim();
    if (host.isEmpty()) {
      throw new ConfigException("Setting host must not be empty");
    }
    int port = integer(values, "port", 50051);
    if (port < 0 || port > 65535) {
      throw new ConfigException("Setting port must be between 0 and 65535, not " + port);
    }
    Path dataDir = Path.of(values.getOrDefault("data-dir", "data")).toAbsolutePath().normalize();
    CatalogType type = catalogType(values.getOrDefault("catalog.type", "embedded"));
    Path warehouse =
        values.containsKey("catalog.warehouse")
            ? Path.of(values.get("catalog.warehouse")).toAbsolutePath().normalize()
            : dataDir.resolve("warehouse");
    if (type == CatalogType.REST && !catalogProperties.containsKey("uri")) {
      throw new ConfigException(
          "A REST catalog needs its address: set catalog.properties.uri (or SQE_CATALOG_PROPERTIES_URI)");
    }
    String name = values.getOrDefault("catalog.name", "iceberg").trim();
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new ConfigException("Setting catalog.name must be a simple identifier, not '" + name + "'");
    }
    boolean passThrough = bool(values, "catalog.rest.pass-through-token", false);
    if (passThrough && type != CatalogType.REST) {
      throw new ConfigException("Setting catalog.rest.pass-through-token needs catalog.type: rest");
    }
    if (passThrough && blankToNull(values.get("auth.oidc.issuer")) == null) {
      throw new ConfigException(
          "Setting catalog.rest.pass-through-token needs auth.oidc.issuer: only identity-provider tokens can be passed to the catalog");
    }
    CatalogConfig catalog = new CatalogConfig(
        name, type, warehouse, catalogProperties, duration(values, "catalog.cache-ttl", Duration.ofSeconds(10)), passThrough);
    int iterations = integer(values, "auth.password-hash-iterations", 210_000);
    if (iterations < 10_000) {
      throw new ConfigException("Setting auth.password-hash-iterations must be at least 10000, not " + iterations);
    }
    int maxFailedLogins = integer(values, "auth.max-failed-logins", 5);
    if (maxFailedLogins < 1) {
      throw new ConfigException("Setting auth.max-failed-logins must be at least 1, not " + maxFailedLogins);
    }
    AuthSettings auth =
        new AuthSettings(
            duration(values, "auth.token-lifetime", Duration.ofHours(1)),
            values.getOrDefault("auth.issuer", "sqe"),
            iterations,
            maxFailedLogins,
            duration(values, "auth.lockout", Duration.ofMinutes(1)),
            oidc(values),
            duration(values, "auth.users-refresh-period", Duration.ofSeconds(1)),
            duration(values, "auth.password-cache-ttl", Duration.ofMinutes(5)));
    long memory = size(values, "query.max-memory", 1L << 30);
    Duration maxRunTime = duration(values, "query.max-run-time", Duration.ZERO);
    int planCacheEntries = integer(values, "query.plan-cache.max-entries", EngineConfig.DEFAULT_PLAN_CACHE_MAX_ENTRIES);
    if (planCacheEntries < 0) {
      throw new ConfigException("Setting query.plan-cache.max-entries must be 0 (off) or more, not " + planCacheEntries);
    }
    String resultCacheSize = values.get("query.result-cache.max-bytes");
    long resultCacheBytes = resultCacheSize != null && resultCacheSize.trim().equals("0")
        ? 0
        : size(values, "query.result-cache.max-bytes", EngineConfig.DEFAULT_RESULT_CACHE_MAX_BYTES);
    PlannerOptions planner = PlannerOptions.DEFAULT;
    ExecutionOptions execution = ExecutionOptions.DEFAULT;
    for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
      try {
        if (PlannerOptions.NAMES.contains(e.getKey())) {
          planner = planner.with(e.getKey(), e.getValue());
        } else if (ExecutionOptions.NAMES.contains(e.getKey())) {
          execution = execution.with(e.getKey(), e.getValue());
        }
      } catch (SqeException bad) {
        throw new ConfigException("Setting " + e.getKey() + " is invalid. " + bad.getMessage());
      }
    }
    long maxValueSize = size(values, "query.max-value-size", EngineConfig.DEFAULT_MAX_VALUE_SIZE);
    if (maxValueSize < EngineConfig.MIN_MAX_VALUE_SIZE || maxValueSize > EngineConfig.MAX_MAX_VALUE_SIZE) {
      throw new ConfigException("Setting query.max-value-size must be from 1m to 1g, not " + values.get("query.max-value-size"));
    }
    int maxReorderedJoins = integer(values, "query.max-reordered-joins", EngineConfig.DEFAULT_MAX_REORDERED_JOINS);
    if (maxReorderedJoins < 2) {
      throw new ConfigException("Setting query.max-reordered-joins must be at least 2, not " + maxReorderedJoins);
    }
    double scale = decimal(values, "sample-data.tpch-scale", 0);
    if (scale < 0 || scale > 100) {
      throw new ConfigException("Setting sample-data.tpch-scale must be between 0 and 100, not " + scale);
    }
    String audit = blankToNull(values.get("audit.file"));
    Duration minRetention = duration(values, "maintenance.min-retention", Duration.ofDays(7));
    int retries = integer(values, "write.max-commit-retries", DmlExecutor.DEFAULT_MAX_COMMIT_RETRIES);
    if (retries < 0 || retries > MAX_COMMIT_RETRIES) {
      throw new ConfigException(
          "Setting write.max-commit-retries must be between 0 (fail at the first lost commit race) and " + MAX_COMMIT_RETRIES + ", not " + retries);
    }
    return new ServerConfig(
        host, port, dataDir, catalog, auth, memory, maxRunTime, scale, tls(values), security(values),
        audit == null ? null : Path.of(audit).toAbsolutePath().normalize(),
        minRetention,
        new ServerConfig.CacheSettings(
            planCacheEntries,
            resultCacheBytes,
            atLeastZero(values, "query.footer-cache.max-column-chunks", ParquetFooters.DEFAULT_MAX_COLUMN_CHUNKS),
            atLeastZero(values, "query.planning-cache.max-files", SnapshotFiles.DEFAULT_MAX_FILES)),
        operations(values),
        planner,
        execution,
        retries,
        maxValueSize,
        maxReorderedJoins,
        limits(values),
        trino(values),
        new SpillConfig(
            Path.of(values.getOrDefault("query.spill-dir", dataDir.resolve("spill").toString())).toAbsolutePath().normalize(),
            size(values, "query.max-spill", SpillConfig.DEFAULT_MAX_BYTES_PER_QUERY)),
        bool(values, "materialization-reuse", true),
        offload(values));
  }

  private static io.sqe.engine.offload.OffloadConfig offload(Map<String, String> values) {
    String uri = values.get("offload.trino-uri");
    if (uri != null && !uri.isBlank() && !uri.matches("https?://[^/\\s]+/?")) {
      throw new ConfigException("Setting offload.trino-uri must be a Trino coordinator's http:// or https:// address, not " + uri);
    }
    String user = values.getOrDefault("offload.user", io.sqe.engine.offload.OffloadConfig.NONE.user());
    if (user.isBlank()) {
      throw new ConfigException("Setting offload.user must name Trino's service user SQE runs offloaded queries as");
    }
    return new io.sqe.engine.offload.OffloadConfig(
        uri == null || uri.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(uri.trim()),
        user,
        size(values, "offload.min-scan-bytes", io.sqe.engine.offload.OffloadConfig.DEFAULT_MIN_SCAN_BYTES),
        bool(values, "offload.fallback", false));
  }

  private static ServerConfig.Limits limits(Map<String, String> values) {
    double heapStop = decimal(values, "query.heap-stop-threshold", ServerConfig.Limits.DEFAULT.heapStopThreshold());
    if (heapStop < 0 || heapStop >= 1) {
      throw new ConfigException(
          "Setting query.heap-stop-threshold must be a share of the heap from 0 (off) to below 1, such as 0.9, not " + heapStop);
    }
    ServerConfig.Limits defaults = ServerConfig.Limits.DEFAULT;
    int perAddress = integer(values, "server.max-connections-per-address", defaults.maxConnectionsPerAddress());
    if (perAddress < 0) {
      throw new ConfigException("Setting server.max-connections-per-address must be 0 (no limit) or more, not " + perAddress);
    }
    Duration handshake = duration(values, "server.handshake-timeout", defaults.handshakeTimeout());
    if (handshake.isZero() || handshake.isNegative()) {
      throw new ConfigException("Setting server.handshake-timeout must be positive, such as 10s");
    }
    Duration idle = duration(values, "server.connection-idle-timeout", defaults.connectionIdleTimeout());
    if (idle.isNegative()) {
      throw new ConfigException("Setting server.connection-idle-timeout must not be negative (0 keeps idle connections open)");
    }
    int history = integer(values, "server.query-history", defaults.queryHistory());
    if (history < 0) {
      throw new ConfigException("Setting server.query-history must be 0 (keep none) or more, not " + history);
    }
    int running = integer(values, "server.max-running-statements", defaults.maxRunningStatements());
    if (running < 0) {
      throw new ConfigException("Setting server.max-running-statements must be 0 (no limit) or more, not " + running);
    }
    int perUser = integer(values, "server.max-running-statements-per-user", defaults.maxRunningStatementsPerUser());
    if (perUser < 0) {
      throw new ConfigException("Setting server.max-running-statements-per-user must be 0 (no limit) or more, not " + perUser);
    }
    Duration queueTimeout = duration(values, "server.queue-timeout", defaults.queueTimeout());
    if (queueTimeout.isNegative()) {
      throw new ConfigException("Setting server.queue-timeout must not be negative (0 waits as long as it takes)");
    }
    int maxSessions = integer(values, "server.max-sessions", defaults.maxSessions());
    if (maxSessions < 0) {
      throw new ConfigException("Setting server.max-sessions must be 0 (no limit) or more, not " + maxSessions);
    }
    Duration sessionIdle = duration(values, "server.session-idle-timeout", defaults.sessionIdleTimeout());
    if (sessionIdle.isZero() || sessionIdle.isNegative()) {
      throw new ConfigException("Setting server.session-idle-timeout must be positive, such as 8h");
    }
    return new ServerConfig.Limits(
        heapStop,
        size(values, "query.tickets.max-bytes-per-user", defaults.ticketBytesPerUser()),
        size(values, "query.tickets.max-bytes", defaults.ticketBytes()),
        perAddress,
        handshake,
        idle,
        history,
        running,
        perUser,
        queueTimeout,
        maxSessions,
        sessionIdle);
  }

  private static ServerConfig.TrinoSettings trino(Map<String, String> values) {
    int port = -1;
    String text = blankToNull(values.get("trino.port"));
    if (text != null && !text.equalsIgnoreCase("off")) {
      port = integer(values, "trino.port", -1);
      if (port < 0 || port > 65535) {
        throw new ConfigException("Setting trino.port must be between 0 and 65535 (or off), not " + port);
      }
    }
    String host = blankToNull(values.get("trino.host"));
    Duration clientTimeout = duration(values, "trino.client-timeout", ServerConfig.TrinoSettings.OFF.clientTimeout());
    if (clientTimeout.isNegative() || clientTimeout.isZero()) {
      throw new ConfigException("Setting trino.client-timeout must be longer than zero");
    }
    return new ServerConfig.TrinoSettings(host == null ? null : host.trim(), port, clientTimeout);
  }

  private static ServerConfig.OperationsSettings operations(Map<String, String> values) {
    int httpPort = -1;
    String http = blankToNull(values.get("http.port"));
    if (http != null && !http.equalsIgnoreCase("off")) {
      httpPort = integer(values, "http.port", -1);
      if (httpPort < 0 || httpPort > 65535) {
        throw new ConfigException("Setting http.port must be between 0 and 65535 (or off), not " + httpPort);
      }
    }
    Duration grace = duration(values, "server.shutdown-grace-period", Duration.ofSeconds(30));
    if (grace.isNegative()) {
      throw new ConfigException("Setting server.shutdown-grace-period must not be negative");
    }
    String format = values.getOrDefault("log.format", "text").trim().toUpperCase(Locale.ROOT);
    ServerConfig.LogFormat logFormat;
    try {
      logFormat = ServerConfig.LogFormat.valueOf(format);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Setting log.format must be 'text' or 'json', not '" + values.get("log.format") + "'");
    }
    String level = values.getOrDefault("log.level", "info").trim().toUpperCase(Locale.ROOT);
    if (!LOG_LEVELS.contains(level)) {
      throw new ConfigException(
          "Setting log.level must be one of trace, debug, info, warn, error, off, not '" + values.get("log.level") + "'");
    }
    boolean httpTls = bool(values, "http.tls", false);
    if (httpTls && blankToNull(values.get("tls.certificate-chain")) == null) {
      throw new ConfigException("Setting http.tls serves HTTPS with the server's TLS key material: it needs tls.certificate-chain and tls.private-key");
    }
    return new ServerConfig.OperationsSettings(httpPort, grace, logFormat, level, tracing(values), httpTls);
  }

  private static ServerConfig.TracingSettings tracing(Map<String, String> values) {
    String protocol = values.getOrDefault("tracing.protocol", "http/protobuf").trim().toLowerCase(Locale.ROOT);
    if (!protocol.equals("http/protobuf")) {
      // gRPC would need OkHttp and the Kotlin runtime on the class path; every collector takes both.
      throw new ConfigException(
          "Setting tracing.protocol must be 'http/protobuf' (OTLP over HTTP, a collector's port 4318), not '"
              + values.get("tracing.protocol") + "'");
    }
    double ratio = decimal(values, "tracing.sample-ratio", 1.0);
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new ConfigException("Setting tracing.sample-ratio must be from 0 to 1, not " + values.get("tracing.sample-ratio"));
    }
    String service = blankToNull(values.get("tracing.service-name"));
    Map<String, String> attributes = new LinkedHashMap<>();
    String listed = blankToNull(values.get("tracing.resource-attributes"));
    if (listed != null) {
      for (String pair : listed.split(",")) {
        int equals = pair.indexOf('=');
        if (equals <= 0 || pair.substring(0, equals).isBlank()) {
          throw new ConfigException(
              "Setting tracing.resource-attributes must be key=value pairs separated by commas, not '" + pair.trim() + "'");
        }
        attributes.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
      }
    }
    String endpoint = blankToNull(values.get("tracing.otlp-endpoint"));
    return new ServerConfig.TracingSettings(
        endpoint == null ? null : otlpTracesUri(endpoint), ratio, service == null ? "sqe" : service.trim(), attributes);
  }

  /** A collector's traces URL: {@code /v1/traces} on the address given without a path, as OTEL_EXPORTER_OTLP_ENDPOINT does. */
  private static URI otlpTracesUri(String endpoint) {
    URI uri;
    try {
      uri = new URI(endpoint.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException("Setting tracing.otlp-endpoint is not a URL: " + e.getMessage());
    }
    if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new ConfigException(
          "Setting tracing.otlp-endpoint must be an http:// or https:// URL such as http://collector:4318, not '" + endpoint.trim() + "'");
    }
    String path = uri.getPath();
    return path == null || path.isEmpty() || path.equals("/") ? uri.resolve("/v1/traces") : uri;
  }

  private static ServerConfig.SecuritySettings security(Map<String, String> values) {
    String file = blankToNull(values.get("security.policy-file"));
    Duration refresh = duration(values, "security.refresh-period", Duration.ofSeconds(10));
    List<String> allowedLocations = List.copyOf(list(values, "security.allowed-locations", ""));
    for (String location : allowedLocations) {
      try {
        StorageLocation.parseChosen(location);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("Setting security.allowed-locations lists '" + location + "', which is not usable: " + e.getMessage());
      }
    }
    if (file == null) {
      return new ServerConfig.SecuritySettings(null, refresh, allowedLocations);
    }
    Path path = Path.of(file).toAbsolutePath().normalize();
    if (!java.nio.file.Files.isRegularFile(path)) {
      throw new ConfigException("Setting security.policy-file names " + path + ", which is not a file");
    }
    return new ServerConfig.SecuritySettings(path, refresh, allowedLocations);
  }

  private static OidcSettings oidc(Map<String, String> values) {
    String issuer = blankToNull(values.get("auth.oidc.issuer"));
    if (issuer == null) {
      List<String> stray = values.keySet().stream().filter(k -> k.startsWith("auth.oidc.")).sorted().toList();
      if (!stray.isEmpty()) {
        throw new ConfigException("Settings " + String.join(", ", stray) + " need auth.oidc.issuer");
      }
      return null;
    }
    Set<String> audiences = list(values, "auth.oidc.audience", "");
    if (audiences.isEmpty()) {
      throw new ConfigException(
          "Setting auth.oidc.audience is required with auth.oidc.issuer: the audience (aud) SQE's tokens are issued for");
    }
    Set<String> algorithms = list(values, "auth.oidc.algorithms", "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512");
    for (String algorithm : algorithms) {
      if (!algorithm.matches("(RS|PS|ES)(256|384|512)|EdDSA")) {
        throw new ConfigException(
            "Setting auth.oidc.algorithms lists '" + algorithm + "'; only asymmetric signatures (RS*, PS*, ES*, EdDSA) are accepted");
      }
    }
    String clientId = blankToNull(values.get("auth.oidc.client-id"));
    String clientSecret = blankToNull(values.get("auth.oidc.client-secret"));
    if (clientSecret != null && clientId == null) {
      throw new ConfigException("Setting auth.oidc.client-secret needs auth.oidc.client-id");
    }
    Duration jwksMinRefresh = duration(values, "auth.oidc.jwks-min-refresh", Duration.ofSeconds(30));
    if (jwksMinRefresh.compareTo(Duration.ofMinutes(4)) > 0) {
      throw new ConfigException("Setting auth.oidc.jwks-min-refresh must be at most 4m (keys are cached for 5m)");
    }
    return new OidcSettings(
        uri(values, "auth.oidc.issuer"),
        audiences,
        uri(values, "auth.oidc.jwks-uri"),
        algorithms,
        values.getOrDefault("auth.oidc.user-claim", "preferred_username").trim(),
        List.copyOf(list(values, "auth.oidc.role-claims", "groups,roles,realm_access.roles")),
        duration(values, "auth.oidc.clock-skew", Duration.ofSeconds(60)),
        jwksMinRefresh,
        clientId,
        clientSecret,
        uri(values, "auth.oidc.token-endpoint"),
        String.join(" ", list(values, "auth.oidc.scopes", "openid")));
  }

  private static TlsSettings tls(Map<String, String> values) {
    Path chain = existingFile(values, "tls.certificate-chain");
    Path key = existingFile(values, "tls.private-key");
    Path clientCa = existingFile(values, "tls.client-ca");
    if (chain == null && key == null) {
      if (clientCa != null) {
        throw new ConfigException("Setting tls.client-ca needs tls.certificate-chain and tls.private-key");
      }
      return null;
    }
    if (chain == null || key == null) {
      throw new ConfigException("TLS needs both tls.certificate-chain and tls.private-key (PEM files)");
    }
    return new TlsSettings(chain, key, clientCa);
  }

  private static Path existingFile(Map<String, String> values, String key) {
    String value = blankToNull(values.get(key));
    if (value == null) {
      return null;
    }
    Path path = Path.of(value).toAbsolutePath().normalize();
    if (!Files.isReadable(path) || Files.isDirectory(path)) {
      throw new ConfigException("Setting " + key + " names " + path + ", which is not a readable file");
    }
    return path;
  }

  private static URI uri(Map<String, String> values, String key) {
    String value = blankToNull(values.get(key));
    if (value == null) {
      return null;
    }
    try {
      URI uri = new URI(value);
      if (!"https".equalsIgnoreCase(uri.getScheme()) && !"http".equalsIgnoreCase(uri.getScheme())) {
        throw new ConfigException("Setting " + key + " must be an http(s) URL, not '" + value + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ConfigException("Setting " + key + " must be a URL, not '" + value + "'");
    }
  }

  /** A comma-separated list: YAML lists are not settings here, so that every setting has one environment variable. */
  private static Set<String> list(Map<String, String> values, String key, String fallback) {
    Set<String> items = new LinkedHashSet<>();
    for (String item : values.getOrDefault(key, fallback).split(",")) {
      if (!item.isBlank()) {
        items.add(item.trim());
      }
    }
    return items;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static CatalogType catalogType(String value) {
    try {
      return CatalogType.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Setting catalog.type must be 'embedded' or 'rest', not '" + value + "'");
    }
  }

  /** A whole number of 0 or more (0 turns the thing it bounds off). */
  private static long atLeastZero(Map<String, String> values, String key, long fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed >= 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // told below
    }
    throw new ConfigException("Setting " + key + " must be a whole number of 0 or more, not '" + value + "'");
  }

  private static int integer(Map<String, String> values, String key, int fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("Setting " + key + " must be a whole number, not '" + value + "'");
    }
  }

  private static boolean bool(Map<String, String> values, String key, boolean fallback) {
    String value = values.get(key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw new ConfigException("Setting " + key + " must be true or false, not '" + value + "'");
    }
  }

  private static double decimal(Map<String, String> values, String key, double fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("Setting " + key + " must be a number, not '" + value + "'");
    }
  }

  /** Durations as ISO-8601 ({@code PT10S}) or a number with a unit: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d}. */
  static Duration duration(Map<String, String> values, String key, Duration fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    return DurationText.parse(value)
        .orElseThrow(() -> new ConfigException("Setting " + key + " must be a duration such as 30s, 5m or 1h, not '" + value + "'"));
  }

  /** Sizes in bytes, with an optional k, m, g or t suffix (powers of 1024). */
  static long size(Map<String, String> values, String key, long fallback) {
    String value = values.get(key);
    if (value == null) {
      return fallback;
    }
    Matcher m = SIZE.matcher(value);
    if (!m.matches()) {
      throw new ConfigException("Setting " + key + " must be a size such as 512m or 2g, not '" + value + "'");
    }
    long n = Long.parseLong(m.group(1));
    // No unit is bytes: "kmgt".indexOf("") is 0, which read a bare number as KiB.
    int shift = m.group(2).isEmpty() ? 0 : "kmgt".indexOf(m.group(2).toLowerCase(Locale.ROOT)) + 1;
    long bytes = n << (10 * shift);
    if (bytes <= 0) {
      throw new ConfigException("Setting " + key + " must be positive");
    }
    return bytes;
  }
}
