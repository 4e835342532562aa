package io.sqe.flight.mview;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.BothCatalogs;
import io.sqe.flight.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A materialized view in the embedded catalog and over a real Iceberg REST catalog: what other
 * engines find there (an Iceberg view with SQL and the storage table's name, a storage table with
 * the rows and the source snapshot it was built from), and reads that follow the source.
 */
class MaterializedViewCatalogsTest {
  @RegisterExtension static final BothCatalogs SERVERS = new BothCatalogs();

  static Stream<TestServer> servers() {
    return SERVERS.both();
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void theCatalogHoldsTheViewAndItsStorageTable(TestServer server) throws SQLException {
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      s.executeUpdate("CREATE TABLE app.orders (id BIGINT, amount BIGINT)");
      s.executeUpdate("INSERT INTO app.orders VALUES (1, 10), (2, 20)");
      assertThat(s.executeUpdate("CREATE MATERIALIZED VIEW app.big AS SELECT id, amount FROM app.orders WHERE amount > 15")).isEqualTo(1);

      var catalog = server.server().catalogs().find("iceberg").orElseThrow();
      View view = catalog.views().orElseThrow().loadView(TableIdentifier.of("app", "big"));
      assertThat(view.currentVersion().representations()).singleElement()
          .satisfies(r -> assertThat(((SQLViewRepresentation) r).dialect()).isEqualTo("sqe"));
      Map<String, String> properties = view.properties();
      assertThat(properties).containsEntry("storage_schema", "app").containsKey("storage_table");
      var storage = catalog.iceberg().loadTable(TableIdentifier.of("app", properties.get("storage_table")));
      long source = catalog.iceberg().loadTable(TableIdentifier.of("app", "orders")).currentSnapshot().snapshotId();
      assertThat(storage.currentSnapshot().summary().get("sqe.lineage.inputs")).contains("snapshot " + source);

      s.executeUpdate("INSERT INTO app.orders VALUES (3, 30)");
      assertThat(rows(s, "SELECT id FROM app.big ORDER BY id")).containsExactly(List.of(2L), List.of(3L));
      s.executeUpdate("REFRESH MATERIALIZED VIEW app.big");
      assertThat(rows(s, "SELECT id FROM app.big ORDER BY id")).containsExactly(List.of(2L), List.of(3L));
      s.executeUpdate("DROP MATERIALIZED VIEW app.big");
      assertThat(catalog.iceberg().tableExists(TableIdentifier.of("app", properties.get("storage_table")))).isFalse();
      s.executeUpdate("DROP TABLE app.orders");
    }
  }

  private static List<List<Object>> rows(Statement s, String query) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (ResultSet result = s.executeQuery(query)) {
      while (result.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= result.getMetaData().getColumnCount(); i++) {
          row.add(result.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
