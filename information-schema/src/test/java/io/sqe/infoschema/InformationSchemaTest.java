package io.sqe.infoschema;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.Prepared;
import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** information_schema through the engine, over a real embedded Iceberg catalog. */
class InformationSchemaTest {
  /** Every scalar Iceberg type, a required column, a documented column. */
  static final Schema SCALARS =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "flag", Types.BooleanType.get()),
          optional(3, "i", Types.IntegerType.get()),
          optional(4, "f", Types.FloatType.get()),
          optional(5, "d", Types.DoubleType.get()),
          optional(6, "amount", Types.DecimalType.of(12, 2), "Order total in EUR"),
          optional(7, "day", Types.DateType.get()),
          optional(8, "t", Types.TimeType.get()),
          optional(9, "ts", Types.TimestampType.withoutZone()),
          optional(10, "tstz", Types.TimestampType.withZone()),
          optional(11, "s", Types.StringType.get()),
          optional(12, "u", Types.UUIDType.get()),
          optional(13, "fx", Types.FixedType.ofLength(4)),
          optional(14, "b", Types.BinaryType.get()));

  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir, ObjectVisibility.ALL);
  }

  @AfterEach
  void tearDown() {
    lake.close();
  }

  @Test
  void schemataListsTheCatalogsSchemasWhateverTheSpellingOfTheName() {
    lake.update("CREATE SCHEMA sales");
    lake.update("CREATE SCHEMA sales_2024");
    List<List<Object>> all = List.of(
        Arrays.asList("lake", "s", null), Arrays.asList("lake", "sales", null), Arrays.asList("lake", "sales_2024", null));
    assertThat(lake.query("SELECT * FROM information_schema.schemata")).isEqualTo(all);
    assertThat(lake.query("SELECT * FROM lake.information_schema.schemata")).isEqualTo(all);
    assertThat(lake.query("SELECT * FROM INFORMATION_SCHEMA.SCHEMATA")).isEqualTo(all);
    assertThat(lake.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'sales'"))
        .containsExactly(List.of("sales"));
    assertThat(lake.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('s', 'nope', 'sales_2024')"))
        .containsExactly(List.of("s"), List.of("sales_2024"));
    assertThat(lake.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'sal%'"))
        .containsExactly(List.of("sales"), List.of("sales_2024"));
    assertThat(lake.query("SELECT schema_name FROM information_schema.schemata WHERE catalog_name = 'elsewhere'")).isEmpty();
  }

  @Test
  void tablesShowTypeCommentTimesAndRowCount() {
    lake.update("CREATE TABLE t (id BIGINT NOT NULL, name VARCHAR) COMMENT 'the t'");
    lake.update("CREATE TABLE empty_one (x INT)");
    lake.update("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    lake.update("CREATE VIEW v COMMENT 'first two' AS SELECT id FROM t WHERE id < 3");

    List<List<Object>> rows = lake.query(
        "SELECT table_catalog, table_schema, table_name, table_type, comment, row_count FROM information_schema.tables");
    assertThat(rows)
        .containsExactly(
            Arrays.asList("lake", "s", "empty_one", "BASE TABLE", null, 0L),
            Arrays.asList("lake", "s", "t", "BASE TABLE", "the t", 3L),
            Arrays.asList("lake", "s", "v", "VIEW", "first two", null));

    Table t = lake.catalog.iceberg().loadTable(TableIdentifier.of("s", "t"));
    List<Object> times = lake.query("SELECT created, last_altered FROM information_schema.tables WHERE table_name = 't'").get(0);
    assertThat(times.get(1)).isEqualTo(t.currentSnapshot().timestampMillis() * 1000);
    assertThat((Long) times.get(0)).isLessThan((Long) times.get(1)).isPositive();
    assertThat(lake.query("SELECT table_name FROM information_schema.tables WHERE table_type = 'VIEW'")).containsExactly(List.of("v"));
  }

  @Test
  void columnsDescribeEveryScalarTypeWithTrinosNames() {
    lake.catalog.iceberg().createTable(TableIdentifier.of("s", "scalars"), SCALARS);
    List<List<Object>> rows = lake.query(
        "SELECT column_name, ordinal_position, is_nullable, data_type, numeric_precision, numeric_scale, datetime_precision,"
            + " character_maximum_length, column_default, comment"
            + " FROM information_schema.columns WHERE table_name = 'scalars' ORDER BY ordinal_position");
    assertThat(rows)
        .containsExactly(
            Arrays.asList("id", 1, "NO", "bigint", 19, 0, null, null, null, null),
            Arrays.asList("flag", 2, "YES", "boolean", null, null, null, null, null, null),
            Arrays.asList("i", 3, "YES", "integer", 10, 0, null, null, null, null),
            Arrays.asList("f", 4, "YES", "real", 7, null, null, null, null, null),
            Arrays.asList("d", 5, "YES", "double", 15, null, null, null, null, null),
            Arrays.asList("amount", 6, "YES", "decimal(12,2)", 12, 2, null, null, null, "Order total in EUR"),
            Arrays.asList("day", 7, "YES", "date", null, null, 0, null, null, null),
            Arrays.asList("t", 8, "YES", "time(6)", null, null, 6, null, null, null),
            Arrays.asList("ts", 9, "YES", "timestamp(6)", null, null, 6, null, null, null),
            Arrays.asList("tstz", 10, "YES", "timestamp(6) with time zone", null, null, 6, null, null, null),
            Arrays.asList("s", 11, "YES", "varchar", null, null, null, null, null, null),
            Arrays.asList("u", 12, "YES", "uuid", null, null, null, null, null, null),
            Arrays.asList("fx", 13, "YES", "binary(4)", null, null, null, null, null, null),
            Arrays.asList("b", 14, "YES", "varbinary", null, null, null, null, null, null));
  }

  @Test
  void dataTypeIsANameCastAcceptsForTheColumnsOwnType() {
    List<Types.NestedField> fields = new ArrayList<>(SCALARS.columns());
    fields.add(optional(15, "l", Types.ListType.ofOptional(16, Types.LongType.get())));
    fields.add(optional(17, "m", Types.MapType.ofOptional(18, 19, Types.StringType.get(), Types.DecimalType.of(9, 3))));
    fields.add(optional(20, "st", Types.StructType.of(optional(21, "x", Types.IntegerType.get()), optional(22, "y", Types.StringType.get()))));
    lake.catalog.iceberg().createTable(TableIdentifier.of("s", "scalars"), new Schema(fields));
    for (List<Object> row : lake.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'scalars'")) {
      String column = (String) row.get(0);
      Prepared plain = lake.engine.prepare(lake.session, "SELECT \"" + column + "\" FROM scalars");
      Prepared cast = lake.engine.prepare(lake.session, "SELECT CAST(\"" + column + "\" AS " + row.get(1) + ") AS \"" + column + "\" FROM scalars");
      assertThat(cast.resultSchema().getFields().get(0).getType()).as(column).isEqualTo(plain.resultSchema().getFields().get(0).getType());
    }
    // Nested types are spelled as Trino spells them, too.
    assertThat(lake.query("SELECT data_type FROM information_schema.columns WHERE table_name = 'scalars' AND ordinal_position > 14"
            + " ORDER BY ordinal_position"))
        .containsExactly(List.of("array(bigint)"), List.of("map(varchar, decimal(9,3))"), List.of("row(x integer, y varchar)"));
  }

  @Test
  void viewsAppearWithTheirDefinitionAndColumns() {
    lake.update("CREATE TABLE t (id BIGINT NOT NULL, amount DECIMAL(10, 2))");
    lake.update("CREATE VIEW big AS SELECT id, amount FROM t WHERE amount > 100");
    List<List<Object>> views = lake.query("SELECT * FROM information_schema.views");
    assertThat(views).hasSize(1);
    assertThat(views.get(0).subList(0, 3)).containsExactly("lake", "s", "big");
    // The definition is the view's stored SQL, which SQE writes fully quoted; it reads back as the same view.
    assertThat(views.get(0).get(3)).isEqualTo("SELECT \"id\", \"amount\"\nFROM \"t\"\nWHERE \"amount\" > 100");
    assertThat(lake.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'big'"))
        .containsExactly(List.of("id", "bigint"), List.of("amount", "decimal(10,2)"));
    assertThat(lake.query("SELECT count(*) FROM information_schema.views WHERE table_name = 't'")).containsExactly(List.of(0L));
  }

  @Test
  void identifierFieldsArePrimaryKeys() {
    Schema customers = new Schema(
        List.of(
            required(1, "customer_id", Types.LongType.get()),
            optional(2, "name", Types.StringType.get()),
            required(3, "tenant", Types.StringType.get()),
            required(4, "ext", Types.StructType.of(required(5, "code", Types.IntegerType.get())))),
        Set.of(5, 3, 1));
    lake.catalog.iceberg().createTable(TableIdentifier.of("s", "customers"), customers);
    lake.update("CREATE TABLE no_key (x INT)");
    assertThat(lake.query("SELECT * FROM information_schema.table_constraints"))
        .containsExactly(List.of("lake", "s", "customers_pkey", "lake", "s", "customers", "PRIMARY KEY", "NO"));
    assertThat(lake.query("SELECT constraint_name, table_name, column_name, ordinal_position FROM information_schema.key_column_usage"))
        .containsExactly(
            List.of("customers_pkey", "customers", "customer_id", 1),
            List.of("customers_pkey", "customers", "tenant", 2),
            List.of("customers_pkey", "customers", "ext.code", 3));
  }

  @Test
  void changesAreVisibleAtOnce() {
    lake.update("CREATE TABLE t (id BIGINT)");
    String columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 's' AND table_name = 't'";
    assertThat(lake.query(columns)).containsExactly(List.of("id"));
    lake.update("ALTER TABLE t ADD COLUMN note VARCHAR");
    assertThat(lake.query(columns)).containsExactly(List.of("id"), List.of("note"));
    lake.update("COMMENT ON TABLE t IS 'noted'");
    assertThat(lake.query("SELECT comment FROM information_schema.tables WHERE table_name = 't'")).containsExactly(List.of("noted"));
    lake.update("ALTER TABLE t RENAME TO u");
    assertThat(lake.query(columns)).isEmpty();
    assertThat(lake.query("SELECT table_name FROM information_schema.tables")).containsExactly(List.of("u"));
    lake.update("DROP TABLE u");
    assertThat(lake.query("SELECT table_name FROM information_schema.tables")).isEmpty();
    assertThat(lake.query("SELECT count(*) FROM information_schema.columns WHERE table_name = 'u'")).containsExactly(List.of(0L));
  }

  @Test
  void conditionsOnNamesReachTheScan() {
    String plan = lake.explain(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 's' AND table_name IN ('a', 'b')");
    assertThat(plan).contains("SqeRowSource(table=[[lake, information_schema, columns]], filters=");
    assertThat(plan).contains("=($1, _UTF-8's')").contains("SEARCH($2");
  }

  @Test
  void queriesRunOnTheColumnarOperatorsAsOnTheRowRuntime() {
    lake.update("CREATE TABLE s.a (id int, name varchar, price decimal(10, 2))");
    lake.update("CREATE TABLE s.b (x bigint)");
    lake.update("CREATE VIEW s.v AS SELECT id FROM s.a");
    Session rows = lake.session.withOption("planner.columnar", "false");
    for (String sql : List.of(
        "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 's' ORDER BY table_name LIMIT 100",
        "SELECT column_name, data_type, ordinal_position FROM information_schema.columns"
            + " WHERE table_schema = 's' AND table_name IN ('a', 'b') AND upper(column_name) <> 'X'",
        "SELECT * FROM information_schema.schemata",
        "SELECT table_name FROM information_schema.views WHERE table_schema = 's'",
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 's%' UNION ALL SELECT 'extra'")) {
      assertThat(lake.explain(sql)).as(sql).contains("SqeRowSource").doesNotContain("Enumerable");
      List<List<Object>> columnar = lake.query(sql);
      Session columnarSession = lake.session;
      lake.session = rows;
      try {
        assertThat(columnar).as(sql).isEqualTo(lake.query(sql)).isNotEmpty();
      } finally {
        lake.session = columnarSession;
      }
    }
  }

  @Test
  void exactNamesAreLookedUpWithoutListingAndListedRelationsAreLoadedOnlyForDetails() throws IOException {
    CountingCatalog counting = CountingCatalog.open(dir.resolve("counted"));
    try (Lakehouse counted = new Lakehouse(new io.sqe.catalog.LakehouseCatalog("lake", counting, java.time.Duration.ZERO), ObjectVisibility.ALL)) {
      for (int schema = 0; schema < 5; schema++) {
        counted.update("CREATE SCHEMA n" + schema);
        for (int table = 0; table < 4; table++) {
          counted.update("CREATE TABLE n" + schema + ".t" + table + " (id BIGINT, v VARCHAR)");
        }
      }
      counted.session = counted.session.withSchema(null);

      counting.reset();
      assertThat(counted.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'n3' AND table_name = 't2'"))
          .containsExactly(List.of("id"), List.of("v"));
      assertThat(counting.total()).as(counting.toString()).isEqualTo(1);
      assertThat(counting.calls("loadTable")).isEqualTo(1);

      counting.reset();
      assertThat(counted.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'n1'")).hasSize(4);
      assertThat(counting.total()).as(counting.toString()).isEqualTo(2);
      assertThat(counting.calls("listTables")).isEqualTo(1);
      assertThat(counting.calls("listViews")).isEqualTo(1);

      counting.reset();
      assertThat(counted.query("SELECT table_name, row_count FROM information_schema.tables WHERE table_schema IN ('n1', 'n2')")).hasSize(8);
      assertThat(counting.calls("loadTable")).isEqualTo(8);
      assertThat(counting.calls("listNamespaces")).isZero();

      counting.reset();
      assertThat(counted.query("SELECT table_schema FROM information_schema.tables WHERE table_schema LIKE 'n4%' AND table_name = ?", "t0"))
          .containsExactly(List.of("n4"));
      assertThat(counting.calls("listNamespaces")).isEqualTo(1);
      assertThat(counting.calls("loadTable")).isEqualTo(1);
      assertThat(counting.calls("listTables")).isZero();

      counting.reset();
      assertThat(counted.query("SELECT count(*) FROM information_schema.columns")).containsExactly(List.of(40L));
      assertThat(counting.calls("loadTable")).isEqualTo(20);
    }
  }

  @Test
  void iLikeMatchesNamesIgnoringCaseAsDbtAsksForThem() {
    lake.update("CREATE SCHEMA Mixed");
    lake.update("CREATE TABLE t (x INT)");
    assertThat(lake.query("SELECT table_name FROM information_schema.tables WHERE table_schema ILIKE 'S'")).containsExactly(List.of("t"));
    assertThat(lake.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name ILIKE 'mIx%'"))
        .containsExactly(List.of(lake.query("SELECT schema_name FROM information_schema.schemata WHERE schema_name <> 's'").get(0).get(0)));
  }

  @Test
  void tableWithHundredsOfColumns() {
    List<Types.NestedField> fields = new ArrayList<>();
    for (int i = 1; i <= 600; i++) {
      fields.add(optional(i, "c" + i, i % 2 == 0 ? Types.StringType.get() : Types.DecimalType.of(18, i % 10)));
    }
    lake.catalog.iceberg().createTable(TableIdentifier.of("s", "wide"), new Schema(fields));
    List<List<Object>> rows = lake.query(
        "SELECT column_name, ordinal_position, data_type FROM information_schema.columns WHERE table_name = 'wide'");
    assertThat(rows).hasSize(600);
    for (int i = 1; i <= 600; i++) {
      assertThat(rows.get(i - 1))
          .containsExactly("c" + i, i, i % 2 == 0 ? "varchar" : "decimal(18," + (i % 10) + ")");
    }
  }

  @Test
  void aTableThatCannotBeLoadedIsListedWithoutDetailsAndHasNoColumns() throws IOException {
    lake.update("CREATE TABLE broken (x INT)");
    lake.update("CREATE TABLE fine (x INT)");
    Table broken = lake.catalog.iceberg().loadTable(TableIdentifier.of("s", "broken"));
    deleteRecursively(Path.of(URI.create(broken.location())).resolve("metadata"));
    lake.catalog.invalidateAll();
    assertThat(lake.query("SELECT table_name, row_count FROM information_schema.tables"))
        .containsExactly(Arrays.asList("broken", null), Arrays.asList("fine", 0L));
    assertThat(lake.query("SELECT DISTINCT table_name FROM information_schema.columns")).containsExactly(List.of("fine"));
    // Looked up by name, it is there just the same.
    assertThat(lake.query("SELECT table_name, comment FROM information_schema.tables WHERE table_schema = 's' AND table_name = 'broken'"))
        .containsExactly(Arrays.asList("broken", null));
    assertThat(lake.query("SELECT count(*) FROM information_schema.columns WHERE table_schema = 's' AND table_name = 'broken'"))
        .containsExactly(List.of(0L));
  }

  @Test
  void onlyWhatThePrincipalMaySeeIsListed() {
    ObjectVisibility policy =
        new ObjectVisibility() {
          @Override
          public boolean canSeeSchema(Principal principal, String catalog, String schema) {
            return !schema.equals("secret");
          }

          @Override
          public boolean canSeeTable(Principal principal, String catalog, String schema, String table) {
            return !(principal.user().equals("alice") && table.equals("hidden"));
          }

          @Override
          public boolean canSeeColumn(Principal principal, String catalog, String schema, String table, String column) {
            return !column.equals("salary");
          }
        };
    try (Lakehouse guarded = new Lakehouse(dir.resolve("guarded"), policy)) {
      guarded.update("CREATE SCHEMA secret");
      guarded.update("CREATE TABLE secret.plans (x INT)");
      guarded.update("CREATE TABLE hidden (x INT)");
      guarded.update("CREATE TABLE staff (name VARCHAR, salary INT)");
      assertThat(guarded.query("SELECT schema_name FROM information_schema.schemata")).containsExactly(List.of("s"));
      assertThat(guarded.query("SELECT table_schema, table_name FROM information_schema.tables")).containsExactly(List.of("s", "staff"));
      assertThat(guarded.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'secret'")).isEmpty();
      assertThat(guarded.query("SELECT column_name FROM information_schema.columns")).containsExactly(List.of("name"));
      guarded.session = new io.sqe.engine.session.Session(Principal.of("bob"), "lake", "s", guarded.session.timeZone());
      assertThat(guarded.query("SELECT table_name FROM information_schema.tables")).containsExactly(List.of("hidden"), List.of("staff"));
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
