package io.sqe.engine.cache;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.iceberg.SnapshotFiles;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.session.Principal;
import com.github.benmanes.caffeine.cache.Cache;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The engine's caches, each off when its configured size is zero. */
public final class QueryCaches {
  /** The name the plan cache's statistics go by. */
  public static final String PLAN_CACHE = "plan";
  /** The name the result cache's statistics go by. */
  public static final String RESULT_CACHE = "result";

  private final CatalogVersions versions;
  private final PlanCache plans;
  private final ResultCache results;

  public QueryCaches(Catalogs catalogs, AccessControl access, EngineConfig config) {
    this.versions = new CatalogVersions(catalogs, access);
    this.plans = config.planCacheMaxEntries() > 0 ? new PlanCache(config.planCacheMaxEntries(), versions) : null;
    this.results = config.resultCacheMaxBytes() > 0 ? new ResultCache(config.resultCacheMaxBytes(), versions) : null;
  }

  /** Whether what {@code reads} recorded is still so for {@code principal}, as a cached plan is checked. */
  public boolean current(PlanReads reads, Principal principal) {
    return versions.current(reads, principal);
  }

  public Optional<PlanCache> plans() {
    return Optional.ofNullable(plans);
  }

  public Optional<ResultCache> results() {
    return Optional.ofNullable(results);
  }

  /** The caches that are on, by name, for their hit, miss and eviction statistics (the scan's too). */
  public Map<String, Cache<?, ?>> byName() {
    Map<String, Cache<?, ?>> caches = new LinkedHashMap<>();
    if (plans != null) {
      caches.put(PLAN_CACHE, plans.cache());
    }
    if (results != null) {
      caches.put(RESULT_CACHE, results.cache());
    }
    // Shared by every engine in the process: data files and snapshots never change.
    caches.put(SnapshotFiles.CACHE_NAME, SnapshotFiles.cache());
    caches.put(ParquetFooters.CACHE_NAME, ParquetFooters.cache());
    return caches;
  }
}
