package io.sqe.write.maintenance;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.write.storage.OtherTables;
import io.sqe.write.storage.ReachableFiles;
import io.sqe.write.storage.StorageLocation;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files under a table's location that no metadata reaches and that are older than a
 * point in time: what failed writes and interrupted expiries leave behind. Reachable are the
 * files the table's metadata references ({@link ReachableFiles}) and those any other table or
 * view of the catalog references ({@link OtherTables#referenced}). The location is listed first
 * and the metadata read after, so a file committed meanwhile counts as reachable.
 *
 * <p>It deletes only under the table's own location: a table whose location is, contains or lies
 * inside another table's or view's (or the catalog's own directory) is refused, since its
 * listing would hold their files, and a listed file that is not under the location (as an S3
 * listing of a location with {@code ?} would return) is never deleted.
 */
public final class OrphanFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFiles.class);

  /**
   * What a removal did.
   *
   * @param scannedFiles files found under the table's location
   * @param reachableFiles files the table's metadata reaches
   * @param deletedFiles orphan files deleted
   */
  public record Result(long scannedFiles, long reachableFiles, long deletedFiles) {}

  private OrphanFiles() {}

  /** Whether the table's storage can list files, which this needs. */
  public static boolean supported(Table table) {
    return table.io() instanceof SupportsPrefixOperations;
  }

  /**
   * Deletes the orphan files under the table's location last modified before {@code olderThan}.
   *
   * @param others the catalog's other tables and views, whose files must stay
   * @throws SqeException FAILED_PRECONDITION when the location overlaps another table's
   */
  public static Result remove(Table table, OtherTables others, Instant olderThan) {
    requireNonNull(table, "table is null");
    requireNonNull(others, "others is null");
    requireNonNull(olderThan, "olderThan is null");
    if (!supported(table)) {
      throw new UnsupportedOperationException(
          "remove_orphan_files needs storage that lists files; the table's FileIO (" + table.io().getClass().getSimpleName() + ") does not");
    }
    StorageLocation own = StorageLocation.parseExisting(table.location()).orElseThrow(() -> new SqeException(
        ErrorCode.FAILED_PRECONDITION, "remove_orphan_files cannot tell where the table's location '" + table.location() + "' lies; nothing was deleted"));
    others.overlapping(own.resolveLinks(), false).ifPresent(other -> {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "remove_orphan_files does not run on this table: its location overlaps that of " + other
              + " (one is, or lies inside, the other), so files under it may be another's; nothing was deleted");
    });
    SupportsPrefixOperations io = (SupportsPrefixOperations) table.io();
    String location = table.location().endsWith("/") ? table.location() : table.location() + "/";
    long scanned = 0;
    long outside = 0;
    Map<String, FileInfo> candidates = new HashMap<>();
    for (FileInfo file : io.listPrefix(location)) {
      scanned++;
      Optional<StorageLocation> at = StorageLocation.parseExisting(file.location());
      if (at.isEmpty() || at.get().segments().size() <= own.segments().size() || !own.contains(at.get())) {
        outside++;
        continue;
      }
      if (file.createdAtMillis() < olderThan.toEpochMilli()) {
        candidates.put(at.get().key(), file);
      }
    }
    if (outside > 0) {
      LOG.warn("Listing {} of {} returned {} files outside it; they are left alone", location, table.name(), outside);
    }
    table.refresh();
    Set<String> reachable = new HashSet<>();
    ReachableFiles.visit(table, path -> {
      OtherTables.key(path).ifPresent(reachable::add);
      return true;
    });
    candidates.keySet().removeAll(reachable);
    candidates.keySet().removeAll(others.referenced(candidates.keySet()));
    long deleted = 0;
    for (FileInfo candidate : candidates.values()) {
      try {
        io.deleteFile(candidate.location());
        deleted++;
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete orphan file {} of {}", candidate.location(), table.name(), e);
      }
    }
    return new Result(scanned, reachable.size(), deleted);
  }
}
