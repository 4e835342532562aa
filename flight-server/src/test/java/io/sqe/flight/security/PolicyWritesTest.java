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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes under a policy that hides and masks columns: a hidden column cannot be written (UPDATE
 * SET, MERGE UPDATE SET, INSERT and MERGE INSERT naming it), and the answer is the same as for a
 * column that does not exist; a masked column cannot be written either, so a self-assignment never
 * stores the mask; statements that leave both alone work, and the copy-on-write rewrite keeps
 * their stored values. Flight SQL bulk ingest follows the same rules, and needs INSERT (CREATE for
 * a new table).
 */
class PolicyWritesTest {
  static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "clerk", "schema": "hr", "table": "staff", "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE"],
           "filter": "region = 'EU'",
           "columns": [{"name": "salary", "allow": false}, {"name": "code", "mask": "'***'"}]},
          {"role": "loader", "schema": "hr", "table": "staff", "privileges": ["INSERT"],
           "columns": [{"name": "salary", "allow": false}]},
          {"role": "loader", "schema": "hr", "table": "strict", "privileges": ["INSERT"],
           "columns": [{"name": "secret", "allow": false}]},
          {"role": "clerk", "schema": "hr", "table": "changes", "privileges": ["SELECT"]}
        ]
      }
      """;
  static final List<List<Object>> STORED = List.of(
      List.of(1L, "ann", "c-1", "EU", 100L), List.of(2L, "ben", "c-2", "US", 200L), List.of(3L, "cid", "c-3", "EU", 300L));

  @TempDir static Path dir;
  static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    server = TestServer.start(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("cleo", "cleo-pw".toCharArray(), Set.of("clerk"));
    server.server().authentication().users().addUser("lou", "lou-pw".toCharArray(), Set.of("loader"));
    try (Connection admin = admin(); Statement s = admin.createStatement()) {
      s.execute("CREATE SCHEMA hr");
      s.execute("CREATE TABLE hr.staff (id INT, name VARCHAR, code VARCHAR, region VARCHAR, salary INT)");
      s.execute("CREATE TABLE hr.strict (id INT, secret INT NOT NULL)");
      s.execute("CREATE TABLE hr.changes (id INT, name VARCHAR)");
      s.execute("INSERT INTO hr.changes VALUES (1, 'merged'), (3, 'merged')");
    }
  }

  @BeforeEach
  void resetRows() throws Exception {
    try (Connection admin = admin(); Statement s = admin.createStatement()) {
      s.execute("DELETE FROM hr.staff");
      s.execute("INSERT INTO hr.staff VALUES (1, 'ann', 'c-1', 'EU', 100), (2, 'ben', 'c-2', 'US', 200), (3, 'cid', 'c-3', 'EU', 300)");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  static Connection admin() throws SQLException {
    return connect(TestServer.ADMIN, server.adminPassword());
  }

  static Connection connect(String user, String password) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static List<List<Object>> stored() throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM hr.staff ORDER BY id")) {
      List<List<Object>> rows = new ArrayList<>();
      while (rs.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          Object v = rs.getObject(i);
          row.add(v instanceof Number ? ((Number) v).longValue() : v == null ? null : v.toString());
        }
        rows.add(row);
      }
      return rows;
    }
  }

  static int as(String user, String sql) throws SQLException {
    try (Connection c = connect(user, user + "-pw"); Statement s = c.createStatement()) {
      return s.executeUpdate(sql);
    }
  }

  @Test
  void aHiddenColumnCannotBeWrittenAndReadsLikeAColumnThereIsNot() throws Exception {
    for (String sql : List.of(
        "UPDATE hr.staff SET salary = 0",
        "UPDATE hr.staff SET name = 'x', SALARY = 0 WHERE id = 1",
        "MERGE INTO hr.staff t USING hr.changes s ON t.id = s.id WHEN MATCHED THEN UPDATE SET salary = 0",
        "INSERT INTO hr.staff (id, region, salary) VALUES (9, 'EU', 1)",
        "MERGE INTO hr.staff t USING hr.changes s ON t.id = s.id + 10 WHEN NOT MATCHED THEN INSERT (id, region, salary)"
            + " VALUES (s.id + 10, 'EU', 1)")) {
      assertThatThrownBy(() -> as("cleo", sql)).as(sql)
          .hasMessageContaining("Access denied: user 'cleo' cannot write column")
          .hasMessageContaining("of iceberg.hr.staff");
      String unknown = sql.replaceAll("(?i)salary", "wage");
      assertThatThrownBy(() -> as("cleo", unknown)).as(unknown)
          .hasMessageContaining("Access denied: user 'cleo' cannot write column wage of iceberg.hr.staff");
    }
    assertThat(stored()).isEqualTo(STORED);
  }

  @Test
  void aMaskedColumnCannotBeWrittenSoASelfAssignmentNeverStoresTheMask() throws Exception {
    for (String sql : List.of(
        "UPDATE hr.staff SET code = code",
        "UPDATE hr.staff SET code = 'new' WHERE id = 1",
        "MERGE INTO hr.staff t USING hr.changes s ON t.id = s.id WHEN MATCHED THEN UPDATE SET code = t.code",
        "INSERT INTO hr.staff (id, code, region) VALUES (9, 'c-9', 'EU')",
        "INSERT INTO hr.staff VALUES (9, 'x', 'c-9', 'EU')")) {
      assertThatThrownBy(() -> as("cleo", sql)).as(sql)
          .hasMessageContaining("Access denied: user 'cleo' cannot write column code of iceberg.hr.staff");
    }
    assertThat(stored()).isEqualTo(STORED);
  }

  @Test
  void writesThatLeaveHiddenAndMaskedColumnsAloneKeepTheirStoredValues() throws Exception {
    assertThat(as("cleo", "UPDATE hr.staff SET name = upper(name) WHERE code = '***'")).isEqualTo(2);
    assertThat(as("cleo", "MERGE INTO hr.staff t USING hr.changes s ON t.id = s.id WHEN MATCHED THEN UPDATE SET name = s.name"))
        .isEqualTo(2);
    assertThat(as("cleo", "INSERT INTO hr.staff (id, name, region) VALUES (4, 'dan', 'EU')")).isEqualTo(1);
    assertThat(stored()).containsExactly(
        List.of(1L, "merged", "c-1", "EU", 100L), List.of(2L, "ben", "c-2", "US", 200L), List.of(3L, "merged", "c-3", "EU", 300L),
        Arrays.asList(4L, "dan", null, "EU", null));
  }

  /** Bulk ingest (Flight SQL's CommandStatementIngest) of one row with these columns into hr.{@code table}, as {@code user}. */
  static long ingest(String user, String table, TableNotExistOption ifMissing, String... columns) throws Exception {
    try (RootAllocator allocator = new RootAllocator()) {
      FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
      try (FlightSqlClient sql = new FlightSqlClient(flight)) {
        CallOption auth = flight.authenticateBasicToken(user, user + "-pw").orElseThrow();
        List<Field> fields = new ArrayList<>();
        for (String column : columns) {
          boolean number = column.equals("id") || column.equals("salary") || column.equals("wage") || column.equals("secret");
          fields.add(new Field(column, FieldType.nullable(number ? new ArrowType.Int(32, true) : ArrowType.Utf8.INSTANCE), null));
        }
        try (VectorSchemaRoot data = VectorSchemaRoot.create(new Schema(fields), allocator)) {
          for (var vector : data.getFieldVectors()) {
            if (vector instanceof IntVector ints) {
              ints.setSafe(0, 7);
            } else {
              ((VarCharVector) vector).setSafe(0, "x".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
          }
          data.setRowCount(1);
          ExecuteIngestOptions options = new ExecuteIngestOptions(
              table, TableDefinitionOptions.newBuilder().setIfNotExist(ifMissing).setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND).build(),
              null, "hr", Map.of());
          return sql.executeIngest(data, options, auth);
        }
      }
    }
  }

  @Test
  void bulkIngestNeedsTheRightPrivilegeAndWritesOnlyColumnsTheUserMayWrite() throws Exception {
    TableNotExistOption fail = TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL;
    assertThat(ingest("lou", "staff", fail, "id", "name", "region")).isEqualTo(1);
    assertThat(stored()).contains(Arrays.asList(7L, "x", null, "x", null));
    assertThatThrownBy(() -> ingest("lou", "staff", fail, "id", "salary"))
        .hasMessageContaining("Access denied: user 'lou' cannot write column salary of iceberg.hr.staff");
    assertThatThrownBy(() -> ingest("lou", "staff", fail, "id", "wage"))
        .hasMessageContaining("Access denied: user 'lou' cannot write column wage of iceberg.hr.staff");
    assertThatThrownBy(() -> ingest("cleo", "staff", fail, "id", "code"))
        .hasMessageContaining("Access denied: user 'cleo' cannot write column code of iceberg.hr.staff");
    // A hidden NOT NULL column the data lacks: refused without its name.
    assertThatThrownBy(() -> ingest("lou", "strict", fail, "id"))
        .hasMessageContaining("Access denied: user 'lou' cannot INGEST into iceberg.hr.strict")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    // Privileges: cleo may only read hr.changes; lou cannot see it; nobody here may create tables.
    assertThatThrownBy(() -> ingest("cleo", "changes", fail, "id", "name"))
        .hasMessageContaining("Access denied: user 'cleo' cannot INSERT on iceberg.hr.changes");
    assertThatThrownBy(() -> ingest("lou", "changes", fail, "id", "name")).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> ingest("cleo", "fresh", TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, "id"))
        .hasMessageContaining("Access denied: user 'cleo' cannot CREATE table iceberg.hr.fresh");
    try (Connection admin = admin(); Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM hr.changes")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLong(1)).isEqualTo(2);
    }
  }

  @Test
  void anInsertWithoutAColumnListGivesTheColumnsTheUserSees() throws Exception {
    // lou does not see salary: a row of the other four columns, salary left NULL.
    assertThat(as("lou", "INSERT INTO hr.staff VALUES (5, 'eve', 'c-5', 'US')")).isEqualTo(1);
    assertThatThrownBy(() -> as("lou", "INSERT INTO hr.staff VALUES (6, 'fay', 'c-6', 'US', 600)"))
        .hasMessageContaining("4 target columns");
    assertThat(stored()).contains(Arrays.asList(5L, "eve", "c-5", "US", null));
    // A hidden NOT NULL column without a default cannot be left out, and the answer does not name it.
    assertThatThrownBy(() -> as("lou", "INSERT INTO hr.strict VALUES (1)"))
        .hasMessageContaining("Access denied: user 'lou' cannot INSERT into iceberg.hr.strict")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
  }
}
