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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A policy names columns as the table names them today and binds them to their Iceberg field ids:
 * after RENAME COLUMN, a snapshot, tag or CTAS of the time before the rename (whose schema has the
 * old names) still hides, masks and filters the same columns; a row filter on a renamed column
 * reads the snapshot written before the rename; a policy naming a column the table no longer has
 * denies the table, naming no column.
 */
class RenamedColumnPolicyTest {
  static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}, {"role": "analyst", "schema": "pub", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "analyst", "schema": "hr", "table": "staff", "privileges": ["SELECT"],
           "filter": "area = 'EU'",
           "columns": [{"name": "salary2", "allow": false}, {"name": "ssn", "mask": "'XXX-' || substring(ssn, 8)"},
                       {"name": "never_there", "allow": false}]},
          {"role": "auditor", "schema": "hr", "table": "staff", "privileges": ["SELECT"],
           "columns": [{"name": "salary2", "allow": false}, {"name": "ssn", "mask": "'XXX-' || substring(ssn, 8)"}]},
          {"role": "analyst", "schema": "hr", "table": "moved", "privileges": ["SELECT"],
           "columns": [{"name": "secret", "allow": false}]},
          {"role": "analyst", "schema": "hr", "table": "dropped", "privileges": ["SELECT"], "filter": "id > 0"},
          {"role": "analyst", "schema": "pub", "privileges": ["OWNERSHIP"]}
        ]
      }
      """;

  @TempDir static Path dir;
  static TestServer server;
  /** The snapshot of hr.staff written before its columns were renamed. */
  static long beforeRename;
  /** The snapshot of hr.dropped written before its column gone was dropped. */
  static long beforeDrop;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("bob", "bob-pw".toCharArray(), Set.of("analyst"));
    server.server().authentication().users().addUser("carl", "carl-pw".toCharArray(), Set.of("auditor"));
    try (Connection admin = connect(TestServer.ADMIN, server.adminPassword()); Statement s = admin.createStatement()) {
      s.execute("CREATE SCHEMA hr");
      s.execute("CREATE SCHEMA pub");
      s.execute("CREATE TABLE hr.staff (id INT, name VARCHAR, note VARCHAR, region VARCHAR, pay INT)");
      s.execute("INSERT INTO hr.staff VALUES (1, 'ann', '123-45-6789', 'EU', 100), (2, 'ben', '987-65-4321', 'US', 200),"
          + " (3, 'cid', '555-12-3456', 'EU', 300)");
      beforeRename = snapshot("staff");
      s.execute("ALTER TABLE hr.staff CREATE TAG before_rename");
      s.execute("ALTER TABLE hr.staff RENAME COLUMN pay TO salary2");
      s.execute("ALTER TABLE hr.staff RENAME COLUMN note TO ssn");
      s.execute("ALTER TABLE hr.staff RENAME COLUMN region TO area");

      s.execute("CREATE TABLE hr.moved (id INT, secret VARCHAR)");
      s.execute("INSERT INTO hr.moved VALUES (1, 'hush')");

      s.execute("CREATE TABLE hr.dropped (id INT, gone VARCHAR)");
      s.execute("INSERT INTO hr.dropped VALUES (1, 'old value')");
      beforeDrop = snapshot("dropped");
      s.execute("ALTER TABLE hr.dropped DROP COLUMN gone");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static long snapshot(String table) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg()
        .loadTable(TableIdentifier.of("hr", table)).currentSnapshot().snapshotId();
  }

  static Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static List<List<Object>> query(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<List<Object>> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      List<Object> header = new ArrayList<>();
      for (int i = 1; i <= n; i++) {
        header.add(rs.getMetaData().getColumnName(i));
      }
      rows.add(header);
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

  /** The column names, then the rows. */
  static List<List<Object>> bob(String sql) throws SQLException {
    try (Connection c = connect("bob", "bob-pw")) {
      return query(c, sql);
    }
  }

  static List<List<Object>> carl(String sql) throws SQLException {
    try (Connection c = connect("carl", "carl-pw")) {
      return query(c, sql);
    }
  }

  static List<List<Object>> admin(String sql) throws SQLException {
    try (Connection c = connect(TestServer.ADMIN, server.adminPassword())) {
      return query(c, sql);
    }
  }

  @Test
  void todaysRowFilterOnARenamedColumnReadsTheSnapshotWrittenBeforeTheRename() throws Exception {
    assertThat(bob("SELECT id, ssn, area FROM hr.staff ORDER BY id")).containsExactly(
        List.of("id", "ssn", "area"), List.of(1L, "XXX-6789", "EU"), List.of(3L, "XXX-3456", "EU"));
    assertThat(bob("SELECT count(*) FROM hr.staff WHERE area = 'EU' AND ssn LIKE 'XXX%'")).containsExactly(List.of("EXPR$0"), List.of(2L));
    // The same filter on the new name, without a policy.
    assertThat(admin("SELECT id FROM hr.staff WHERE area = 'US'")).containsExactly(List.of("id"), List.of(2L));
  }

  @Test
  void anOldSnapshotOrTagHidesMasksAndFiltersTheSameColumnsUnderTheirOldNames() throws Exception {
    for (String version : List.of(Long.toString(beforeRename), "'before_rename'")) {
      String sql = "SELECT * FROM hr.staff FOR VERSION AS OF " + version + " ORDER BY id";
      // The snapshot's own names: pay (now salary2) is hidden, note (now ssn) masked, region (now area) filtered.
      assertThat(bob(sql)).as(sql).containsExactly(
          List.of("id", "name", "note", "region"), List.of(1L, "ann", "XXX-6789", "EU"), List.of(3L, "cid", "XXX-3456", "EU"));
      // Without a row filter: every row, still without pay and with note masked.
      assertThat(carl(sql)).as(sql).containsExactly(
          List.of("id", "name", "note", "region"), List.of(1L, "ann", "XXX-6789", "EU"), List.of(2L, "ben", "XXX-4321", "US"),
          List.of(3L, "cid", "XXX-3456", "EU"));
      assertThatThrownBy(() -> bob("SELECT pay FROM hr.staff FOR VERSION AS OF " + version)).hasMessageContaining("'pay' not found");
      assertThat(bob("SELECT count(*) FROM hr.staff FOR VERSION AS OF " + version + " WHERE note LIKE '987%' OR region = 'US'"))
          .containsExactly(List.of("EXPR$0"), List.of(0L));
    }
    assertThat(admin("SELECT * FROM hr.staff FOR VERSION AS OF " + beforeRename + " ORDER BY id")).hasSize(4)
        .contains(List.of(2L, "ben", "987-65-4321", "US", 200L));
  }

  @Test
  void ctasFromAnOldSnapshotCopiesMaskedValuesOnly() throws Exception {
    try (Connection c = connect("bob", "bob-pw"); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE pub.copy AS SELECT * FROM hr.staff FOR VERSION AS OF " + beforeRename);
      try {
        assertThat(query(c, "SELECT * FROM pub.copy ORDER BY id")).containsExactly(
            List.of("id", "name", "note", "region"), List.of(1L, "ann", "XXX-6789", "EU"), List.of(3L, "cid", "XXX-3456", "EU"));
      } finally {
        s.execute("DROP TABLE pub.copy");
      }
    }
  }

  @Test
  void aPolicyNamingARenamedColumnDeniesTheTableWithoutNamingIt() throws Exception {
    // never_there names no column staff ever had: it does not concern the table.
    assertThat(bob("SELECT id FROM hr.moved")).containsExactly(List.of("id"), List.of(1L));
    try (Connection admin = connect(TestServer.ADMIN, server.adminPassword()); Statement s = admin.createStatement()) {
      s.execute("ALTER TABLE hr.moved RENAME COLUMN secret TO hush_hush");
    }
    for (String sql : List.of("SELECT id FROM hr.moved", "SELECT * FROM hr.moved FOR VERSION AS OF " + snapshot("moved"))) {
      assertThatThrownBy(() -> bob(sql)).as(sql)
          .hasMessageContaining("Access denied")
          .hasMessageContaining("iceberg.hr.moved")
          .hasMessageContaining("no longer has")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret").doesNotContain("hush"));
    }
    assertThat(admin("SELECT hush_hush FROM hr.moved")).containsExactly(List.of("hush_hush"), List.of("hush"));
  }

  @Test
  void aColumnDroppedSinceAnOldSnapshotIsHiddenFromARestrictedUser() throws Exception {
    String sql = "SELECT * FROM hr.dropped FOR VERSION AS OF " + beforeDrop;
    assertThat(bob(sql)).containsExactly(List.of("id"), List.of(1L));
    assertThat(admin(sql)).containsExactly(List.of("id", "gone"), List.of(1L, "old value"));
  }
}
