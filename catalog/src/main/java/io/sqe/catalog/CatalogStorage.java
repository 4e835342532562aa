package io.sqe.catalog;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;

/**
 * The storage a catalog's tables live in, as far as SQE can tell from its configuration: the
 * location schemes its FileIO serves with a client of its own (never through Hadoop's file
 * systems, which connect to whatever host a {@code hdfs://}, {@code webhdfs://} or {@code ftp://}
 * location names), and the directory holding the catalog's own files, which no table may take.
 *
 * @param schemes location schemes, lower case, that a table of this catalog may use
 * @param catalogDirectory the directory of the catalog's own files (the embedded catalog's
 *     warehouse, with its SQLite database) as a location; empty when the catalog keeps none
 */
public record CatalogStorage(Set<String> schemes, Optional<String> catalogDirectory) {
  /** A catalog SQE knows nothing about: no location may be chosen in it. */
  public static final CatalogStorage UNKNOWN = new CatalogStorage(Set.of(), Optional.empty());

  private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  private static final String GCS_FILE_IO = "org.apache.iceberg.gcp.gcs.GCSFileIO";
  private static final String ADLS_FILE_IO = "org.apache.iceberg.azure.adlsv2.ADLSFileIO";
  private static final String HADOOP_FILE_IO = "org.apache.iceberg.hadoop.HadoopFileIO";
  private static final String RESOLVING_FILE_IO = "org.apache.iceberg.io.ResolvingFileIO";
  /** The FileIOs with a client of their own, and the schemes each serves (as ResolvingFileIO maps them). */
  private static final Map<String, List<String>> OWN_CLIENTS = Map.of(
      S3_FILE_IO, List.of("s3", "s3a", "s3n"),
      GCS_FILE_IO, List.of("gs"),
      ADLS_FILE_IO, List.of("abfs", "abfss", "wasb", "wasbs"));
  private static final Pattern SCHEME = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*):");

  public CatalogStorage {
    schemes = Set.copyOf(schemes);
    requireNonNull(catalogDirectory, "catalogDirectory is null");
  }

  /** The embedded catalog: Hadoop's local file system under {@code warehouse}, which also holds the catalog's database. */
  public static CatalogStorage embedded(Path warehouse) {
    return new CatalogStorage(Set.of("file"), Optional.of(warehouse.toAbsolutePath().normalize().toUri().toString()));
  }

  /**
   * A REST catalog with these (merged) client properties: the schemes of its FileIO ({@code
   * io-impl}, by default Iceberg's ResolvingFileIO, which serves S3, GCS and ADLS with their own
   * clients where they are on the class path, and local files through Hadoop); narrowed to the
   * scheme of {@code warehouse} when that is a location with one of them.
   */
  public static CatalogStorage rest(Map<String, String> properties) {
    String io = properties.getOrDefault(CatalogProperties.FILE_IO_IMPL, RESOLVING_FILE_IO);
    Set<String> schemes = new LinkedHashSet<>();
    if (io.equals(RESOLVING_FILE_IO)) {
      schemes.add("file");
      OWN_CLIENTS.forEach((impl, served) -> {
        if (onClassPath(impl)) {
          schemes.addAll(served);
        }
      });
    } else if (io.equals(HADOOP_FILE_IO)) {
      schemes.add("file");
    } else if (OWN_CLIENTS.containsKey(io)) {
      schemes.addAll(OWN_CLIENTS.get(io));
    }
    String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
    Matcher scheme = SCHEME.matcher(warehouse == null ? "" : warehouse);
    if (scheme.find() && schemes.contains(scheme.group(1).toLowerCase(Locale.ROOT))) {
      String family = scheme.group(1).toLowerCase(Locale.ROOT);
      schemes.removeIf(s -> !family(s).equals(family(family)));
    }
    return new CatalogStorage(schemes, Optional.empty());
  }

  /** Schemes that name the same storage the same way: {@code s3}, {@code s3a} and {@code s3n} are one. */
  public static String family(String scheme) {
    String lower = scheme.toLowerCase(Locale.ROOT);
    return switch (lower) {
      case "s3a", "s3n" -> "s3";
      default -> lower;
    };
  }

  private static boolean onClassPath(String className) {
    try {
      Class.forName(className, false, CatalogStorage.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
