package io.sqe.engine.cache;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sqe.engine.exec.ArrowBatches;
import io.sqe.engine.exec.ResultSink;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Finished query results as Arrow IPC batches on the heap, bounded by their total size, keyed by
 * everything a result depends on: the statement and the versions its plan read (context, schemas,
 * views, policy), the user and time zone it ran with, its parameter values, and the snapshot of
 * every table it scanned, looked up afresh for each run. Any commit to a scanned table (through
 * this server, or by another writer once the catalog's table cache shows it) changes the key, so
 * the next run misses. Results of plans that read the clock, random numbers, system or metadata
 * tables are never kept.
 */
public final class ResultCache {
  /** What one result depends on; see the class comment. */
  public record Key(
      String sql,
      PlanReads.Versions versions,
      Principal principal,
      ZoneId timeZone,
      List<Object> parameters,
      List<CatalogVersions.SnapshotRead> snapshots) {}

  private record Entry(List<byte[]> batches, long bytes) {}

  private final Cache<Key, Entry> results;
  private final long maxEntryBytes;
  private final CatalogVersions versions;

  ResultCache(long maxBytes, CatalogVersions versions) {
    this.versions = requireNonNull(versions, "versions is null");
    // One result may fill at most a quarter of the cache, so one big answer cannot empty it.
    this.maxEntryBytes = Math.max(1, maxBytes / 4);
    this.results =
        Caffeine.newBuilder()
            .maximumWeight(maxBytes)
            // The statement's text too (UTF-16 at most): a tiny result of a huge statement is no small entry.
            .<Key, Entry>weigher((key, entry) -> (int) Math.min(Integer.MAX_VALUE, entry.bytes() + 2L * key.sql().length()))
            .recordStats()
            .build();
  }

  /**
   * The key of a run of {@code plan} in {@code session} with {@code parameters} (internal
   * values); empty when its result may not be cached or a table it scans cannot be loaded.
   */
  public Optional<Key> key(Session session, PlannedQuery plan, List<Object> parameters) {
    if (!plan.reads().resultCacheable()) {
      return Optional.empty();
    }
    return versions.snapshots(plan.reads()).map(snapshots -> new Key(
        plan.sql(),
        plan.reads().versions(),
        session.principal(),
        session.timeZone(),
        Collections.unmodifiableList(new ArrayList<>(parameters)),
        snapshots));
  }

  /** The record batches of the result {@code key} names, if it is cached. */
  public Optional<List<byte[]>> find(Key key) {
    Entry entry = results.getIfPresent(key);
    return entry == null ? Optional.empty() : Optional.of(entry.batches());
  }

  /** A sink that keeps the result of a run under {@code key} once it completes, unless it is too big. */
  public ResultSink capture(Key key) {
    return new ResultSink() {
      private List<byte[]> batches = new ArrayList<>();
      private long bytes;

      @Override
      public void batch(VectorSchemaRoot root) {
        if (batches == null) {
          return;
        }
        byte[] batch = ArrowBatches.serialize(root);
        bytes += batch.length;
        if (bytes > maxEntryBytes) {
          batches = null;
          return;
        }
        batches.add(batch);
      }

      @Override
      public void completed() {
        if (batches != null) {
          results.put(key, new Entry(List.copyOf(batches), bytes));
          batches = null;
        }
      }
    };
  }

  /** The Caffeine cache, for its statistics. */
  public Cache<?, ?> cache() {
    return results;
  }
}
