package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import io.sqe.sample.IcebergAppender;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SQE in front of a real Iceberg REST catalog, reading what another engine wrote there. */
class RestCatalogTest {
  private static final Schema EVENTS =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()), Types.NestedField.optional(2, "kind", Types.StringType.get()));

  @TempDir Path dir;

  @Test
  void readsTablesAnotherEngineCreatesWithOAuth2Credentials() throws Exception {
    try (RestCatalogFixture rest = RestCatalogFixture.start(dir.resolve("rest"))) {
      Map<String, String> settings = new HashMap<>(rest.sqeSettings());
      // Iceberg's REST client exchanges these client credentials at the catalog's token endpoint.
      settings.put("catalog.properties.credential", "sqe-client:sqe-secret");
      settings.put("catalog.cache-ttl", "1s");
      try (TestServer server = TestServer.start(dir.resolve("sqe"), settings)) {
        rest.backend().createNamespace(Namespace.of("app"));
        Table events = rest.backend().createTable(TableIdentifier.of("app", "events"), EVENTS);
        append(events, 0, 100);

        Properties props = new Properties();
        props.put("user", TestServer.ADMIN);
        props.put("password", server.adminPassword());
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), props); Statement s = c.createStatement()) {
          assertThat(single(s, "select count(*), sum(id) from app.events")).containsExactly(100L, 4950L);
          // Another engine appends; SQE sees it once its table cache entry expires.
          append(rest.backend().loadTable(TableIdentifier.of("app", "events")), 100, 50);
          Thread.sleep(1_200);
          assertThat(single(s, "select count(*), sum(id) from app.events")).containsExactly(150L, 11175L);
        }
        assertThat(rest.requests()).isGreaterThan(0);
      }
    }
  }

  private static void append(Table table, long from, int count) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      Record r = GenericRecord.create(EVENTS);
      r.setField("id", id);
      r.setField("kind", id % 2 == 0 ? "click" : "view");
      rows.add(r);
    }
    IcebergAppender.builder(table).build().append(rows);
  }

  private static List<Object> single(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertThat(rs.next()).isTrue();
      List<Object> row = new ArrayList<>();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
        row.add(((Number) rs.getObject(i)).longValue());
      }
      return row;
    }
  }
}
