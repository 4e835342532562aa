package io.sqe.infoschema;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import java.nio.file.Path;
import java.sql.Types;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * system.jdbc through the engine, queried with the statements Trino's JDBC driver 476 sends for its
 * DatabaseMetaData, and system.metadata as Trino's other clients read it, over a real embedded
 * Iceberg catalog.
 */
class SystemJdbcSchemaTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir, ObjectVisibility.ALL);
    lake.update("CREATE TABLE lake.s.orders (id BIGINT NOT NULL, amount DECIMAL(12, 2), note VARCHAR, ts TIMESTAMP)"
        + " COMMENT 'all orders'");
    lake.update("COMMENT ON COLUMN lake.s.orders.amount IS 'in EUR'");
    lake.update("CREATE VIEW lake.s.big_orders AS SELECT id FROM lake.s.orders WHERE amount > 100");
    lake.update("CREATE SCHEMA lake.t_2");
  }

  @AfterEach
  void tearDown() {
    lake.close();
  }

  @Test
  void catalogsSchemasAndTableTypes() {
    assertThat(lake.query("SELECT TABLE_CAT\nFROM system.jdbc.catalogs\nORDER BY TABLE_CAT")).containsExactly(List.of("lake"));
    assertThat(lake.query("SELECT TABLE_SCHEM, TABLE_CATALOG\nFROM system.jdbc.schemas\nORDER BY TABLE_CATALOG, TABLE_SCHEM"))
        .containsExactly(List.of("information_schema", "lake"), List.of("s", "lake"), List.of("t_2", "lake"));
    assertThat(lake.query("SELECT TABLE_SCHEM, TABLE_CATALOG\nFROM system.jdbc.schemas\nWHERE TABLE_CATALOG = 'lake'"
        + " AND TABLE_SCHEM LIKE 't\\_%' ESCAPE '\\'\nORDER BY TABLE_CATALOG, TABLE_SCHEM"))
        .containsExactly(List.of("t_2", "lake"));
    assertThat(lake.query("SELECT TABLE_TYPE\nFROM system.jdbc.table_types\nORDER BY TABLE_TYPE"))
        .containsExactly(List.of("TABLE"), List.of("VIEW"));
  }

  @Test
  void tablesAsGetTablesAsksForThem() {
    String sql = "SELECT TABLE_CAT, TABLE_SCHEM, TABLE_NAME, TABLE_TYPE, REMARKS,\n  TYPE_CAT, TYPE_SCHEM, TYPE_NAME,"
        + "   SELF_REFERENCING_COL_NAME, REF_GENERATION\nFROM system.jdbc.tables\nWHERE TABLE_CAT = 'lake' AND TABLE_SCHEM LIKE 's'"
        + " ESCAPE '\\' AND TABLE_NAME LIKE '%' ESCAPE '\\' AND TABLE_TYPE IN ('TABLE', 'VIEW')"
        + "\nORDER BY TABLE_TYPE, TABLE_CAT, TABLE_SCHEM, TABLE_NAME";
    assertThat(lake.query(sql)).containsExactly(
        Arrays.asList("lake", "s", "orders", "TABLE", "all orders", null, null, null, null, null),
        Arrays.asList("lake", "s", "big_orders", "VIEW", null, null, null, null, null, null));
    assertThat(lake.query("SELECT TABLE_NAME FROM system.jdbc.tables WHERE TABLE_TYPE IN ('VIEW')"))
        .containsExactly(List.of("big_orders"));
  }

  @Test
  void columnsAsGetColumnsAsksForThem() {
    String sql = "SELECT TABLE_CAT, TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, DATA_TYPE,\n  TYPE_NAME, COLUMN_SIZE, BUFFER_LENGTH,"
        + " DECIMAL_DIGITS, NUM_PREC_RADIX,\n  NULLABLE, REMARKS, COLUMN_DEF, SQL_DATA_TYPE, SQL_DATETIME_SUB,\n"
        + "  CHAR_OCTET_LENGTH, ORDINAL_POSITION, IS_NULLABLE,\n  SCOPE_CATALOG, SCOPE_SCHEMA, SCOPE_TABLE,\n"
        + "  SOURCE_DATA_TYPE, IS_AUTOINCREMENT, IS_GENERATEDCOLUMN\nFROM system.jdbc.columns\n"
        + "WHERE TABLE_CAT = 'lake' AND TABLE_SCHEM LIKE 's' ESCAPE '\\' AND TABLE_NAME LIKE 'orders' ESCAPE '\\'"
        + "\nORDER BY TABLE_CAT, TABLE_SCHEM, TABLE_NAME, ORDINAL_POSITION";
    List<List<Object>> rows = lake.query(sql);
    assertThat(rows).hasSize(4);
    assertThat(rows.get(0).subList(3, 18)).containsExactly("id", (long) Types.BIGINT, "bigint", 19L, null, 0L, 10L, 0L, null, null,
        null, null, null, 1L, "NO");
    assertThat(rows.get(1).subList(3, 18)).containsExactly("amount", (long) Types.DECIMAL, "decimal(12,2)", 12L, null, 2L, 10L, 1L,
        "in EUR", null, null, null, null, 2L, "YES");
    assertThat(rows.get(2).subList(3, 7)).containsExactly("note", (long) Types.VARCHAR, "varchar", null);
    assertThat(rows.get(3).subList(3, 9)).containsExactly("ts", (long) Types.TIMESTAMP, "timestamp(6)", 26L, null, 6L);
  }

  @Test
  void whatSqeDoesNotHaveIsEmptyAndTypesAreListed() {
    assertThat(lake.query("SELECT PROCEDURE_CAT, PROCEDURE_SCHEM, PROCEDURE_NAME,\n   null, null, null, REMARKS, PROCEDURE_TYPE,"
        + " SPECIFIC_NAME\nFROM system.jdbc.procedures\nORDER BY PROCEDURE_CAT, PROCEDURE_SCHEM, PROCEDURE_NAME, SPECIFIC_NAME LIMIT 0"))
        .isEmpty();
    assertThat(lake.query("SELECT TYPE_CAT, TYPE_SCHEM, TYPE_NAME,\n  CLASS_NAME, DATA_TYPE, REMARKS, BASE_TYPE\n"
        + "FROM system.jdbc.udts\nORDER BY DATA_TYPE, TYPE_CAT, TYPE_SCHEM, TYPE_NAME LIMIT 0")).isEmpty();
    List<List<Object>> types = lake.query("SELECT TYPE_NAME, DATA_TYPE, PRECISION, LITERAL_PREFIX, LITERAL_SUFFIX,\n"
        + "CREATE_PARAMS, NULLABLE, CASE_SENSITIVE, SEARCHABLE, UNSIGNED_ATTRIBUTE,\nFIXED_PREC_SCALE, AUTO_INCREMENT,"
        + " LOCAL_TYPE_NAME, MINIMUM_SCALE, MAXIMUM_SCALE,\nSQL_DATA_TYPE, SQL_DATETIME_SUB, NUM_PREC_RADIX\n"
        + "FROM system.jdbc.types\nORDER BY DATA_TYPE");
    assertThat(types).extracting(row -> row.get(0)).contains("bigint", "varchar", "decimal", "timestamp with time zone");
    assertThat(types).filteredOn(row -> row.get(0).equals("decimal")).singleElement()
        .satisfies(row -> assertThat(row.subList(1, 6)).containsExactly((long) Types.DECIMAL, 38L, null, null, "precision,scale"));
  }

  @Test
  void systemMetadataHasTableCommentsAndNoMaterializedViews() {
    // The statement Trino's SQLAlchemy dialect sends for Inspector.get_table_comment.
    assertThat(lake.query("SELECT \"comment\"\nFROM \"system\".\"metadata\".\"table_comments\"\nWHERE \"catalog_name\" = 'lake'"
        + "\n  AND \"schema_name\" = 's'\n  AND \"table_name\" = 'orders'")).containsExactly(List.of("all orders"));
    assertThat(lake.query("SELECT * FROM system.metadata.materialized_views WHERE catalog_name = 'lake'")).isEmpty();
  }

  @Test
  void onlyWhatThePrincipalMaySeeIsListed() {
    lake.close();
    lake = new Lakehouse(dir.resolve("hidden"), new ObjectVisibility() {
      @Override
      public boolean canSeeSchema(Principal principal, String catalog, String schema) {
        return !schema.equals("secret");
      }

      @Override
      public boolean canSeeTable(Principal principal, String catalog, String schema, String table) {
        return canSeeSchema(principal, catalog, schema);
      }

      @Override
      public boolean canSeeColumn(Principal principal, String catalog, String schema, String table, String column) {
        return canSeeSchema(principal, catalog, schema);
      }
    });
    lake.update("CREATE SCHEMA lake.secret");
    lake.update("CREATE TABLE lake.secret.x (a INTEGER)");
    assertThat(lake.query("SELECT TABLE_SCHEM FROM system.jdbc.schemas")).doesNotContain(List.of("secret"));
    assertThat(lake.query("SELECT TABLE_NAME FROM system.jdbc.columns WHERE TABLE_SCHEM = 'secret'")).isEmpty();
    assertThat(lake.catalog.iceberg().tableExists(TableIdentifier.of("secret", "x"))).isTrue();
  }
}
