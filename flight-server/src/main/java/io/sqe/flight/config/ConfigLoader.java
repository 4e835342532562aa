package io.sqe.flight.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sqe.flight.config.ServerConfig.AuthSettings;
import io.sqe.flight.config.ServerConfig.CatalogConfig;
import io.sqe.flight.config.ServerConfig.CatalogType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
          "auth.token-lifetime",
          "auth.issuer",
          "auth.password-hash-iterations",
          "query.max-memory",
          "sample-data.tpch-scale");
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
        throw new ConfigException("Setting " + key + " in " + file + " must not be a list");
      } else {
        out.put(key, value.isNull() ? "" : value.asText());
      }
    }
  }

  static Map<String, String> fromEnvironment(Map<String, String> environment) {
    Map<String, String> values = new TreeMap<>();
    for (Map.Entry<String, String> e : environment.entrySet()) {
      String name = e.getKey();
      if (!name.startsWith("SQE_") || name.equals(CONFIG_FILE_VARIABLE)) {
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
      } else if (!KEYS.contains(e.getKey())) {
        unknown.add(e.getKey());
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigException("Unknown settings: " + String.join(", ", unknown) + "; known settings are "
          + String.join(", ", KEYS.stream().sorted().toList())
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
    CatalogConfig catalog =
        new CatalogConfig(name, type, warehouse, catalogProperties, duration(values, "catalog.cache-ttl", Duration.ofSeconds(10)));
    int iterations = integer(values, "auth.password-hash-iterations", 210_000);
    if (iterations < 10_000) {
      throw new ConfigException("Setting auth.password-hash-iterations must be at least 10000, not " + iterations);
    }
    AuthSettings auth =
        new AuthSettings(duration(values, "auth.token-lifetime", Duration.ofHours(1)), values.getOrDefault("auth.issuer", "sqe"), iterations);
    long memory = size(values, "query.max-memory", 1L << 30);
    double scale = decimal(values, "sample-data.tpch-scale", 0);
    if (scale < 0 || scale > 100) {
      throw new ConfigException("Setting sample-data.tpch-scale must be between 0 and 100, not " + scale);
    }
    return new ServerConfig(host, port, dataDir, catalog, auth, memory, scale);
  }

  private static CatalogType catalogType(String value) {
    try {
      return CatalogType.valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("Setting catalog.type must be 'embedded' or 'rest', not '" + value + "'");
    }
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
    String v = value.trim().toLowerCase(Locale.ROOT);
    Matcher m = Pattern.compile("^(\\d+)\\s*(ms|s|m|h|d)$").matcher(v);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms":
          return Duration.ofMillis(n);
        case "s":
          return Duration.ofSeconds(n);
        case "m":
          return Duration.ofMinutes(n);
        case "h":
          return Duration.ofHours(n);
        default:
          return Duration.ofDays(n);
      }
    }
    try {
      return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new ConfigException("Setting " + key + " must be a duration such as 30s, 5m or 1h, not '" + value + "'");
    }
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
    int shift = "kmgt".indexOf(m.group(2).toLowerCase(Locale.ROOT)) + 1;
    long bytes = n << (10 * shift);
    if (bytes <= 0) {
      throw new ConfigException("Setting " + key + " must be positive");
    }
    return bytes;
  }
}
