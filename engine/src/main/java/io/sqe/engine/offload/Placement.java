package io.sqe.engine.offload;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.iceberg.ScanBytes;
import java.util.List;
import java.util.Locale;

/**
 * Where a query runs, here or on the Trino cluster, and why; EXPLAIN ends with it.
 *
 * @param onTrino whether the query runs on the Trino cluster
 * @param reason why, e.g. {@code estimated scan 12.3 GiB > offload.min-scan-bytes 10 GiB}
 */
public record Placement(boolean onTrino, String reason) {
  private static final String[] UNITS = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};

  public Placement {
    requireNonNull(reason, "reason is null");
  }

  public static Placement local(String reason) {
    return new Placement(false, reason);
  }

  /**
   * Where {@code mode} places a query whose plan reads {@code scans}: {@code always} on the
   * cluster, {@code never} here, {@code auto} on the cluster when the bytes the scans read, as
   * estimated from their snapshots' cached file lists, exceed {@code config}'s {@code
   * min-scan-bytes}.
   */
  public static Placement of(OffloadConfig.Mode mode, OffloadConfig config, List<ScanBytes> scans, Runnable checkCancelled) {
    switch (mode) {
      case ALWAYS:
        return new Placement(true, "offload = 'always'");
      case NEVER:
        return local("offload = 'never'");
      default:
        long bytes = 0;
        for (ScanBytes scan : scans) {
          bytes += scan.estimate(checkCancelled);
        }
        boolean big = bytes > config.minScanBytes();
        return new Placement(big, "estimated scan " + bytes(bytes) + (big ? " > " : " <= ")
            + "offload.min-scan-bytes " + bytes(config.minScanBytes()));
    }
  }

  /** EXPLAIN's last line. */
  public String explainLine() {
    return "-- offload: " + (onTrino ? "trino" : "local") + " (" + reason + ")";
  }

  /** {@code bytes} to three significant figures in binary units, as {@code offload.min-scan-bytes} is read. */
  static String bytes(long bytes) {
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    if (unit == 0) {
      return bytes + " bytes";
    }
    String digits = value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f";
    String number = String.format(Locale.ROOT, digits, value);
    if (number.contains(".")) {
      number = number.replaceFirst("\\.?0+$", "");
    }
    return number + " " + UNITS[unit];
  }
}
