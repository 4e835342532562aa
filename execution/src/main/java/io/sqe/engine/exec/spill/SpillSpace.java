package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory where operators write what does not fit in a query's memory: one sub-directory per
 * query ({@link QuerySpill}), removed when the query ends. Opening a configured directory removes
 * the query directories a crashed server left in it; nothing else there is touched, so a spill
 * directory shared by mistake loses no one else's files.
 */
public final class SpillSpace {
  private static final Logger LOG = LoggerFactory.getLogger(SpillSpace.class);
  static final String QUERY_PREFIX = "query-";
  /** A temporary directory for engines with no configured one, made at the first spill of any of them. */
  private static volatile Path temporary;

  private final SpillConfig config;

  private SpillSpace(SpillConfig config) {
    this.config = requireNonNull(config, "config is null");
  }

  /** The spill space of {@code config}, its directory emptied of earlier runs' query directories. */
  public static SpillSpace open(SpillConfig config) {
    SpillSpace space = new SpillSpace(config);
    if (config.directory() != null) {
      space.removeLeftovers();
    }
    return space;
  }

  /** A spill space in a temporary directory, for contexts made without the engine's. */
  public static SpillSpace temporary() {
    return new SpillSpace(SpillConfig.DEFAULT);
  }

  public SpillConfig config() {
    return config;
  }

  /** The spill of one query, which makes its directory at the first spill; close it when the query ends. */
  public QuerySpill forQuery(String queryId, QueryStats stats) {
    return new QuerySpill(this, queryId, stats, config.maxBytesPerQuery());
  }

  /** The spill directory, made (owner-only) if it does not exist. */
  Path directory() throws IOException {
    Path directory = config.directory();
    if (directory == null) {
      return temporaryDirectory();
    }
    if (!Files.isDirectory(directory)) {
      Files.createDirectories(directory);
      QuerySpill.ownerOnly(directory, true);
    }
    return directory;
  }

  private static synchronized Path temporaryDirectory() throws IOException {
    if (temporary == null || !Files.isDirectory(temporary)) {
      temporary = Files.createTempDirectory("sqe-spill-");
      temporary.toFile().deleteOnExit();
    }
    return temporary;
  }

  private void removeLeftovers() {
    Path directory = config.directory();
    if (!Files.isDirectory(directory)) {
      return;
    }
    int removed = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, QUERY_PREFIX + "*")) {
      for (Path entry : entries) {
        QuerySpill.deleteTree(entry);
        removed++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot empty the spill directory " + directory, e);
    }
    if (removed > 0) {
      LOG.info("Removed {} query spill directories left in {} by an earlier run", removed, directory);
    }
  }
}
