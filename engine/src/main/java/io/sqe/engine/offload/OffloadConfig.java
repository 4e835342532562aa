package io.sqe.engine.offload;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.Locale;
import java.util.Optional;

/**
 * The Trino cluster big queries may run on ({@code offload.*} in {@code sqe.yaml}): its coordinator,
 * the service user SQE runs them as, the estimated scan above which a query goes there, and
 * whether a query runs here when the cluster fails.
 *
 * @param trinoUri the coordinator, e.g. {@code http://trino:8080}; empty when there is no cluster
 * @param user the service user SQE connects as (end users never reach Trino themselves)
 * @param minScanBytes the bytes to scan above which {@code offload = 'auto'} sends a query
 * @param fallback whether a query Trino fails to run runs here instead of failing UNAVAILABLE
 */
public record OffloadConfig(Optional<String> trinoUri, String user, long minScanBytes, boolean fallback) {
  /** The session option that chooses where a query runs: auto, always or never. */
  public static final String SESSION_OPTION = "offload";
  public static final long DEFAULT_MIN_SCAN_BYTES = 10L << 30;
  public static final OffloadConfig NONE = new OffloadConfig(Optional.empty(), "sqe", DEFAULT_MIN_SCAN_BYTES, false);

  public OffloadConfig {
    requireNonNull(trinoUri, "trinoUri is null");
    requireNonNull(user, "user is null");
    if (minScanBytes < 0) {
      throw new IllegalArgumentException("minScanBytes must not be negative, not " + minScanBytes);
    }
  }

  /** The cluster's JDBC URL for Trino's driver. */
  public String jdbcUrl() {
    String uri = trinoUri.orElseThrow(() -> new IllegalStateException("No Trino cluster is configured"));
    return "jdbc:trino://" + uri.replaceFirst("^https?://", "").replaceFirst("/+$", "");
  }

  /** Where a session's queries run, as its {@code offload} option says. */
  public enum Mode {
    AUTO,
    ALWAYS,
    NEVER;

    /** The mode a session option's value names; INVALID_ARGUMENT for another value. */
    public static Mode of(String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Option offload must be 'auto', 'always' or 'never', not '" + value + "'");
      }
    }
  }
}
