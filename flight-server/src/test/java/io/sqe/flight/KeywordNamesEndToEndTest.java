package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Words Calcite reserves and Trino does not name schemas, tables, columns, aliases and CTEs, unquoted,
 * in DDL, DML and queries, through the JDBC driver and Arrow's Flight SQL client.
 */
class KeywordNamesEndToEndTest {
  /** The column names of the issue, which a new user met first. */
  private static final List<String> WORDS = List.of(
      "date", "time", "timestamp", "user", "count", "position", "language", "start", "method", "rank", "filter",
      "window", "range", "offset", "current", "default", "partition", "uuid");

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer server;

  @BeforeAll
  static void start() {
    allocator = new RootAllocator();
    server = TestServer.start(dir, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  @Test
  void ddlDmlAndQueriesThroughJdbc() throws Exception {
    String columns = String.join(", ", WORDS);
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.execute("create schema window");
      statement.execute("create table window.method (id int, " + String.join(" varchar, ", WORDS) + " varchar)");
      statement.executeUpdate("insert into window.method (id, " + columns + ") values (1, "
          + "'" + String.join("', '", WORDS) + "')");
      statement.executeUpdate("insert into window.method (id, method, count) values (2, 'post', 'two')");
      assertThat(statement.executeUpdate("update window.method set method = 'put', count = upper(count) where method = 'post'"))
          .isEqualTo(1);
      assertThat(statement.executeUpdate("merge into window.method as date using (select 3 as id, 'get' as method) as position"
          + " on date.id = position.id when matched then update set method = position.method"
          + " when not matched then insert (id, method, user) values (position.id, position.method, 'merged')")).isEqualTo(1);
      statement.execute("alter table window.method add column value varchar");
      statement.execute("alter table window.method rename column language to locale");
      statement.execute("create view window.rank as select id, method, count, user, locale from window.method where id < 3");

      assertThat(rows(statement, "select id, method, count, user, locale from window.rank order by id"))
          .containsExactly(List.of("1", "method", "count", "user", "language"), List.of("2", "put", "TWO", "null", "null"));
      assertThat(rows(statement, "with offset as (select method, count(*) as count from window.method group by method)"
          + " select method, count from offset where count > 0 order by method"))
          .containsExactly(List.of("get", "1"), List.of("method", "1"), List.of("put", "1"));
      assertThat(rows(statement, "select range.id, partition.method from window.method range join window.method as partition"
          + " on range.id = partition.id where range.date = 'date' or range.id = 3 order by range.id"))
          .containsExactly(List.of("1", "method"), List.of("3", "get"));
      assertThat(rows(statement, "select count(*) filter (where filter is not null), max(date) from window.method"))
          .containsExactly(List.of("1", "date"));
      assertThat(rows(statement, "select id, rank() over (order by id desc) as rank from window.method order by rank limit 1"))
          .containsExactly(List.of("3", "1"));
      try (ResultSet rs = statement.executeQuery("select " + String.join(", ", WORDS.subList(0, 6)) + " from window.method")) {
        ResultSetMetaData meta = rs.getMetaData();
        List<String> labels = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          labels.add(meta.getColumnLabel(i));
        }
        assertThat(labels).isEqualTo(WORDS.subList(0, 6));
      }

      // A schema named method; DELETE through an alias that is a keyword too.
      statement.execute("create schema method");
      statement.execute("create table method.date (position int, user varchar, time varchar)");
      statement.executeUpdate("insert into method.date (position, user, time) values (1, 'a', 't'), (2, 'b', 't')");
      assertThat(statement.executeUpdate("delete from method.date as rank where rank.position = 1")).isEqualTo(1);
      assertThat(rows(statement, "select position, user, time from method.date")).containsExactly(List.of("2", "b", "t"));
    }
  }

  @Test
  void queriesThroughTheFlightSqlClient() throws Exception {
    try (TestServer.Client client = server.client(allocator)) {
      client.sql().executeUpdate("create schema language", client.auth());
      client.sql().executeUpdate("create table language.current (timestamp timestamp, uuid varchar, start int)", client.auth());
      client.sql().executeUpdate(
          "insert into language.current values (timestamp '2024-01-01 10:00:00', 'a', 1), (timestamp '2024-01-02 10:00:00', 'b', 2)",
          client.auth());
      List<List<Object>> rows = client.rows(client.sql().execute(
          "select uuid, start from language.current where timestamp > timestamp '2024-01-01 12:00:00' order by start", client.auth()));
      assertThat(rows).hasSize(1);
      assertThat(rows.get(0).get(0).toString()).isEqualTo("b");
      assertThat(rows.get(0).get(1)).isEqualTo(2);
    }
  }

  private static Connection connect() throws Exception {
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    return DriverManager.getConnection(server.jdbcUrl(), props);
  }

  private static List<List<String>> rows(Statement statement, String sql) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    try (ResultSet rs = statement.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(String.valueOf(rs.getString(i)));
        }
        rows.add(row);
      }
    }
    return rows;
  }
}
