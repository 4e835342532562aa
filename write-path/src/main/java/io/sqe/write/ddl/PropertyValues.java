package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.sql.ddl.SqlProperty;
import io.sqe.write.storage.LocationRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.TableProperties;

/**
 * Checks the values of {@code WITH (k = v)} and {@code SET PROPERTIES}. Iceberg accepts any
 * string for any key and fails only when a writer later reads it; SQE checks the keys it knows
 * when the statement runs instead. Unknown keys pass unchanged: engines and users keep their own
 * metadata in table properties.
 */
final class PropertyValues {
  /** Trino's and Spark's names for Iceberg's keys. */
  private static final Map<String, String> ALIASES =
      Map.of(
          "format", TableProperties.DEFAULT_FILE_FORMAT,
          "format_version", TableProperties.FORMAT_VERSION);

  private static final Set<String> POSITIVE_LONGS =
      Set.of(
          TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
          TableProperties.DELETE_TARGET_FILE_SIZE_BYTES,
          TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
          TableProperties.PARQUET_PAGE_SIZE_BYTES,
          TableProperties.PARQUET_PAGE_ROW_LIMIT,
          TableProperties.PARQUET_DICT_SIZE_BYTES,
          TableProperties.MANIFEST_TARGET_SIZE_BYTES,
          TableProperties.SPLIT_SIZE,
          TableProperties.SPLIT_OPEN_FILE_COST,
          TableProperties.SPLIT_LOOKBACK,
          TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
          TableProperties.MAX_SNAPSHOT_AGE_MS,
          TableProperties.MIN_SNAPSHOTS_TO_KEEP,
          TableProperties.MAX_REF_AGE_MS,
          TableProperties.COMMIT_MIN_RETRY_WAIT_MS,
          TableProperties.COMMIT_MAX_RETRY_WAIT_MS,
          TableProperties.COMMIT_TOTAL_RETRY_TIME_MS,
          TableProperties.METRICS_MAX_INFERRED_COLUMN_DEFAULTS);

  private static final Set<String> NON_NEGATIVE_LONGS =
      Set.of(TableProperties.COMMIT_NUM_RETRIES, TableProperties.MANIFEST_MIN_MERGE_COUNT);

  private static final Set<String> BOOLEANS =
      Set.of(
          TableProperties.MANIFEST_MERGE_ENABLED,
          TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED,
          TableProperties.OBJECT_STORE_ENABLED,
          TableProperties.WRITE_AUDIT_PUBLISH_ENABLED,
          TableProperties.GC_ENABLED,
          TableProperties.SPARK_WRITE_ACCEPT_ANY_SCHEMA);

  private static final Map<String, List<String>> CHOICES =
      Map.ofEntries(
          Map.entry(TableProperties.DEFAULT_FILE_FORMAT, List.of("parquet", "avro", "orc")),
          Map.entry(TableProperties.DELETE_DEFAULT_FILE_FORMAT, List.of("parquet", "avro", "orc")),
          Map.entry(TableProperties.DELETE_MODE, List.of("copy-on-write", "merge-on-read")),
          Map.entry(TableProperties.UPDATE_MODE, List.of("copy-on-write", "merge-on-read")),
          Map.entry(TableProperties.MERGE_MODE, List.of("copy-on-write", "merge-on-read")),
          Map.entry(TableProperties.DELETE_ISOLATION_LEVEL, List.of("serializable", "snapshot")),
          Map.entry(TableProperties.UPDATE_ISOLATION_LEVEL, List.of("serializable", "snapshot")),
          Map.entry(TableProperties.MERGE_ISOLATION_LEVEL, List.of("serializable", "snapshot")),
          Map.entry(TableProperties.WRITE_DISTRIBUTION_MODE, List.of("none", "hash", "range")),
          Map.entry(
              TableProperties.PARQUET_COMPRESSION,
              List.of("zstd", "gzip", "snappy", "lz4", "brotli", "lzo", "uncompressed", "none")),
          Map.entry(TableProperties.METADATA_COMPRESSION, List.of("none", "gzip")));

  /** Format versions Iceberg 1.11 writes. */
  private static final List<String> FORMAT_VERSIONS = List.of("1", "2", "3");

  private PropertyValues() {}

  /** The properties of a WITH or SET PROPERTIES list, checked, under Iceberg's key names, in the order written. */
  static Map<String, String> table(List<SqlNode> properties) {
    Map<String, String> result = new LinkedHashMap<>();
    for (SqlNode node : properties) {
      SqlProperty property = (SqlProperty) node;
      String key = key(property);
      String value = text(property);
      value = check(key, value, property.value());
      if (result.put(key, value) != null) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Property '" + key + "' is set twice", property.keyNode());
      }
    }
    return result;
  }

  /** Namespace properties: any key, literal values. */
  static Map<String, String> schema(List<SqlNode> properties) {
    Map<String, String> result = new LinkedHashMap<>();
    for (SqlNode node : properties) {
      SqlProperty property = (SqlProperty) node;
      String key = key(property);
      if (result.put(key, text(property)) != null) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Property '" + key + "' is set twice", property.keyNode());
      }
    }
    return result;
  }

  /**
   * The key under Iceberg's name: the aliases, and the keys that name a path in lower case, as
   * Iceberg reads them (LocationRules checks them in any case).
   */
  static String key(SqlProperty property) {
    String lower = property.key().toLowerCase(Locale.ROOT);
    if (LocationRules.isPathProperty(lower)) {
      return lower;
    }
    return ALIASES.getOrDefault(lower, property.key());
  }

  private static String text(SqlProperty property) {
    String value = property.valueText();
    if (value == null) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "The value of property '" + property.key() + "' must be a literal: a string, number or boolean",
          property.value());
    }
    return value;
  }

  /** The value to store: as written, or in the spelling Iceberg expects for an enumerated key. */
  private static String check(String key, String value, SqlNode at) {
    if (key.equals(TableProperties.FORMAT_VERSION)) {
      if (!FORMAT_VERSIONS.contains(value)) {
        throw invalid(key, value, "one of " + String.join(", ", FORMAT_VERSIONS), at);
      }
      return value;
    }
    if (POSITIVE_LONGS.contains(key) || NON_NEGATIVE_LONGS.contains(key)) {
      long number;
      try {
        number = Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw invalid(key, value, "a whole number", at);
      }
      long min = POSITIVE_LONGS.contains(key) ? 1 : 0;
      if (number < min) {
        throw invalid(key, value, min == 1 ? "a positive whole number" : "zero or more", at);
      }
      return Long.toString(number);
    }
    if (BOOLEANS.contains(key)) {
      String lower = value.trim().toLowerCase(Locale.ROOT);
      if (!lower.equals("true") && !lower.equals("false")) {
        throw invalid(key, value, "true or false", at);
      }
      return lower;
    }
    List<String> choices = CHOICES.get(key);
    if (choices != null) {
      String lower = value.trim().toLowerCase(Locale.ROOT);
      if (!choices.contains(lower)) {
        throw invalid(key, value, "one of " + String.join(", ", choices), at);
      }
      return lower;
    }
    if (key.equals(TableProperties.DEFAULT_WRITE_METRICS_MODE) || key.startsWith(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX)) {
      try {
        MetricsModes.fromString(value);
      } catch (IllegalArgumentException e) {
        throw invalid(key, value, "none, counts, full or truncate(n)", at);
      }
      return value;
    }
    return value;
  }

  private static io.sqe.engine.SqeException invalid(String key, String value, String expected, SqlNode at) {
    return error(ErrorCode.INVALID_ARGUMENT, "Invalid value '" + value + "' for table property '" + key + "': expected " + expected, at);
  }
}
