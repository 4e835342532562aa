package io.sqe.write.ddl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL racing other DDL on the same tables and schemas. Two engines, as two servers would, share
 * one embedded catalog, each with its own table cache: a statement prepared on one engine runs
 * after the other engine changed what it names. A schema change made from a table another writer
 * has just changed is refused by Iceberg (its metadata is stale); the statement reloads and
 * applies the change once more, and reports a second conflict.
 */
class DdlConcurrencyTest {
  @TempDir Path dir;
  private RootAllocator allocator;
  private InterferingCatalog iceberg;
  private LakehouseCatalog catalog;
  private LakehouseCatalog otherCatalog;
  private DdlTesting sql;
  /** The second engine, over the same catalog. */
  private DdlTesting other;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    Path warehouse = dir.resolve("warehouse");
    otherCatalog = IcebergCatalogFactory.embedded("lake", warehouse, Duration.ofMinutes(5));
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString());
    props.put("jdbc.schema-version", "V1");
    props.put("jdbc.strict-mode", "true");
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    iceberg = new InterferingCatalog();
    iceberg.setConf(new Configuration());
    iceberg.initialize("lake", props);
    catalog = new LakehouseCatalog("lake", iceberg, Duration.ofMinutes(5));
    iceberg.createNamespace(Namespace.of("s"));
    sql = new DdlTesting(catalog, allocator, "s");
    other = new DdlTesting(otherCatalog, allocator, "s");
    sql.run("create table t (a int)");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    otherCatalog.close();
    allocator.close();
  }

  private Table table(String name) {
    return iceberg.loadTableQuietly(TableIdentifier.of("s", name));
  }

  private boolean exists(String name) {
    return iceberg.tableExists(TableIdentifier.of("s", name));
  }

  private static void fails(DdlTesting engine, Prepared.Command command, ErrorCode code, String message) {
    assertThatThrownBy(() -> engine.runPrepared(command))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
          assertThat(e.getMessage()).contains(message);
        });
  }

  @Test
  void oneConcurrentChangeIsRetriedOver() {
    Prepared.Command add = sql.prepare("alter table t add column b varchar");
    iceberg.interferences.set(1);
    sql.runPrepared(add);
    assertThat(table("t").schema().findField("b")).isNotNull();
    assertThat(table("t").schema().findField("concurrent_1")).isNotNull();

    Prepared.Command rename = sql.prepare("alter table t rename column a to a2");
    iceberg.interferences.set(1);
    sql.runPrepared(rename);
    assertThat(table("t").schema().findField("a2")).isNotNull();
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
    assertThat(table("t").schema().findField("b")).isNull();
    assertThat(table("t").schema().columns()).hasSize(3);
  }

  @Test
  void columnChangesFromAnotherEngineBetweenPrepareAndRun() {
    Prepared.Command addB = sql.prepare("alter table t add column b int");
    other.run("alter table t add column b bigint");
    fails(sql, addB, ErrorCode.ALREADY_EXISTS, "Column 'b' already exists in table 'lake.s.t'");
    assertThat(table("t").schema().findField("b").type()).isEqualTo(Types.LongType.get());

    Prepared.Command dropA = sql.prepare("alter table t drop column a");
    other.run("alter table t rename column a to a2");
    fails(sql, dropA, ErrorCode.NOT_FOUND, "Column 'a' does not exist in table 'lake.s.t'");
    assertThat(table("t").schema().findField("a2")).isNotNull();

    Prepared.Command widen = sql.prepare("alter table t alter column a2 set data type bigint");
    other.run("alter table t alter column a2 set data type bigint");
    sql.runPrepared(widen);
    assertThat(table("t").schema().findField("a2").type()).isEqualTo(Types.LongType.get());

    // The first engine has the table cached; its own change starts from the catalog, and its next query sees both.
    assertThat(sql.query("select count(*) from t")).containsExactly(List.of(0L));
    other.run("alter table t add column z varchar");
    sql.run("alter table t add column y int");
    assertThat(table("t").schema().columns()).extracting(Types.NestedField::name).containsExactly("a2", "b", "z", "y");
    assertThat(sql.query("select count(z), count(y) from t")).containsExactly(List.of(0L, 0L));
  }

  @Test
  void setNotNullWhileAnotherWriterAddsNulls() {
    sql.run("create table n (k int, c int)");
    Prepared.Command setNotNull = sql.prepare("alter table n alter column c set not null");
    Table n = table("n");
    DdlTesting.append(n, List.of(GenericRecord.create(n.schema()).copy("k", 1)));
    fails(sql, setNotNull, ErrorCode.FAILED_PRECONDITION, "Cannot set column 'c' NOT NULL: table 'lake.s.n' has rows where it is NULL");
    assertThat(table("n").schema().findField("c").isOptional()).isTrue();
  }

  @Test
  void tablesCreatedRenamedAndDroppedByAnotherEngine() {
    Prepared.Command create = sql.prepare("create table u (a int)");
    Prepared.Command createIfNotExists = sql.prepare("create table if not exists u (b int)");
    other.run("create table u (x bigint)");
    fails(sql, create, ErrorCode.ALREADY_EXISTS, "Table 'lake.s.u' already exists");
    sql.runPrepared(createIfNotExists);
    assertThat(table("u").schema().columns()).extracting(Types.NestedField::name).containsExactly("x");

    Prepared.Command rename = sql.prepare("alter table t rename to t2");
    other.run("drop table t");
    fails(sql, rename, ErrorCode.NOT_FOUND, "Table 'lake.s.t' does not exist");
    assertThat(exists("t2")).isFalse();

    Prepared.Command drop = sql.prepare("drop table u");
    Prepared.Command dropIfExists = sql.prepare("drop table if exists u");
    other.run("alter table u rename to u3");
    fails(sql, drop, ErrorCode.NOT_FOUND, "Table 'lake.s.u' does not exist");
    sql.runPrepared(dropIfExists);
    assertThat(table("u3").schema().findField("x")).isNotNull();

    Prepared.Command renameOnto = sql.prepare("alter table u3 rename to v3");
    other.run("create table v3 (a int)");
    fails(sql, renameOnto, ErrorCode.ALREADY_EXISTS, "Table 'lake.s.v3' already exists");
    assertThat(exists("u3")).isTrue();
  }

  @Test
  void schemasChangedByAnotherEngine() {
    sql.run("create schema e");
    Prepared.Command dropEmpty = sql.prepare("drop schema e");
    other.run("create table e.x (a int)");
    fails(sql, dropEmpty, ErrorCode.FAILED_PRECONDITION, "Schema 'lake.e' is not empty: it has 1 table and 0 views");
    assertThat(iceberg.tableExists(TableIdentifier.of("e", "x"))).isTrue();

    sql.run("create schema g");
    Prepared.Command createIn = sql.prepare("create table g.x (a int)");
    Prepared.Command viewIn = sql.prepare("create view g.v as select 1 as x");
    other.run("drop schema g");
    fails(sql, createIn, ErrorCode.NOT_FOUND, "Schema 'lake.g' does not exist");
    fails(sql, viewIn, ErrorCode.NOT_FOUND, "Schema 'lake.g' does not exist");
    assertThat(iceberg.namespaceExists(Namespace.of("g"))).isFalse();

    Prepared.Command createSchema = sql.prepare("create schema h");
    other.run("create schema h");
    fails(sql, createSchema, ErrorCode.ALREADY_EXISTS, "Schema 'lake.h' already exists");
  }

  @Test
  void dropSchemaWhileTablesAreCreatedInIt() {
    sql.run("create schema e");
    sql.run("create table e.first (a int)");
    iceberg.lateTables.set(1);
    sql.run("drop schema e cascade");
    assertThat(iceberg.namespaceExists(Namespace.of("e"))).isFalse();

    sql.run("create schema e");
    sql.run("create table e.first (a int)");
    iceberg.lateTables.set(2);
    assertThatThrownBy(() -> sql.run("drop schema e cascade"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("Schema 'lake.e' is not empty: tables or views were created in it concurrently;"
              + " the ones it had before are dropped");
        });
    // The table created during the first pass was dropped in the second.
    assertThat(iceberg.listTables(Namespace.of("e"))).extracting(TableIdentifier::name).containsExactly("late_3");

    sql.run("drop table e.late_3");
    iceberg.lateTables.set(1);
    assertThatThrownBy(() -> sql.run("drop schema e restrict"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION));
    assertThat(iceberg.listTables(Namespace.of("e"))).extracting(TableIdentifier::name).containsExactly("late_4");
  }

  @Test
  void viewOverColumnsAnotherEngineDropped() {
    sql.run("alter table t add column b int");
    Prepared.Command view = sql.prepare("create view v as select a, b from t");
    other.run("alter table t drop column b");
    assertThatThrownBy(() -> sql.runPrepared(view))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).containsIgnoringCase("column 'b' not found");
        });
    assertThat(iceberg.viewExists(TableIdentifier.of("s", "v"))).isFalse();
  }

  /**
   * Sessions on both engines add columns to one table at the same moment. Each ALTER lands or
   * reports a conflict; the table ends with exactly the columns whose ALTER succeeded.
   */
  @Test
  void simultaneousAddColumnsFromTwoEngines() throws Exception {
    int sessions = 4;
    int rounds = 5;
    List<String> added = Collections.synchronizedList(new ArrayList<>());
    List<String> conflicts = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      for (int round = 0; round < rounds; round++) {
        CyclicBarrier start = new CyclicBarrier(sessions);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
          DdlTesting engine = i % 2 == 0 ? sql : other;
          String column = "c" + i + "_" + round;
          futures.add(pool.submit(() -> {
            start.await(30, TimeUnit.SECONDS);
            try {
              engine.run("alter table t add column " + column + " int");
              added.add(column);
            } catch (SqeException e) {
              assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
              assertThat(e.getMessage()).contains("conflicted twice with concurrent changes");
              conflicts.add(column);
            }
            return null;
          }));
        }
        for (Future<?> future : futures) {
          future.get(60, TimeUnit.SECONDS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(added.size() + conflicts.size()).isEqualTo(sessions * rounds);
    List<String> columns = table("t").schema().columns().stream().map(Types.NestedField::name).toList();
    assertThat(columns.get(0)).isEqualTo("a");
    assertThat(columns.subList(1, columns.size())).containsExactlyInAnyOrderElementsOf(added);
    assertThat(table("t").schema().highestFieldId()).isGreaterThanOrEqualTo(columns.size());
    assertThat(other.query("select count(*) from t")).containsExactly(List.of(0L));
  }

  /**
   * A JDBC catalog where another writer changes a table's schema right after each of the next
   * loads, and creates a table in a schema just before each of the next attempts to drop it.
   */
  private static final class InterferingCatalog extends JdbcCatalog {
    final AtomicInteger interferences = new AtomicInteger();
    final AtomicInteger lateTables = new AtomicInteger();
    private final AtomicInteger columns = new AtomicInteger();
    private final AtomicInteger created = new AtomicInteger();

    @Override
    public boolean dropNamespace(Namespace namespace) {
      if (lateTables.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        createTable(TableIdentifier.of(namespace, "late_" + created.incrementAndGet()),
            new org.apache.iceberg.Schema(Types.NestedField.optional(1, "a", Types.IntegerType.get())));
      }
      return super.dropNamespace(namespace);
    }

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
