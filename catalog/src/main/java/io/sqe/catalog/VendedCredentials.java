package io.sqe.catalog;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsStorageCredentials;

/**
 * When the storage credentials a catalog vended with a table stop working, for a table whose
 * FileIO cannot renew them itself.
 *
 * <p>A REST catalog such as Apache Polaris vends short-lived credentials with each table it loads
 * (in the table config or as storage credentials) together with their expiry. When it also names
 * a refresh endpoint ({@code client.refresh-credentials-endpoint} for S3, {@code
 * gcs.oauth2.refresh-credentials-endpoint} for GCS, {@code adls.refresh-credentials-endpoint} for
 * ADLS), Iceberg's FileIO fetches new credentials there before the old ones expire, and a table
 * may be kept for as long as its metadata is fresh. Without one, the credentials die with their
 * expiry and only loading the table again brings new ones.
 */
final class VendedCredentials {
  static final String S3_EXPIRES_AT = "s3.session-token-expires-at-ms";
  static final String S3_REFRESH_ENDPOINT = "client.refresh-credentials-endpoint";
  static final String S3_REFRESH_ENABLED = "client.refresh-credentials-enabled";
  static final String GCS_EXPIRES_AT = "gcs.oauth2.token-expires-at";
  static final String GCS_REFRESH_ENDPOINT = "gcs.oauth2.refresh-credentials-endpoint";
  static final String GCS_REFRESH_ENABLED = "gcs.oauth2.refresh-credentials-enabled";
  static final String ADLS_EXPIRES_AT_PREFIX = "adls.sas-token-expires-at-ms.";
  static final String ADLS_REFRESH_ENDPOINT = "adls.refresh-credentials-endpoint";
  static final String ADLS_REFRESH_ENABLED = "adls.refresh-credentials-enabled";

  /** How long before their expiry unrenewable credentials are no longer handed to a statement. */
  static final Duration MARGIN = Duration.ofMinutes(1);

  private VendedCredentials() {}

  /**
   * Loads a table with {@code load}; when its credentials cannot be renewed and expire within
   * {@link #MARGIN}, forgets it with {@code invalidate} and loads it again. Iceberg's REST client
   * keeps the tables it loaded and, while the catalog says their metadata is unchanged (ETag),
   * answers a load from there, old credentials and all.
   */
  static Table loadWithLiveCredentials(TableIdentifier id, Function<TableIdentifier, Table> load, Consumer<TableIdentifier> invalidate) {
    Table table = load.apply(id);
    Optional<Instant> expiry = unrenewableExpiry(table);
    if (expiry.isPresent() && Instant.now().plus(MARGIN).isAfter(expiry.get())) {
      invalidate.accept(id);
      table = load.apply(id);
    }
    return table;
  }

  /**
   * How long a loaded table may be kept: at most {@code cap}, and when its credentials cannot be
   * renewed, until {@link #MARGIN} (or half their remaining life, if shorter) before they expire,
   * so that the statements planned with it can still finish.
   */
  static Duration keepFor(Table table, Duration cap) {
    Optional<Instant> expiry = unrenewableExpiry(table);
    if (expiry.isEmpty()) {
      return cap;
    }
    Duration remaining = Duration.between(Instant.now(), expiry.get());
    Duration margin = remaining.dividedBy(2).compareTo(MARGIN) < 0 ? remaining.dividedBy(2) : MARGIN;
    Duration usable = remaining.minus(margin);
    return usable.isNegative() ? Duration.ZERO : usable.compareTo(cap) < 0 ? usable : cap;
  }

  /**
   * The earliest expiry among the table's vended credentials that its FileIO will not renew, or
   * empty when it holds none (static keys, credentials from the environment, a local disk).
   */
  static Optional<Instant> unrenewableExpiry(Table table) {
    FileIO io;
    Map<String, String> properties;
    try {
      io = table.io();
      properties = io.properties();
    } catch (UnsupportedOperationException | NullPointerException e) {
      return Optional.empty(); // a FileIO that does not show its properties holds no vended credentials
    }
    List<Map<String, String>> sets = new ArrayList<>();
    sets.add(properties);
    if (io instanceof SupportsStorageCredentials withCredentials && withCredentials.credentials() != null) {
      for (StorageCredential credential : withCredentials.credentials()) {
        // A storage credential's config is laid over the FileIO's properties for its prefix.
        Map<String, String> merged = new java.util.HashMap<>(properties);
        merged.putAll(credential.config());
        sets.add(merged);
      }
    }
    Instant earliest = null;
    for (Map<String, String> set : sets) {
      for (Instant expiry : unrenewableExpiries(set)) {
        earliest = earliest == null || expiry.isBefore(earliest) ? expiry : earliest;
      }
    }
    return Optional.ofNullable(earliest);
  }

  private static List<Instant> unrenewableExpiries(Map<String, String> properties) {
    List<Instant> expiries = new ArrayList<>();
    if (!renews(properties, S3_REFRESH_ENDPOINT, S3_REFRESH_ENABLED)) {
      millis(properties.get(S3_EXPIRES_AT)).ifPresent(expiries::add);
    }
    if (!renews(properties, GCS_REFRESH_ENDPOINT, GCS_REFRESH_ENABLED)) {
      millis(properties.get(GCS_EXPIRES_AT)).ifPresent(expiries::add);
    }
    if (!renews(properties, ADLS_REFRESH_ENDPOINT, ADLS_REFRESH_ENABLED)) {
      properties.forEach((key, value) -> {
        if (key.startsWith(ADLS_EXPIRES_AT_PREFIX)) {
          millis(value).ifPresent(expiries::add);
        }
      });
    }
    return expiries;
  }

  private static boolean renews(Map<String, String> properties, String endpoint, String enabled) {
    String where = properties.get(endpoint);
    return where != null && !where.isBlank() && !"false".equalsIgnoreCase(properties.getOrDefault(enabled, "true"));
  }

  private static Optional<Instant> millis(String value) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.ofEpochMilli(Long.parseLong(value.trim())));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
