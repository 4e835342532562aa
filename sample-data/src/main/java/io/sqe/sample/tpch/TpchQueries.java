package io.sqe.sample.tpch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;

/**
 * The 22 TPC-H queries with the specification's validation parameters, in standard SQL that Apache
 * Calcite parses and DuckDB runs. Table names are unqualified and no query ends with a semicolon.
 */
public final class TpchQueries {
  private static final int COUNT = 22;
  private static final List<String> QUERIES =
      IntStream.rangeClosed(1, COUNT).mapToObj(TpchQueries::read).toList();

  private TpchQueries() {}

  /** 1 to 22. */
  public static List<Integer> numbers() {
    return IntStream.rangeClosed(1, COUNT).boxed().toList();
  }

  /** The text of query {@code n}, 1 to 22. */
  public static String query(int n) {
    Preconditions.checkArgument(n >= 1 && n <= COUNT, "Invalid TPC-H query number: %s", n);
    return QUERIES.get(n - 1);
  }

  private static String read(int n) {
    String resource = String.format("q%02d.sql", n);
    try (InputStream in = TpchQueries.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "Missing resource " + resource + " next to " + TpchQueries.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + resource, e);
    }
  }
}
