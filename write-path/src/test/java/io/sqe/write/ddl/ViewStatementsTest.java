package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlTesting.describe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import io.sqe.engine.sql.SqeParser;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Views stored in a real embedded Iceberg catalog, and queried through the engine like tables. */
class ViewStatementsTest {
  @TempDir Path dir;
  private RootAllocator allocator;
  private LakehouseCatalog catalog;
  private ViewCatalog views;
  private DdlTesting sql;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5));
    views = catalog.views().orElseThrow();
    catalog.namespaces().createNamespace(Namespace.of("s"));
    catalog.namespaces().createNamespace(Namespace.of("other"));
    sql = new DdlTesting(catalog, allocator, "s");
    sql.run("create table orders (id bigint not null, amount decimal(10, 2), customer varchar)");
    Table orders = catalog.iceberg().loadTable(TableIdentifier.of("s", "orders"));
    List<Record> rows = new ArrayList<>();
    for (int i = 1; i <= 6; i++) {
      Record r = GenericRecord.create(orders.schema());
      r.setField("id", (long) i);
      r.setField("amount", BigDecimal.valueOf(i * 5000L, 2));
      r.setField("customer", i % 2 == 0 ? "even" : "odd");
      rows.add(r);
    }
    DdlTesting.append(orders, rows);
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    allocator.close();
  }

  private View view(String name) {
    return views.loadView(TableIdentifier.of("s", name));
  }

  @Test
  void createViewStoresItsQueryColumnsAndDefaults() {
    sql.run("CREATE VIEW big_orders COMMENT 'over 100' AS SELECT id, amount FROM orders WHERE amount > 100");
    View view = view("big_orders");
    assertThat(describe(view.schema().asStruct())).isEqualTo("struct<id: required long, amount: optional decimal(10, 2)>");
    assertThat(view.currentVersion().defaultCatalog()).isEqualTo("lake");
    assertThat(view.currentVersion().defaultNamespace()).isEqualTo(Namespace.of("s"));
    assertThat(view.properties()).containsEntry("comment", "over 100");
    SQLViewRepresentation representation = (SQLViewRepresentation) view.currentVersion().representations().get(0);
    assertThat(representation.dialect()).isEqualTo("sqe");
    assertThat(representation.sql()).contains("\"orders\"").contains("100");
    assertThat(SqeParser.parse(representation.sql()).getKind().belongsTo(org.apache.calcite.sql.SqlKind.QUERY)).isTrue();

    sql.run("create view if not exists big_orders as select 1 as x");
    assertThat(view("big_orders").schema().columns()).hasSize(2);
    sql.run("create view renamed (order_id, twice) as select id, amount * 2 from orders");
    assertThat(describe(view("renamed").schema().asStruct())).isEqualTo("struct<order_id: required long, twice: optional decimal(20, 2)>");
  }

  @Test
  void viewsAreQueriedLikeTables() {
    sql.run("create view big_orders as select id, amount, customer from orders where amount > 100 order by id");
    assertThat(sql.query("select id, amount from big_orders order by id"))
        .containsExactly(List.of(3L, new BigDecimal("150.00")), List.of(4L, new BigDecimal("200.00")),
            List.of(5L, new BigDecimal("250.00")), List.of(6L, new BigDecimal("300.00")));
    assertThat(sql.query("select o.customer, count(*) from orders o join big_orders b on o.id = b.id group by o.customer order by 1"))
        .containsExactly(List.of("even", 2L), List.of("odd", 2L));
    assertThat(sql.query("select count(*) from orders where id not in (select id from big_orders where customer = 'even')"))
        .containsExactly(List.of(4L));

    sql.run("create view per_customer (customer, total) as select customer, sum(amount) from big_orders group by customer");
    assertThat(sql.query("select * from per_customer where customer = 'odd'"))
        .containsExactly(List.of("odd", new BigDecimal("400.00")));

    // The view reads orders from its own default schema, not the session's.
    sql.useSchema("other");
    assertThat(sql.query("select count(*) from s.big_orders")).containsExactly(List.of(4L));
    assertThat(sql.query("select count(*) from lake.s.per_customer")).containsExactly(List.of(2L));
  }

  @Test
  void replaceCommentAndDropViews() {
    sql.run("create view v comment 'first' as select id from orders");
    sql.fails("create view v as select 1 as x", ErrorCode.ALREADY_EXISTS, "View 'lake.s.v' already exists", 1, 13);
    sql.run("create or replace view v as select customer, count(*) as n from orders group by customer");
    assertThat(describe(view("v").schema().asStruct())).isEqualTo("struct<customer: optional string, n: required long>");
    assertThat(view("v").properties()).doesNotContainKey("comment");
    assertThat(view("v").currentVersion().versionId()).isEqualTo(2);
    assertThat(sql.query("select n from v where customer = 'odd'")).containsExactly(List.of(3L));

    sql.run("comment on view v is 'counts'");
    assertThat(view("v").properties()).containsEntry("comment", "counts");
    sql.run("comment on view v is null");
    assertThat(view("v").properties()).doesNotContainKey("comment");

    sql.run("drop view v");
    assertThat(views.viewExists(TableIdentifier.of("s", "v"))).isFalse();
    sql.fails("drop view v", ErrorCode.NOT_FOUND, "View 'lake.s.v' does not exist", 1, 11);
    sql.run("drop view if exists v");
    sql.fails("drop view orders", ErrorCode.NOT_FOUND, "View 'lake.s.orders' does not exist; it is a table", 1, 11);
    sql.fails("comment on view orders is 'x'", ErrorCode.NOT_FOUND, "it is a table", 1, 17);
  }

  @Test
  void replacingAViewWithTheSameDefinitionKeepsItsVersion() {
    String definition = "create or replace view v comment 'per customer' as select customer, count(*) as n from orders group by customer";
    sql.run(definition);
    String metadata = ((org.apache.iceberg.view.BaseView) view("v")).operations().current().metadataFileLocation();
    // dbt replaces every view on every run: the same definition commits nothing, so what was
    // built over the view keeps seeing the same version.
    sql.run(definition);
    assertThat(view("v").currentVersion().versionId()).isEqualTo(1);
    assertThat(((org.apache.iceberg.view.BaseView) view("v")).operations().current().metadataFileLocation()).isEqualTo(metadata);

    // Anything else makes a new version: another comment, another query.
    sql.run("create or replace view v as select customer, count(*) as n from orders group by customer");
    assertThat(view("v").properties()).doesNotContainKey("comment");
    assertThat(((org.apache.iceberg.view.BaseView) view("v")).operations().current().metadataFileLocation()).isNotEqualTo(metadata);
    sql.run("create or replace view v as select customer, count(*) as n from orders where id > 1 group by customer");
    assertThat(view("v").currentVersion().versionId()).isEqualTo(2);
  }

  @Test
  void createViewErrors() {
    sql.fails("create view orders as select 1 as x", ErrorCode.ALREADY_EXISTS, "A table named 'lake.s.orders' already exists", 1, 13);
    sql.fails("create view v as select id from missing", ErrorCode.NOT_FOUND, "Object 'missing' not found", 1, 33);
    sql.fails("create view v as select id, nope from orders", ErrorCode.INVALID_ARGUMENT, "Column 'nope' not found", 1, 29);
    sql.fails("create view v as select count(*) from orders", ErrorCode.INVALID_ARGUMENT, "Column 1 of the view's query has no name", 1, 18);
    sql.fails("create view v (a, b) as select id from orders", ErrorCode.INVALID_ARGUMENT,
        "The view lists 2 column names but its query returns 1 columns", 1, 15);
    sql.fails("create view v (a, A) as select id, amount from orders", ErrorCode.INVALID_ARGUMENT, "Duplicate column name 'a'", 1, 19);
    sql.fails("create view v as select id from orders where id = ?", ErrorCode.INVALID_ARGUMENT, "cannot have parameters", 1, 18);
    sql.fails("create view nope.v as select 1 as x", ErrorCode.NOT_FOUND, "Schema 'lake.nope' does not exist", 1, 13);
    sql.run("create view later as select id from orders");
    sql.fails("create table later (a int)", ErrorCode.ALREADY_EXISTS, "A view named 'lake.s.later' already exists", 1, 14);
  }

  @Test
  void viewsThatCannotBeReadSayWhy() {
    sql.run("create table t (a int, b int)");
    sql.run("create view star as select * from t");
    sql.run("create view reads_t as select a from t");
    sql.run("insert into t values (1, 2)");
    sql.run("alter table t add column c int");
    // The query returns more columns than the view has: the view's are taken by name.
    assertThat(sql.query("select * from star")).containsExactly(List.of(1, 2));
    sql.run("alter table t drop column b");
    sql.run("alter table t drop column c");
    assertThatThrownBy(() -> sql.query("select * from star"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
          assertThat(e.getMessage()).contains("View 'lake.s.star' is stale: its query now returns 1 columns but the view has 2");
        });
    sql.run("drop table t");
    assertThatThrownBy(() -> sql.query("select * from reads_t"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
          assertThat(e.getMessage()).contains("Cannot read view 'lake.s.reads_t': Object 't' not found");
        });

    sql.run("create view a as select id from orders");
    sql.run("create view b as select id from a");
    sql.run("create or replace view a as select id from b");
    assertThatThrownBy(() -> sql.query("select * from a"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).contains("refers to itself"));
  }

  @Test
  void viewsOfOtherEnginesAreReadThroughTheirSql() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    views.buildView(TableIdentifier.of("s", "from_trino"))
        .withSchema(schema)
        .withQuery("trino", "SELECT id FROM orders WHERE customer = 'odd'")
        .withDefaultNamespace(Namespace.of("s"))
        .withDefaultCatalog("trino_catalog")
        .create();
    assertThat(sql.query("select sum(id) from from_trino")).containsExactly(List.of(9L));

    views.buildView(TableIdentifier.of("s", "from_spark"))
        .withSchema(schema)
        .withQuery("spark", "SELECT `id` FROM orders")
        .withDefaultNamespace(Namespace.of("s"))
        .create();
    assertThatThrownBy(() -> sql.query("select * from from_spark"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("Cannot read view 'lake.s.from_spark': Syntax error").contains("of its spark SQL");
        });
    sql.fails("create or replace view from_trino as select 1 as id", ErrorCode.FAILED_PRECONDITION, "also has trino SQL", 1, 24);
  }

  @Test
  void viewColumnsFollowTheTableWhenItsColumnsBecomeNullable() {
    sql.run("create view ids as select id from orders");
    sql.run("alter table orders alter column id drop not null");
    Table orders = catalog.iceberg().loadTable(TableIdentifier.of("s", "orders"));
    DdlTesting.append(orders, List.of(GenericRecord.create(orders.schema())));
    assertThat(sql.query("select count(*), count(id) from ids")).containsExactly(List.of(7L, 6L));
  }

  @Test
  void aViewStoresTheColumnsItsTablesHaveWhenItRunsNotWhenItWasPrepared() {
    // Another engine adds a column after the statement was prepared (and after this server cached
    // the table): the view stores the table's columns as they are at execution.
    Prepared.Command wide = sql.prepare("create or replace view wide as select * from orders");
    catalog.iceberg().loadTable(TableIdentifier.of("s", "orders")).updateSchema().addColumn("note", Types.StringType.get()).commit();
    sql.runPrepared(wide);
    assertThat(describe(view("wide").schema().asStruct()))
        .isEqualTo("struct<id: required long, amount: optional decimal(10, 2), customer: optional string, note: optional string>");

    // A query that needs a column the server's cached table does not have yet is described from
    // the catalog itself.
    catalog.iceberg().loadTable(TableIdentifier.of("s", "orders")).updateSchema().addColumn("region", Types.StringType.get()).commit();
    sql.run("create view regions as select id, region from orders");
    assertThat(describe(view("regions").schema().asStruct())).isEqualTo("struct<id: required long, region: optional string>");
  }

  @Test
  void aColumnThatIsOnlyNullIsANullableVarchar() {
    sql.run("create view nulls as select null as x, 1 as y, null as z");
    assertThat(describe(view("nulls").schema().asStruct())).isEqualTo("struct<x: optional string, y: required int, z: optional string>");
    assertThat(sql.query("select x, y, z from nulls")).containsExactly(java.util.Arrays.asList(null, 1, null));
    assertThat(sql.query("select count(*) from nulls where x is null and z is not distinct from x")).containsExactly(List.of(1L));
  }

  @Test
  void commentOnAViewColumnMakesAVersionThatKeepsTheSql() {
    sql.run("create view v comment 'the view' as select id, customer from orders where id > 2");
    View before = view("v");
    sql.run("comment on column v.customer is 'who ordered'");
    View after = view("v");
    assertThat(after.schema().findField("customer").doc()).isEqualTo("who ordered");
    assertThat(after.schema().findField("id").doc()).isNull();
    assertThat(after.currentVersion().representations()).isEqualTo(before.currentVersion().representations());
    assertThat(after.currentVersion().defaultNamespace()).isEqualTo(before.currentVersion().defaultNamespace());
    assertThat(after.currentVersion().defaultCatalog()).isEqualTo(before.currentVersion().defaultCatalog());
    assertThat(after.properties()).containsEntry("comment", "the view");
    assertThat(sql.query("select count(*) from v")).containsExactly(List.of(4L));

    sql.run("comment on column lake.s.v.\"customer\" is null");
    assertThat(view("v").schema().findField("customer").doc()).isNull();
    sql.fails("comment on column v.nope is 'x'", ErrorCode.NOT_FOUND, "Column 'nope' does not exist in view 'lake.s.v'", 1, 19);
    // A table's columns are still commented as before.
    sql.run("comment on column orders.customer is 'buyer'");
    assertThat(catalog.iceberg().loadTable(TableIdentifier.of("s", "orders")).schema().findField("customer").doc()).isEqualTo("buyer");
  }

  @Test
  void alterViewRenameTo() {
    sql.run("create view v as select id from orders where id < 3");
    sql.run("alter view v rename to w");
    assertThat(views.viewExists(TableIdentifier.of("s", "v"))).isFalse();
    assertThat(sql.query("select count(*) from w")).containsExactly(List.of(2L));
    sql.run("alter view w rename to other.moved");
    assertThat(views.viewExists(TableIdentifier.of("other", "moved"))).isTrue();
    // It still reads orders from its default schema.
    assertThat(sql.query("select count(*) from other.moved")).containsExactly(List.of(2L));

    sql.fails("alter view v rename to x", ErrorCode.NOT_FOUND, "View 'lake.s.v' does not exist", 1, 12);
    sql.run("alter view if exists v rename to x");
    sql.run("create view taken as select 1 as x");
    sql.fails("alter view other.moved rename to s.taken", ErrorCode.ALREADY_EXISTS, "View 'lake.s.taken' already exists", 1, 34);
    sql.fails("alter view other.moved rename to s.orders", ErrorCode.ALREADY_EXISTS, "A table named 'lake.s.orders' already exists", 1, 34);
    sql.fails("alter view orders rename to x", ErrorCode.NOT_FOUND, "it is a table", 1, 12);
  }
}
