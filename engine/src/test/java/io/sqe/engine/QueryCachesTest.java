package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.cache.QueryCaches;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.iceberg.SnapshotFiles;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.Privilege;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's plan and result caches: what they count, what they never keep (metadata tables,
 * results over the size limit), and that a changed access policy is never served a plan or result
 * made under the old one.
 */
class QueryCachesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "region", Types.StringType.get()),
          Types.NestedField.required(3, "text", Types.StringType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private Session session;
  private volatile String filter;

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("region", id % 2 == 0 ? "EU" : "US");
      r.setField("text", "x".repeat(200));
      rows.add(r);
    }
    TestTables.appendFile(table, rows);
    session = EmbeddedLake.session("test");
  }

  private QueryEngine engine(EngineConfig config, AccessControl access) {
    return new QueryEngine(lake.catalogs(), lake.allocator(), config, List.of(), null, List.of(), access);
  }

  /** Runs {@code sql} once: its rows as lists of values, and its figures. */
  private record Result(List<List<Object>> rows, QueryStats stats) {}

  private Result run(QueryEngine engine, String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution execution = engine.execute(session, prepared, List.of(), "q")) {
      while (execution.next()) {
        VectorSchemaRoot root = execution.root();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(i);
            row.add(value == null ? null : value.toString());
          }
          rows.add(row);
        }
      }
      return new Result(rows, execution.context().stats());
    }
  }

  @Test
  void cachesCountHitsAndMissesForMetrics() {
    QueryEngine engine = engine(EngineConfig.DEFAULT, AccessControl.ALLOW_ALL);
    assertThat(engine.caches())
        .containsOnlyKeys(QueryCaches.PLAN_CACHE, QueryCaches.RESULT_CACHE, SnapshotFiles.CACHE_NAME, ParquetFooters.CACHE_NAME);
    String sql = "select count(*), min(id) from t where region = 'EU'";
    Result first = run(engine, sql);
    Result second = run(engine, sql);
    assertThat(second.rows()).isEqualTo(first.rows()).containsExactly(List.of("50", "0"));
    assertThat(second.stats().planCached()).isTrue();
    assertThat(second.stats().resultCached()).isTrue();
    assertThat(engine.caches().get(QueryCaches.PLAN_CACHE).stats().hitCount()).isEqualTo(1);
    assertThat(engine.caches().get(QueryCaches.PLAN_CACHE).stats().missCount()).isEqualTo(1);
    assertThat(engine.caches().get(QueryCaches.RESULT_CACHE).stats().hitCount()).isEqualTo(1);
    assertThat(engine.caches().get(QueryCaches.RESULT_CACHE).stats().missCount()).isEqualTo(1);
  }

  @Test
  void longStatementsCountForTheirLengthSoThatFewFillTheCaches() {
    QueryEngine engine = engine(EngineConfig.DEFAULT.withPlanCacheMaxEntries(10).withResultCacheMaxBytes(4L << 20), AccessControl.ALLOW_ALL);
    var plans = engine.caches().get(QueryCaches.PLAN_CACHE);
    var results = engine.caches().get(QueryCaches.RESULT_CACHE);
    for (int i = 0; i < 5; i++) {
      // 100,000 characters: some seven entries' worth of text each.
      run(engine, "select count(*) + " + i + " from s.t /* " + "x".repeat(100_000) + " */");
    }
    plans.cleanUp();
    assertThat(plans.estimatedSize()).isEqualTo(1);
    for (int i = 0; i < 30; i++) {
      // 1,000,000 characters: a quarter of the result cache's 4 MB as text, however small the result.
      run(engine, "select count(*) + " + i + " from s.t /* " + "y".repeat(1_000_000) + " */");
    }
    results.cleanUp();
    assertThat(results.estimatedSize()).isLessThanOrEqualTo(2);
    assertThat(run(engine, "select count(*) from s.t").rows()).containsExactly(List.of("100"));
  }

  @Test
  void sizeZeroTurnsTheCachesOff() {
    QueryEngine engine = engine(EngineConfig.DEFAULT.withPlanCacheMaxEntries(0).withResultCacheMaxBytes(0), AccessControl.ALLOW_ALL);
    // The scan's caches are the process's, and stay.
    assertThat(engine.caches()).containsOnlyKeys(SnapshotFiles.CACHE_NAME, ParquetFooters.CACHE_NAME);
    String sql = "select count(*) from t";
    run(engine, sql);
    Result second = run(engine, sql);
    assertThat(second.stats().planCached()).isFalse();
    assertThat(second.stats().resultCached()).isFalse();
    assertThat(second.rows()).containsExactly(List.of("100"));
  }

  @Test
  void scanPlanningAndFootersAreCachedPerSnapshotAndNeverStaleAfterACommit() {
    QueryEngine engine = engine(EngineConfig.DEFAULT.withResultCacheMaxBytes(0), AccessControl.ALLOW_ALL);
    var planning = engine.caches().get(SnapshotFiles.CACHE_NAME);
    var footers = engine.caches().get(ParquetFooters.CACHE_NAME);
    String sql = "select count(*), sum(id) from t where id >= 40";
    assertThat(run(engine, sql).rows()).containsExactly(List.of("60", "4170"));
    long planningHits = planning.stats().hitCount();
    long footerHits = footers.stats().hitCount();
    Result again = run(engine, sql);
    assertThat(again.rows()).containsExactly(List.of("60", "4170"));
    assertThat(planning.stats().hitCount()).isEqualTo(planningHits + 1);
    assertThat(footers.stats().hitCount()).isGreaterThan(footerHits);

    Table table = lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "t"));
    List<Record> more = new ArrayList<>();
    for (long id = 100; id < 150; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("region", "EU");
      r.setField("text", "y");
      more.add(r);
    }
    TestTables.appendFile(table, more);
    // As SQE's own commits do (the write path's tests cover those through the server).
    lake.catalog().invalidate(TableIdentifier.of("s", "t"));
    long planningMisses = planning.stats().missCount();
    assertThat(run(engine, sql).rows()).containsExactly(List.of("110", "10395"));
    assertThat(planning.stats().missCount()).isEqualTo(planningMisses + 1);
    // Planned from the cached files: the first file's bounds (ids 0 to 99) cannot match.
    Result newOnly = run(engine, "select count(*), sum(id) from t where id >= 120");
    assertThat(newOnly.rows()).containsExactly(List.of("30", "4035"));
    assertThat(newOnly.stats().filesPlanned()).isEqualTo(1);
  }

  @Test
  void metadataTablesAreNeverCached() {
    QueryEngine engine = engine(EngineConfig.DEFAULT, AccessControl.ALLOW_ALL);
    String sql = "select count(*) from \"t$snapshots\"";
    assertThat(run(engine, sql).rows()).containsExactly(List.of("1"));
    Result second = run(engine, sql);
    assertThat(second.stats().planCached()).isFalse();
    assertThat(second.stats().resultCached()).isFalse();
  }

  @Test
  void aResultOverAQuarterOfTheCacheIsNotKept() {
    // 100 rows of 200 characters: about 20 KB, over a quarter of 32 KiB.
    QueryEngine engine = engine(EngineConfig.DEFAULT.withResultCacheMaxBytes(32 * 1024), AccessControl.ALLOW_ALL);
    run(engine, "select id, text from t");
    assertThat(run(engine, "select id, text from t").stats().resultCached()).isFalse();
    run(engine, "select id from t where id < 3");
    assertThat(run(engine, "select id from t where id < 3").stats().resultCached()).isTrue();
  }

  @Test
  void aChangedPolicyGetsANewPlanAndResult() {
    AccessControl access =
        new AccessControl() {
          @Override
          public TableAccess tableAccess(Principal principal, String catalog, String schema, String table) {
            return new TableAccess(EnumSet.of(Privilege.SELECT), Set.of(), Map.of(), filter);
          }

          @Override
          public boolean ownsSchema(Principal principal, String catalog, String schema) {
            return false;
          }

          @Override
          public boolean canSeeSchema(Principal principal, String catalog, String schema) {
            return true;
          }
        };
    QueryEngine engine = engine(EngineConfig.DEFAULT, access);
    String sql = "select count(*) from t";
    filter = null;
    assertThat(run(engine, sql).rows()).containsExactly(List.of("100"));
    assertThat(run(engine, sql).stats().resultCached()).isTrue();
    filter = "region = 'EU'";
    Result filtered = run(engine, sql);
    assertThat(filtered.stats().planCached()).isFalse();
    assertThat(filtered.stats().resultCached()).isFalse();
    assertThat(filtered.rows()).containsExactly(List.of("50"));
  }
}
