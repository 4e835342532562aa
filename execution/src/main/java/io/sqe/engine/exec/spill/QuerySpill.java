package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One query's part of the {@link SpillSpace}: a directory made at its first run, holding the runs
 * its operators spill, counted against {@code query.max-spill} and the query's figures. Closing it
 * when the query ends, however it ends, removes the directory and what is left in it.
 */
public final class QuerySpill implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(QuerySpill.class);

  private final SpillSpace space;
  private final String queryId;
  private final QueryStats stats;
  private final long maxBytes;
  private Path directory;
  private long written;
  private boolean closed;

  QuerySpill(SpillSpace space, String queryId, QueryStats stats, long maxBytes) {
    this.space = requireNonNull(space, "space is null");
    this.queryId = requireNonNull(queryId, "queryId is null");
    this.stats = requireNonNull(stats, "stats is null");
    this.maxBytes = maxBytes;
  }

  /** A new run of batches of {@code schema}, written as an Arrow IPC stream to a file of this query's directory. */
  public RunWriter newRun(Schema schema, BufferAllocator allocator) {
    Path file;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("The spill of query " + queryId + " is closed");
      }
      try {
        if (directory == null) {
          // Owner-only: spilled rows are table data, readable by no other user of the machine.
          directory = Files.createTempDirectory(space.directory(), SpillSpace.QUERY_PREFIX + safe(queryId) + "-");
          ownerOnly(directory, true);
        }
        file = Files.createTempFile(directory, "run-", ".arrow");
        ownerOnly(file, false);
      } catch (IOException e) {
        throw cannotWrite(e);
      }
    }
    stats.spillFileWritten();
    return new RunWriter(this, file, schema, allocator);
  }

  /** Counts {@code bytes} more written; RESOURCE_EXHAUSTED past {@code query.max-spill}. */
  synchronized void written(long bytes) {
    written += bytes;
    stats.spilled(bytes);
    if (written > maxBytes) {
      throw new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + queryId + " spilled more than its limit of " + maxBytes + " bytes to disk (query.max-spill)");
    }
  }

  SqeException cannotWrite(IOException e) {
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED, "Query " + queryId + " could not spill to disk: " + e.getMessage(), e);
  }

  SqeException cannotRead(IOException e) {
    return new SqeException(ErrorCode.INTERNAL, "Query " + queryId + " could not read back what it spilled: " + e.getMessage(), e);
  }

  /** The query's directory, null before its first run. */
  public synchronized Path directory() {
    return directory;
  }

  /** Removes the query's directory and every run left in it. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (directory != null) {
      try {
        deleteTree(directory);
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("Query {} could not remove its spill directory {}", queryId, directory, e);
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  static void ownerOnly(Path path, boolean directory) throws IOException {
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwx------" : "rw-------"));
    }
  }

  private static String safe(String queryId) {
    String name = queryId.replaceAll("[^A-Za-z0-9_.-]", "_");
    return name.length() > 64 ? name.substring(0, 64) : name;
  }
}
