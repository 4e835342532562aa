package io.sqe.write.ddl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A schema change made from a table another writer has just changed: Iceberg refuses the commit
 * (its metadata is stale), and the statement reloads and applies the change once more.
 */
class DdlConcurrencyTest {
  @TempDir Path dir;
  private RootAllocator allocator;
  private InterferingCatalog iceberg;
  private LakehouseCatalog catalog;
  private DdlTesting sql;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toUri().toString());
    props.put("jdbc.schema-version", "V1");
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    iceberg = new InterferingCatalog();
    iceberg.setConf(new Configuration());
    iceberg.initialize("lake", props);
    catalog = new LakehouseCatalog("lake", iceberg, Duration.ofMinutes(5));
    iceberg.createNamespace(Namespace.of("s"));
    sql = new DdlTesting(catalog, allocator, "s");
    sql.run("create table t (a int)");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    allocator.close();
  }

  private Table table() {
    return iceberg.loadTableQuietly(TableIdentifier.of("s", "t"));
  }

  @Test
  void oneConcurrentChangeIsRetriedOver() {
    Prepared.Command add = sql.prepare("alter table t add column b varchar");
    iceberg.interferences.set(1);
    sql.runPrepared(add);
    assertThat(table().schema().findField("b")).isNotNull();
    assertThat(table().schema().findField("concurrent_1")).isNotNull();

    Prepared.Command rename = sql.prepare("alter table t rename column a to a2");
    iceberg.interferences.set(1);
    sql.runPrepared(rename);
    assertThat(table().schema().findField("a2")).isNotNull();
  }

  @Test
  void aSecondConflictIsReported() {
    Prepared.Command add = sql.prepare("alter table t add column b varchar");
    iceberg.interferences.set(2);
    assertThatThrownBy(() -> sql.runPrepared(add))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("ALTER TABLE ADD COLUMN on table 'lake.s.t' conflicted twice with concurrent changes");
          assertThat(e.position()).contains(new SqeException.SqlPosition(1, 13));
        });
    assertThat(table().schema().findField("b")).isNull();
    assertThat(table().schema().columns()).hasSize(3);
  }

  /** A JDBC catalog where another writer changes a table's schema right after each of the next loads. */
  private static final class InterferingCatalog extends JdbcCatalog {
    final AtomicInteger interferences = new AtomicInteger();
    private final AtomicInteger columns = new AtomicInteger();

    @Override
    public Table loadTable(TableIdentifier id) {
      Table table = super.loadTable(id);
      if (interferences.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        super.loadTable(id).updateSchema().addColumn("concurrent_" + columns.incrementAndGet(), Types.IntegerType.get()).commit();
      }
      return table;
    }

    Table loadTableQuietly(TableIdentifier id) {
      return super.loadTable(id);
    }
  }
}
