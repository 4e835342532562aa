package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlTesting.describe;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DDL against a real embedded Iceberg catalog; results are read back through Iceberg's own API. */
class DdlExecutorTest {
  @TempDir Path dir;
  private RootAllocator allocator;
  private LakehouseCatalog catalog;
  private DdlTesting sql;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5));
    catalog.namespaces().createNamespace(Namespace.of("s"));
    sql = new DdlTesting(catalog, allocator, "s");
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    allocator.close();
  }

  private Table table(String schema, String name) {
    return catalog.iceberg().loadTable(TableIdentifier.of(schema, name));
  }

  @Test
  void createAndDropSchemas() {
    sql.run("CREATE SCHEMA sales WITH (owner = 'bi', \"retention.days\" = 30)");
    assertThat(catalog.namespaces().loadNamespaceMetadata(Namespace.of("sales")))
        .containsEntry("owner", "bi")
        .containsEntry("retention.days", "30");
    sql.fails("create schema sales", ErrorCode.ALREADY_EXISTS, "Schema 'lake.sales' already exists", 1, 15);
    sql.run("create schema if not exists sales");
    sql.run("create schema lake.other");
    assertThat(catalog.schemaExists("other")).isTrue();
    sql.fails("create schema nowhere.x", ErrorCode.NOT_FOUND, "Catalog 'nowhere' does not exist", 1, 15);
    sql.fails("create schema a.b.c", ErrorCode.INVALID_ARGUMENT, "Too many parts", 1, 15);
    sql.fails("create schema x with (k = 1 + 1)", ErrorCode.INVALID_ARGUMENT, "must be a literal", 1, 27);

    sql.fails("drop schema missing", ErrorCode.NOT_FOUND, "Schema 'lake.missing' does not exist", 1, 13);
    sql.run("drop schema if exists missing");
    sql.run("drop schema other restrict");
    assertThat(catalog.schemaExists("other")).isFalse();
  }

  @Test
  void dropSchemaRestrictRefusesAndCascadeDropsTablesAndViews() {
    sql.run("create schema sales");
    sql.run("create table sales.orders (id bigint, amount decimal(10, 2))");
    sql.run("create table sales.lines (id bigint)");
    sql.run("create view sales.big as select id from sales.orders where amount > 100");
    sql.fails("drop schema sales", ErrorCode.FAILED_PRECONDITION, "it has 2 tables and 1 view", 1, 13);
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("sales", "orders"))).isTrue();

    sql.run("drop schema sales cascade");
    assertThat(catalog.schemaExists("sales")).isFalse();
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("sales", "orders"))).isFalse();
    assertThat(catalog.views().orElseThrow().viewExists(TableIdentifier.of("sales", "big"))).isFalse();
  }

  @Test
  void createTableWithEveryClause() {
    sql.run(
        "CREATE TABLE events ("
            + " id BIGINT NOT NULL COMMENT 'event id',"
            + " name STRING,"
            + " ts TIMESTAMP(6),"
            + " tz TIMESTAMP WITH TIME ZONE,"
            + " price DECIMAL(12, 2),"
            + " tags ARRAY(VARCHAR),"
            + " attrs MAP(VARCHAR, INT),"
            + " point ROW(x DOUBLE NOT NULL, y DOUBLE, inner_row ROW(z BOOLEAN)),"
            + " nested ARRAY(ROW(k VARCHAR, v ARRAY(BIGINT))),"
            + " flag BOOLEAN, i INTEGER, si SMALLINT, f REAL, d DOUBLE, dt DATE, tm TIME, u UUID, b BINARY(16), vb VARBINARY"
            + ") COMMENT 'all events'"
            + " PARTITIONED BY (day(ts), bucket(16, id), truncate(4, name), flag, hour(tz))"
            + " SORTED BY (id DESC NULLS LAST, name, bucket(4, i) DESC)"
            + " WITH ('write.target-file-size-bytes' = 134217728, format = 'PARQUET', 'write.delete.mode' = 'merge-on-read',"
            + "       'owner.team' = 'bi')");

    Table table = table("s", "events");
    assertThat(describe(table.schema().asStruct())).isEqualTo(
        "struct<id: required long, name: optional string, ts: optional timestamp, tz: optional timestamptz,"
            + " price: optional decimal(12, 2), tags: optional list<optional string>, attrs: optional map<string, optional int>,"
            + " point: optional struct<x: required double, y: optional double, inner_row: optional struct<z: optional boolean>>,"
            + " nested: optional list<optional struct<k: optional string, v: optional list<optional long>>>,"
            + " flag: optional boolean, i: optional int, si: optional int, f: optional float, d: optional double,"
            + " dt: optional date, tm: optional time, u: optional uuid, b: optional fixed[16], vb: optional binary>");
    assertThat(table.schema().findField("id").doc()).isEqualTo("event id");
    assertThat(table.schema().findField("name").doc()).isNull();

    List<String> partitions = new ArrayList<>();
    for (PartitionField field : table.spec().fields()) {
      partitions.add(field.transform() + "(" + table.schema().findColumnName(field.sourceId()) + ")");
    }
    assertThat(partitions).containsExactly("day(ts)", "bucket[16](id)", "truncate[4](name)", "identity(flag)", "hour(tz)");

    List<String> sort = new ArrayList<>();
    for (SortField field : table.sortOrder().fields()) {
      sort.add(field.transform() + "(" + table.schema().findColumnName(field.sourceId()) + ") " + field.direction() + " " + field.nullOrder());
    }
    assertThat(sort).containsExactly(
        "identity(id) " + SortDirection.DESC + " " + NullOrder.NULLS_LAST,
        "identity(name) " + SortDirection.ASC + " " + NullOrder.NULLS_FIRST,
        "bucket[4](i) " + SortDirection.DESC + " " + NullOrder.NULLS_LAST);

    assertThat(table.properties())
        .containsEntry("write.target-file-size-bytes", "134217728")
        .containsEntry("write.format.default", "parquet")
        .containsEntry("write.delete.mode", "merge-on-read")
        .containsEntry("owner.team", "bi")
        .containsEntry("comment", "all events");
    assertThat(((BaseTable) table).operations().current().formatVersion()).isEqualTo(2);
  }

  @Test
  void createTableNamesAndExistence() {
    sql.run("create table lake.s.a (x int)");
    sql.run("create table s.b (x int)");
    sql.run("create schema t2");
    sql.useSchema("t2");
    sql.run("create table c (x int)");
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "a"))).isTrue();
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "b"))).isTrue();
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("t2", "c"))).isTrue();

    sql.fails("create table c (y bigint)", ErrorCode.ALREADY_EXISTS, "Table 'lake.t2.c' already exists", 1, 14);
    sql.run("create table if not exists c (y bigint)");
    assertThat(table("t2", "c").schema().findField("x")).isNotNull();
    sql.fails("create table nope.t (a int)", ErrorCode.NOT_FOUND, "Schema 'lake.nope' does not exist", 1, 14);
    sql.fails("create table other.nope.t (a int)", ErrorCode.NOT_FOUND, "Catalog 'other' does not exist", 1, 14);
    sql.fails("create table a.b.c.d (a int)", ErrorCode.INVALID_ARGUMENT, "Too many parts", 1, 14);

    sql.useSchema(null);
    sql.fails("create table t (a int)", ErrorCode.INVALID_ARGUMENT, "No schema is selected", 1, 14);
  }

  @Test
  void createTableErrorsNameTheirPlace() {
    sql.fails("create table t (a int, A bigint)", ErrorCode.INVALID_ARGUMENT, "Duplicate column name 'a'", 1, 24);
    sql.fails("create table t (a decimal(40, 2))", ErrorCode.INVALID_ARGUMENT, "DECIMAL precision 40 is too large", 1, 19);
    sql.fails("create table t (a timestamp(9))", ErrorCode.INVALID_ARGUMENT, "TIMESTAMP(9) is not supported", 1, 19);
    sql.fails("create table t (a foo)", ErrorCode.INVALID_ARGUMENT, "Unknown type 'foo'", 1, 19);
    sql.run("create table r (a row(b decimal(10, 2), c decimal(10, 2) not null, d int null, e row(f int) not null, g varchar(3),"
        + " h array(int) not null, i row(j int)))");
    assertThat(describe(table("s", "r").schema().findType("a"))).isEqualTo(
        "struct<b: optional decimal(10, 2), c: required decimal(10, 2), d: optional int, e: required struct<f: optional int>,"
            + " g: optional string, h: required list<optional int>, i: optional struct<j: optional int>>");
    sql.fails("create table t (a row(b int, B int))", ErrorCode.INVALID_ARGUMENT, "Duplicate field name 'b'", 1, 30);
    sql.fails("create table t (a int) partitioned by (day(a))", ErrorCode.INVALID_ARGUMENT, "Invalid partitioning day(a)", 1, 40);
    sql.fails("create table t (a int) partitioned by (b)", ErrorCode.INVALID_ARGUMENT, "Column 'b' of the partition does not exist", 1, 40);
    sql.fails("create table t (a int, b varchar) sorted by (a, day(b))", ErrorCode.INVALID_ARGUMENT, "Invalid sort order day(b)", 1, 49);
    sql.fails("create table t (a int, b date) partitioned by (day(b), month(b))", ErrorCode.INVALID_ARGUMENT, "Invalid partitioning month(b): Cannot add redundant partition", 1, 56);
    sql.fails("create table t (a int) sorted by (a, c)", ErrorCode.INVALID_ARGUMENT, "Column 'c' of the sort does not exist", 1, 38);
    sql.fails(
        "create table t (a int) with ('write.target-file-size-bytes' = 'big')",
        ErrorCode.INVALID_ARGUMENT, "Invalid value 'big' for table property 'write.target-file-size-bytes': expected a whole number", 1, 63);
    sql.fails("create table t (a int) with (format_version = 7)", ErrorCode.INVALID_ARGUMENT, "'format-version'", 1, 47);
    sql.fails("create table t (a int) with ('write.update.mode' = 'sometimes')", ErrorCode.INVALID_ARGUMENT, "copy-on-write, merge-on-read", 1, 52);
    sql.fails("create table t (a int) with ('commit.retry.num-retries' = -1)", ErrorCode.INVALID_ARGUMENT, "zero or more", 1, 59);
    sql.fails("create table t (a int) with ('write.metadata.metrics.default' = 'most')", ErrorCode.INVALID_ARGUMENT, "truncate(n)", 1, 65);
    sql.fails("create table t (a int) with (x = 1, x = 2)", ErrorCode.INVALID_ARGUMENT, "Property 'x' is set twice", 1, 37);
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "t"))).isFalse();
  }

  @Test
  void createOrReplaceTableKeepsHistory() {
    sql.run("create table t (a int, b varchar) with (format_version = 2, 'keep.me' = 'yes')");
    DdlTesting.append(table("s", "t"), List.of(row(table("s", "t").schema(), 1, "x")));
    long before = table("s", "t").currentSnapshot().snapshotId();

    sql.run("create or replace table t (c bigint not null, d date) partitioned by (month(d))");
    Table replaced = table("s", "t");
    assertThat(describe(replaced.schema().asStruct())).isEqualTo("struct<c: required long, d: optional date>");
    assertThat(replaced.currentSnapshot()).isNull();
    assertThat(replaced.snapshot(before)).isNotNull();
    assertThat(replaced.schemas()).hasSize(2);
    assertThat(replaced.spec().fields()).extracting(f -> f.transform().toString()).containsExactly("month");
    assertThat(replaced.properties()).containsEntry("keep.me", "yes");

    sql.run("create or replace table fresh (a int)");
    assertThat(table("s", "fresh").schema().columns()).hasSize(1);
  }

  @Test
  void dropAndTruncateTables() throws Exception {
    sql.run("create table t (a int, b varchar)");
    Table t = table("s", "t");
    DdlTesting.append(t, List.of(row(t.schema(), 1, "x"), row(t.schema(), 2, "y")));
    long withRows = table("s", "t").currentSnapshot().snapshotId();

    sql.run("truncate table t");
    Table truncated = table("s", "t");
    assertThat(truncated.currentSnapshot().summary()).containsEntry("total-records", "0");
    assertThat(truncated.currentSnapshot().parentId()).isEqualTo(withRows);
    sql.run("truncate table t");
    sql.fails("truncate table missing", ErrorCode.NOT_FOUND, "Table 'lake.s.missing' does not exist", 1, 16);

    DataFile file = table("s", "t").snapshot(withRows).addedDataFiles(table("s", "t").io()).iterator().next();
    sql.run("drop table t");
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "t"))).isFalse();
    assertThat(Files.exists(Path.of(java.net.URI.create(file.location())))).isTrue();
    sql.fails("drop table t", ErrorCode.NOT_FOUND, "Table 'lake.s.t' does not exist", 1, 12);
    sql.run("drop table if exists t");

    sql.run("create table p (a int)");
    Table p = table("s", "p");
    DdlTesting.append(p, List.of(row(p.schema(), 1)));
    DataFile purged = table("s", "p").currentSnapshot().addedDataFiles(p.io()).iterator().next();
    sql.run("drop table p purge");
    assertThat(Files.exists(Path.of(java.net.URI.create(purged.location())))).isFalse();

    sql.run("create view v as select 1 as x");
    sql.fails("drop table v", ErrorCode.NOT_FOUND, "does not exist; it is a view", 1, 12);
  }

  @Test
  void renameTables() {
    sql.run("create schema other");
    sql.run("create table t (a int)");
    sql.run("create table taken (a int)");
    sql.fails("alter table t rename to taken", ErrorCode.ALREADY_EXISTS, "Table 'lake.s.taken' already exists", 1, 25);
    sql.fails("alter table missing rename to x", ErrorCode.NOT_FOUND, "Table 'lake.s.missing' does not exist", 1, 13);
    sql.run("alter table if exists missing rename to x");
    sql.fails("alter table t rename to nope.x", ErrorCode.NOT_FOUND, "Schema 'lake.nope' does not exist", 1, 25);

    sql.useSchema("other");
    // A bare new name keeps the table in its own schema, not the session's.
    sql.run("alter table s.t rename to t2");
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "t2"))).isTrue();
    sql.run("alter table lake.s.t2 rename to other.t3");
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("other", "t3"))).isTrue();
    assertThat(catalog.iceberg().tableExists(TableIdentifier.of("s", "t2"))).isFalse();
  }

  @Test
  void addColumns() {
    sql.run("create table t (id bigint, point row(x double, y double), items array(row(sku varchar)), tags map(varchar, row(n int)))");
    sql.run("alter table t add column name varchar comment 'who'");
    sql.run("alter table t add column point.z double");
    sql.run("alter table t add items.qty int");
    sql.run("alter table t add tags.m bigint");
    sql.run("alter table t add column if not exists name bigint");
    sql.run("alter table t add column must int not null");
    Table table = table("s", "t");
    assertThat(describe(table.schema().asStruct())).isEqualTo(
        "struct<id: optional long, point: optional struct<x: optional double, y: optional double, z: optional double>,"
            + " items: optional list<optional struct<sku: optional string, qty: optional int>>,"
            + " tags: optional map<string, optional struct<n: optional int, m: optional long>>,"
            + " name: optional string, must: required int>");
    assertThat(table.schema().findField("name").doc()).isEqualTo("who");

    sql.fails("alter table t add column name int", ErrorCode.ALREADY_EXISTS, "Column 'name' already exists", 1, 26);
    sql.fails("alter table t add column nope.z int", ErrorCode.NOT_FOUND, "Column 'nope' does not exist", 1, 26);
    sql.fails("alter table t add column id.z int", ErrorCode.INVALID_ARGUMENT, "of type bigint: it is not a ROW", 1, 26);
    sql.fails("alter table t add column c decimal(50, 1)", ErrorCode.INVALID_ARGUMENT, "DECIMAL precision 50", 1, 28);
    sql.fails("alter table missing add column c int", ErrorCode.NOT_FOUND, "Table 'lake.s.missing' does not exist", 1, 13);
    sql.run("alter table if exists missing add column c int");

    DdlTesting.append(table, List.of(GenericRecord.create(table.schema()).copy("must", 1)));
    sql.fails("alter table t add column other int not null", ErrorCode.FAILED_PRECONDITION, "its rows would have no value for it", 1, 26);
    sql.fails("alter table t add column point.w int not null", ErrorCode.FAILED_PRECONDITION, "Cannot add NOT NULL column 'point.w'", 1, 26);
  }

  @Test
  void dropColumns() {
    sql.run("create table t (id bigint not null, ts timestamp, k int, point row(x double, y double), note varchar)"
        + " partitioned by (day(ts)) sorted by (k)");
    table("s", "t").updateSchema().setIdentifierFields("id").commit();

    sql.run("alter table t drop column note");
    sql.run("alter table t drop column point.y");
    sql.run("alter table t drop column if exists note");
    assertThat(describe(table("s", "t").schema().asStruct())).isEqualTo(
        "struct<id: required long, ts: optional timestamp, k: optional int, point: optional struct<x: optional double>>");

    sql.fails("alter table t drop column note", ErrorCode.NOT_FOUND, "Column 'note' does not exist in table 'lake.s.t'", 1, 27);
    sql.fails("alter table t drop column ts", ErrorCode.FAILED_PRECONDITION, "the table is partitioned by it (partition field 'ts_day')", 1, 27);
    sql.fails("alter table t drop column k", ErrorCode.FAILED_PRECONDITION, "it is in the table's sort order", 1, 27);
    sql.fails("alter table t drop column id", ErrorCode.FAILED_PRECONDITION, "identifier field", 1, 27);
    sql.run("create table single (a int)");
    sql.fails("alter table single drop column a", ErrorCode.FAILED_PRECONDITION, "the table's only column", 1, 32);
  }

  @Test
  void renameColumns() {
    sql.run("create table t (a int, b int, point row(x double, y double)) partitioned by (a)");
    sql.run("alter table t rename column a to a2");
    sql.run("alter table t rename column point.x to px");
    assertThat(describe(table("s", "t").schema().asStruct())).isEqualTo(
        "struct<a2: optional int, b: optional int, point: optional struct<px: optional double, y: optional double>>");
    assertThat(table("s", "t").spec().fields().get(0).sourceId()).isEqualTo(table("s", "t").schema().findField("a2").fieldId());

    sql.fails("alter table t rename column a2 to b", ErrorCode.ALREADY_EXISTS, "Column 'b' already exists", 1, 35);
    sql.fails("alter table t rename column point.px to y", ErrorCode.ALREADY_EXISTS, "Column 'point.y' already exists", 1, 41);
    sql.fails("alter table t rename column nope to c", ErrorCode.NOT_FOUND, "Column 'nope' does not exist", 1, 29);
  }

  @Test
  void widenColumnTypes() {
    sql.run("create table t (i int, f real, d decimal(10, 2), s varchar, l bigint, r row(n int))");
    sql.run("alter table t alter column i set data type bigint");
    sql.run("alter table t alter column f type double");
    sql.run("alter table t alter column d set data type decimal(12, 2)");
    sql.run("alter table t alter column r.n set data type bigint");
    sql.run("alter table t alter column s set data type varchar(20)");
    assertThat(describe(table("s", "t").schema().asStruct())).isEqualTo(
        "struct<i: optional long, f: optional double, d: optional decimal(12, 2), s: optional string, l: optional long,"
            + " r: optional struct<n: optional long>>");

    sql.fails("alter table t alter column s set data type int", ErrorCode.INVALID_ARGUMENT,
        "Cannot change column 's' from varchar to integer: Iceberg widens only", 1, 44);
    sql.fails("alter table t alter column l set data type int", ErrorCode.INVALID_ARGUMENT, "from bigint to integer", 1, 44);
    sql.fails("alter table t alter column d set data type decimal(14, 3)", ErrorCode.INVALID_ARGUMENT,
        "from decimal(12,2) to decimal(14,3)", 1, 44);
    sql.fails("alter table t alter column r set data type row(n bigint, m int)", ErrorCode.INVALID_ARGUMENT, "from row(n bigint) to row(", 1, 63);
    sql.fails("alter table t alter column nope set data type int", ErrorCode.NOT_FOUND, "Column 'nope' does not exist", 1, 28);
  }

  @Test
  void nullability() {
    sql.run("create table t (a int not null, b int, c int, p row(x int, y int))");
    sql.run("alter table t alter column a drop not null");
    sql.run("alter table t alter column b set not null");
    assertThat(table("s", "t").schema().findField("a").isOptional()).isTrue();
    assertThat(table("s", "t").schema().findField("b").isRequired()).isTrue();

    Table t = table("s", "t");
    Record withNulls = GenericRecord.create(t.schema()).copy("b", 1);
    Record point = GenericRecord.create(t.schema().findType("p").asStructType()).copy("x", 1);
    DdlTesting.append(t, List.of(withNulls, GenericRecord.create(t.schema()).copy(java.util.Map.of("b", 2, "c", 3, "a", 4, "p", point))));

    sql.fails("alter table t alter column a set not null", ErrorCode.FAILED_PRECONDITION,
        "Cannot set column 'a' NOT NULL: table 'lake.s.t' has rows where it is NULL", 1, 28);
    sql.fails("alter table t alter column p.y set not null", ErrorCode.FAILED_PRECONDITION, "has rows where it is NULL", 1, 28);
    // NULL only where its struct is NULL too: a required field of an optional struct allows that.
    sql.run("alter table t alter column p.x set not null");
    assertThat(table("s", "t").schema().findField("p.x").isRequired()).isTrue();
    sql.fails("alter table t alter column nope set not null", ErrorCode.NOT_FOUND, "Column 'nope' does not exist", 1, 28);

    // Column metrics decide without reading when the column never holds NULL.
    sql.run("create table m (k int)");
    Table m = table("s", "m");
    DdlTesting.append(m, List.of(GenericRecord.create(m.schema()).copy("k", 1)));
    sql.run("alter table m alter column k set not null");
    assertThat(table("s", "m").schema().findField("k").isRequired()).isTrue();
  }

  @Test
  void tablePropertiesAndComments() {
    sql.run("create table t (a int, b varchar)");
    sql.run("alter table t set properties 'commit.retry.num-retries' = 7, owner = 'me', format_version = 3");
    Table table = table("s", "t");
    assertThat(table.properties()).containsEntry("commit.retry.num-retries", "7").containsEntry("owner", "me");
    assertThat(((BaseTable) table).operations().current().formatVersion()).isEqualTo(3);
    sql.fails("alter table t set properties 'write.distribution-mode' = 'random'", ErrorCode.INVALID_ARGUMENT,
        "expected one of none, hash, range", 1, 58);
    sql.fails("alter table t set properties format_version = 2", ErrorCode.INVALID_ARGUMENT, "downgrade");

    sql.run("alter table t unset properties owner");
    assertThat(table("s", "t").properties()).doesNotContainKey("owner");
    sql.fails("alter table t unset properties owner", ErrorCode.NOT_FOUND, "Table 'lake.s.t' has no property 'owner'", 1, 32);
    sql.run("alter table t unset tblproperties if exists ('owner')");

    sql.run("comment on table t is 'the table'");
    assertThat(table("s", "t").properties()).containsEntry("comment", "the table");
    sql.run("comment on table t is null");
    assertThat(table("s", "t").properties()).doesNotContainKey("comment");
    sql.run("comment on column t.b is 'bee'");
    sql.run("comment on column lake.s.t.a is 'ay'");
    assertThat(table("s", "t").schema().findField("b").doc()).isEqualTo("bee");
    assertThat(table("s", "t").schema().findField("a").doc()).isEqualTo("ay");
    sql.run("comment on column t.b is null");
    assertThat(table("s", "t").schema().findField("b").doc()).isNull();
    sql.fails("comment on column t.nope is 'x'", ErrorCode.NOT_FOUND, "Column 'nope' does not exist", 1, 19);
    sql.fails("comment on table missing is 'x'", ErrorCode.NOT_FOUND, "Table 'lake.s.missing' does not exist", 1, 18);
  }

  @Test
  void existenceIsDecidedWhenTheStatementRuns() {
    Prepared.Command create = sql.prepare("create table t (a int)");
    Prepared.Command addIfNotExists = sql.prepare("create table if not exists t (a int)");
    catalog.iceberg().createTable(TableIdentifier.of("s", "t"), new Schema(Types.NestedField.optional(1, "x", Types.LongType.get())));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> sql.runPrepared(create))
        .hasMessageContaining("Table 'lake.s.t' already exists");
    sql.runPrepared(addIfNotExists);

    Prepared.Command addColumn = sql.prepare("alter table t add column if not exists y int");
    table("s", "t").updateSchema().addColumn("y", Types.LongType.get()).commit();
    sql.runPrepared(addColumn);
    assertThat(table("s", "t").schema().findField("y").type()).isEqualTo(Types.LongType.get());

    Prepared.Command drop = sql.prepare("drop table if exists t");
    catalog.iceberg().dropTable(TableIdentifier.of("s", "t"));
    sql.runPrepared(drop);
  }

  private static Record row(Schema schema, Object... values) {
    Record r = GenericRecord.create(schema);
    for (int i = 0; i < values.length; i++) {
      r.set(i, values[i]);
    }
    return r;
  }
}
