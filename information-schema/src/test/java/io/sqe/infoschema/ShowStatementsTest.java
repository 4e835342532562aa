package io.sqe.infoschema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.ObjectVisibility;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SHOW and DESCRIBE through the engine, over a real embedded Iceberg catalog. */
class ShowStatementsTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir, ObjectVisibility.ALL);
    lake.update("CREATE TABLE lake.s.orders (id BIGINT NOT NULL COMMENT 'the key', amount DECIMAL(12, 2),"
        + " placed TIMESTAMP, tags ARRAY(VARCHAR), \"Select\" VARCHAR) COMMENT 'all orders'"
        + " PARTITIONED BY (day(placed), bucket(8, id)) SORTED BY (amount DESC NULLS LAST)"
        + " WITH ('write.target-file-size-bytes' = 1048576)");
    lake.update("CREATE VIEW lake.s.big AS SELECT id FROM lake.s.orders WHERE amount > 100");
    lake.update("CREATE SCHEMA lake.other");
  }

  @AfterEach
  void tearDown() {
    lake.close();
  }

  @Test
  void catalogsSchemasAndTables() {
    assertThat(lake.show("SHOW CATALOGS")).containsExactly(List.of("lake"));
    assertThat(lake.show("SHOW CATALOGS LIKE 'x%'")).isEmpty();
    assertThat(lake.show("SHOW SCHEMAS")).containsExactly(List.of("information_schema"), List.of("other"), List.of("s"));
    assertThat(lake.show("SHOW SCHEMAS FROM lake LIKE 'o%'")).containsExactly(List.of("other"));
    assertThat(lake.show("SHOW TABLES")).containsExactly(List.of("big"), List.of("orders"));
    assertThat(lake.show("SHOW TABLES FROM lake.s LIKE 'ord%'")).containsExactly(List.of("orders"));
    assertThat(lake.show("SHOW TABLES IN other")).isEmpty();
    assertThatThrownBy(() -> lake.show("SHOW TABLES FROM nowhere"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    assertThatThrownBy(() -> lake.show("SHOW SCHEMAS FROM elsewhere"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).contains("Catalog 'elsewhere' does not exist"));
  }

  @Test
  void columnsWithTrinoTypeNames() {
    List<List<Object>> columns = List.of(
        List.of("id", "bigint", "", "the key"), List.of("amount", "decimal(12,2)", "", ""), List.of("placed", "timestamp(6)", "", ""),
        List.of("tags", "array(varchar)", "", ""), List.of("Select", "varchar", "", ""));
    assertThat(lake.show("SHOW COLUMNS FROM orders")).isEqualTo(columns);
    assertThat(lake.show("DESCRIBE lake.s.orders")).isEqualTo(columns);
    assertThat(lake.show("SHOW COLUMNS FROM s.orders LIKE 'a%'")).containsExactly(List.of("amount", "decimal(12,2)", "", ""));
    assertThat(lake.show("DESCRIBE big")).containsExactly(List.of("id", "bigint", "", ""));
    assertThatThrownBy(() -> lake.show("DESCRIBE no_such_table"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
          assertThat(e.getMessage()).isEqualTo("Table 'lake.s.no_such_table' does not exist");
          assertThat(e.position()).isPresent();
        });
  }

  @Test
  void showCreateTableWritesDdlThatMakesTheSameTable() {
    String ddl = (String) lake.show("SHOW CREATE TABLE orders").get(0).get(0);
    assertThat(ddl).startsWith("CREATE TABLE lake.s.orders (\n   id bigint NOT NULL COMMENT 'the key',")
        .contains("   \"Select\" varchar\n)\nCOMMENT 'all orders'\nPARTITIONED BY (day(placed), bucket(8, id))\n"
            + "SORTED BY (amount DESC NULLS LAST)\nWITH (\n   format_version = 2,\n   location = '")
        .contains("'write.target-file-size-bytes' = '1048576'");
    // The same DDL under another name, without the location, makes a table that shows the same.
    lake.update(ddl.replace("lake.s.orders", "lake.s.copy").replaceAll("\n   location = '[^']*',", ""));
    String copy = (String) lake.show("SHOW CREATE TABLE copy").get(0).get(0);
    assertThat(withoutLocation(copy.replace("lake.s.copy", "lake.s.orders"))).isEqualTo(withoutLocation(ddl));

    assertThat((String) lake.show("SHOW CREATE VIEW big").get(0).get(0)).startsWith("CREATE VIEW lake.s.big (id) AS\n");
    assertThat((String) lake.show("SHOW CREATE SCHEMA other").get(0).get(0)).startsWith("CREATE SCHEMA lake.other");
    assertThatThrownBy(() -> lake.show("SHOW CREATE TABLE big"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).contains("use SHOW CREATE VIEW"));
  }

  @Test
  void sessionAndFunctions() {
    assertThat(lake.show("SHOW SESSION")).extracting(row -> row.get(0)).containsExactly("statement_timeout", "time_zone");
    assertThat(lake.show("SHOW SESSION LIKE 'time%'")).singleElement().satisfies(row -> assertThat(row.subList(0, 3))
        .containsExactly("time_zone", "UTC", "UTC"));
    List<List<Object>> functions = lake.show("SHOW FUNCTIONS");
    assertThat(functions).extracting(row -> row.get(0)).contains("abs", "count", "upper");
    assertThat(functions).filteredOn(row -> row.get(0).equals("count")).singleElement()
        .satisfies(row -> assertThat(row.get(3)).isEqualTo("aggregate"));
    assertThat(lake.show("SHOW FUNCTIONS LIKE 'upp%'")).extracting(row -> row.get(0)).containsExactly("upper");
  }

  private static String withoutLocation(String ddl) {
    return ddl.replaceAll("location = '[^']*'", "location = ?");
  }
}
