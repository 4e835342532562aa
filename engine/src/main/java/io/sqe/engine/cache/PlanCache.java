package io.sqe.engine.cache;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.ConcurrentStatsCounter;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.util.Optional;

/**
 * Compiled plans of queries by their SQL text, the session facts planning used (catalog,
 * schema, time zone, principal) and the planner options they were made with. A plan is handed out again only while the tables and views it
 * read keep their identity, schema and version and the policy gives the principal the same access,
 * and, for a plan that looked for materialized views to rewrite onto, while this process made no
 * new one; otherwise the statement is planned again. A plan never holds a snapshot: each run reads the
 * tables' current ones.
 */
public final class PlanCache {
  private record Key(String sql, PlanReads.PlanContext context, PlannerOptions options) {}

  /**
   * Text that counts as one entry: a longer statement (with its plan's description) counts as
   * one more per this many characters, so that a few huge statements cannot hold the heap.
   */
  private static final int CHARACTERS_PER_ENTRY = 16_384;

  private final StatsCounter stats = new ConcurrentStatsCounter();
  private final Cache<Key, PlannedQuery> plans;
  private final CatalogVersions versions;

  PlanCache(int maxEntries, CatalogVersions versions) {
    this.versions = requireNonNull(versions, "versions is null");
    this.plans = Caffeine.newBuilder()
        .maximumWeight(maxEntries)
        .<Key, PlannedQuery>weigher((key, plan) ->
            (int) Math.min(Integer.MAX_VALUE, 1 + ((long) key.sql().length() + plan.explain().length()) / CHARACTERS_PER_ENTRY))
        .recordStats(() -> stats)
        .build();
  }

  /** The cached plan of {@code sql} for {@code session} under {@code options}, if it is still valid. */
  public Optional<PlannedQuery> find(Session session, PlannerOptions options, String sql) {
    long start = System.nanoTime();
    Key key = new Key(sql, PlanReads.PlanContext.of(session), options);
    // Looked up quietly: a stale plan is no hit, and a statement that is not a query (known only
    // once it is parsed) is no miss. Misses are counted when a query is planned instead.
    PlannedQuery plan = plans.policy().getIfPresentQuietly(key);
    if (plan == null) {
      return Optional.empty();
    }
    if (plan.reads().soughtMaterializedViewsBefore(MaterializedViews.definitions()) || !versions.current(plan.reads(), session.principal())) {
      plans.asMap().remove(key, plan);
      return Optional.empty();
    }
    stats.recordHits(1);
    return Optional.of(plan.reused(System.nanoTime() - start));
  }

  /**
   * Keeps {@code plan}, made for {@code sql} in {@code session} under {@code options} after {@link
   * #find} found none, when it may be reused; counts the miss.
   */
  public void offer(Session session, PlannerOptions options, String sql, PlannedQuery plan) {
    stats.recordMisses(1);
    if (plan.reads().planCacheable()) {
      plans.put(new Key(sql, PlanReads.PlanContext.of(session), options), plan);
    }
  }

  /** The Caffeine cache, for its statistics. */
  public Cache<?, ?> cache() {
    return plans;
  }
}
