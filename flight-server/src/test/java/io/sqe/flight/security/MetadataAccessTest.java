package io.sqe.flight.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access control on time travel and on metadata tables: both need SELECT on the table; today's
 * row filter, masks and hidden columns apply to every old snapshot; the metadata tables that show
 * column values ($files, $manifests, $partitions) are denied to a user whose access to the table
 * is restricted, while a user who may read the table as stored reads them.
 */
class MetadataAccessTest {
  static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "hr", "schema": "hr", "privileges": ["SELECT"]},
          {"role": "analyst", "schema": "hr", "table": "employees", "privileges": ["SELECT"],
           "filter": "region = 'EU'",
           "columns": [{"name": "salary", "allow": false}, {"name": "ssn", "mask": "'XXX-' || substring(ssn, 8)"}]},
          {"role": "loader", "schema": "hr", "table": "employees", "privileges": ["INSERT"]}
        ]
      }
      """;
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  @TempDir static Path dir;
  static TestServer server;
  /** The snapshot with every row, before the US rows were deleted. */
  static long first;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("alice", "alice-pw".toCharArray(), Set.of("hr"));
    server.server().authentication().users().addUser("bob", "bob-pw".toCharArray(), Set.of("analyst"));
    server.server().authentication().users().addUser("carol", "carol-pw".toCharArray(), Set.of());
    server.server().authentication().users().addUser("dave", "dave-pw".toCharArray(), Set.of("loader"));
    try (Connection admin = connect(TestServer.ADMIN, server.adminPassword()); Statement s = admin.createStatement()) {
      s.execute("CREATE SCHEMA hr");
      s.execute("CREATE TABLE hr.employees (id INT, name VARCHAR, ssn VARCHAR, region VARCHAR, salary INT)");
      s.execute("INSERT INTO hr.employees VALUES (1, 'ann', '123-45-6789', 'EU', 100), (2, 'ben', '987-65-4321', 'US', 200)");
      first = table().currentSnapshot().snapshotId();
      s.execute("DELETE FROM hr.employees WHERE region = 'US'");
      s.execute("INSERT INTO hr.employees VALUES (3, 'cid', '555-12-3456', 'EU', 300)");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static Table table() {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("hr", "employees"));
  }

  static Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static List<List<Object>> query(String user, String sql) throws SQLException {
    try (Connection c = connect(user, user + "-pw"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number ? ((Number) v).longValue() : v == null ? null : v.toString());
        }
        rows.add(row);
      }
      return rows;
    }
  }

  @Test
  void timeTravelAppliesTodaysPolicyToOldSnapshots() throws Exception {
    String old = "SELECT * FROM hr.employees FOR VERSION AS OF " + first + " ORDER BY id";
    assertThat(query("alice", old)).containsExactly(
        List.of(1L, "ann", "123-45-6789", "EU", 100L), List.of(2L, "ben", "987-65-4321", "US", 200L));
    // The US row of that snapshot is filtered out, ssn masked, salary absent.
    assertThat(query("bob", old)).containsExactly(List.of(1L, "ann", "XXX-6789", "EU"));
    String at = TIMESTAMP.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(table().snapshot(first).timestampMillis()), ZoneOffset.UTC));
    assertThat(query("bob", "SELECT count(*) FROM hr.employees FOR TIMESTAMP AS OF TIMESTAMP '" + at + "'"))
        .containsExactly(List.of(1L));
    assertThat(query("bob", "SELECT count(*) FROM hr.employees FOR VERSION AS OF " + first + " WHERE region = 'US' OR ssn LIKE '987%'"))
        .containsExactly(List.of(0L));
    assertThatThrownBy(() -> query("bob", "SELECT salary FROM hr.employees FOR VERSION AS OF " + first))
        .hasMessageContaining("salary");
    // A user without SELECT is denied, naming the table; one who cannot see it finds nothing.
    assertThatThrownBy(() -> query("dave", old)).hasMessageContaining("Access denied").hasMessageContaining("iceberg.hr.employees");
    assertThatThrownBy(() -> query("carol", old)).hasMessageContaining("does not exist");
  }

  @Test
  void aRestrictedUserSeesNoStoredRowCounts() throws Exception {
    String rowCount = "SELECT row_count FROM information_schema.tables WHERE table_schema = 'hr' AND table_name = 'employees'";
    assertThat(query("alice", rowCount)).containsExactly(List.of(2L));
    // Computed under bob's filter or not, a count would tell what the filter hides in some snapshot.
    assertThat(query("bob", rowCount)).containsExactly(java.util.Arrays.asList((Object) null));
    String summaries = "SELECT snapshot_id, summary FROM hr.\"employees$snapshots\" ORDER BY committed_at";
    assertThat(query("alice", summaries)).allSatisfy(row -> assertThat(String.valueOf(row.get(1))).contains("total-records"));
    List<List<Object>> bobs = query("bob", summaries);
    assertThat(bobs).hasSameSizeAs(query("alice", summaries)).allSatisfy(row -> {
      assertThat(row.get(0)).isNotNull();
      assertThat(row.get(1)).isNull();
    });
  }

  @Test
  void metadataTablesNeedSelectAndShowNoValuesToARestrictedUser() throws Exception {
    int snapshots = 0;
    for (var ignored : table().snapshots()) {
      snapshots++;
    }
    String countSnapshots = "SELECT count(*) FROM hr.\"employees$snapshots\"";
    assertThat(query("alice", countSnapshots)).containsExactly(List.of((long) snapshots));
    assertThat(query("bob", countSnapshots)).containsExactly(List.of((long) snapshots));
    assertThat(query("alice", "SELECT sum(record_count) FROM hr.\"employees$files\"")).containsExactly(List.of(2L));
    for (String values : List.of("files", "manifests", "partitions")) {
      String sql = "SELECT * FROM hr.\"employees$" + values + "\"";
      assertThat(query("alice", sql)).isNotEmpty();
      assertThatThrownBy(() -> query("bob", sql))
          .hasMessageContaining("Access denied")
          .hasMessageContaining("iceberg.hr.employees$" + values);
    }
    assertThatThrownBy(() -> query("dave", countSnapshots))
        .hasMessageContaining("Access denied")
        .hasMessageContaining("iceberg.hr.employees$snapshots");
    assertThatThrownBy(() -> query("carol", countSnapshots)).hasMessageContaining("not found");
  }
}
