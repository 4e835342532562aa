package io.sqe.flight.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TpchHarness;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code EXPLAIN ANALYZE} through JDBC runs the query and prints, under each columnar operator of
 * its plan, the rows it returned: the counts DuckDB gives for the same sub-results of TPC-H at
 * scale 0.01 (rows out of a filter, out of a join, groups out of an aggregate). It runs as the
 * query would for its user: a row filter cuts the rows it counts, a mask stands for its column,
 * and a table the user may not read is refused as the query is.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExplainAnalyzeTest extends TpchHarness {
  private static final String POLICY =
      """
      {
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "analyst", "schema": "tpch", "table": "customer", "privileges": ["SELECT"],
           "filter": "c_mktsegment = 'BUILDING'", "columns": [{"name": "c_phone", "mask": "'***'"}]}
        ]
      }
      """;
  private static final Pattern OUTPUT = Pattern.compile("^\\s+Output: ([\\d,]+) rows \\(.*\\), ([\\d,]+) batch(es)?, Time: .*$");

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    open(dir.resolve("data"), Map.of("security.policy-file", policy.toString()));
    server.server().authentication().users().addUser("bob", "bob-pw".toCharArray(), Set.of("analyst"));
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @Test
  void operatorRowsAreTheSubResultsDuckDbCounts() throws Exception {
    List<String> plan = explainAnalyze(sqe,
        "select o_orderpriority, count(*) from orders join customer on o_custkey = c_custkey"
            + " where c_mktsegment = 'BUILDING' group by o_orderpriority");
    assertThat(rowsOut(plan, "SqeFilter(condition=[=($1, _UTF-8'BUILDING')])"))
        .isEqualTo(duckDbCount("select count(*) from customer where c_mktsegment = 'BUILDING'"));
    assertThat(rowsOut(plan, "SqeHashJoin("))
        .isEqualTo(duckDbCount("select count(*) from orders join customer on o_custkey = c_custkey where c_mktsegment = 'BUILDING'"));
    assertThat(rowsOut(plan, "SqeAggregate("))
        .isEqualTo(duckDbCount("select count(distinct o_orderpriority) from orders join customer on o_custkey = c_custkey"
            + " where c_mktsegment = 'BUILDING'"));
    // The hash aggregate has memory of its own; its peak is shown.
    assertThat(figuresUnder(plan, "SqeAggregate(")).contains(", Memory: ");
    assertThat(plan.get(plan.size() - 1)).startsWith("-- Planning: ").contains("Output: 5 rows");
  }

  @Test
  void itRunsTheOperatorsAgainEachTimeEvenWithAResultCache() throws Exception {
    String sql = "select o_orderstatus, count(*) from orders where o_totalprice > 1000 * o_shippriority + 50000 group by o_orderstatus";
    long groups = duckDbCount("select count(distinct o_orderstatus) from orders where o_totalprice > 1000 * o_shippriority + 50000");
    for (int run = 0; run < 2; run++) {
      List<String> plan = explainAnalyze(sqe, sql);
      assertThat(rowsOut(plan, "SqeAggregate(")).as("run %d", run).isEqualTo(groups);
    }
  }

  @Test
  void aFilterAboveAScanCountsWhatItKeeps() throws Exception {
    String where = "l_quantity * 1000 < l_extendedprice and l_shipmode = 'AIR'";
    List<String> plan = explainAnalyze(sqe, "select l_orderkey, l_extendedprice from lineitem where " + where + " order by 2 desc limit 7");
    assertThat(rowsOut(plan, "SqeFilter(")).isEqualTo(duckDbCount("select count(*) from lineitem where " + where));
    assertThat(rowsOut(plan, "SqeTableScan(")).isEqualTo(duckDbCount("select count(*) from lineitem where l_shipmode = 'AIR'"));
    assertThat(plan.get(plan.size() - 1)).contains("Output: 7 rows");
  }

  @Test
  void itRunsAsTheQueryWouldForItsUser() throws Exception {
    try (Connection bob = DriverManager.getConnection(server.jdbcUrl() + "&schema=tpch&user=bob&password=bob-pw")) {
      List<String> plan = explainAnalyze(bob, "select c_custkey, c_phone from customer");
      // The row filter cuts what the scan returns, and the mask stands in the plan for the column.
      assertThat(plan.get(plan.size() - 1))
          .contains(String.format("Output: %,d rows", duckDbCount("select count(*) from customer where c_mktsegment = 'BUILDING'")));
      assertThat(String.join("\n", plan)).contains("*** AS c_phone").contains("SqePolicyBoundary");
      // A table the user may not read is one the query cannot name, as the query alone is told.
      assertThatThrownBy(() -> query(bob, "select count(*) from orders")).hasMessageContaining("Object 'orders' not found");
      assertThatThrownBy(() -> explainAnalyze(bob, "select count(*) from orders"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("Object 'orders' not found");
    }
  }

  @Test
  void aQueryOnTheRowRuntimeSaysItHasNoFigures() throws Exception {
    java.util.Properties props = new java.util.Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    try (Connection rows = DriverManager.getConnection(server.jdbcUrl() + "&schema=tpch", props)) {
      try (Statement s = rows.createStatement()) {
        s.execute("set session planner.columnar = false");
      }
      List<String> plan = explainAnalyze(rows, "select l_returnflag, count(*) from lineitem group by l_returnflag");
      assertThat(plan).anyMatch(line -> line.contains("no figures per operator"));
      assertThat(plan.get(plan.size() - 1)).contains("Output: 3 rows");
    }
  }

  private static List<String> explainAnalyze(Connection connection, String sql) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN ANALYZE " + sql)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return lines;
  }

  private static void query(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
    }
  }

  /** The figures line under the first plan line that starts (after its indentation) with {@code node}. */
  private static String figuresUnder(List<String> plan, String node) {
    for (int i = 0; i < plan.size() - 1; i++) {
      if (plan.get(i).stripLeading().startsWith(node)) {
        return plan.get(i + 1);
      }
    }
    throw new AssertionError("No " + node + " in\n" + String.join("\n", plan));
  }

  private static long rowsOut(List<String> plan, String node) {
    String figures = figuresUnder(plan, node);
    Matcher m = OUTPUT.matcher(figures);
    assertThat(m.matches()).as("figures under %s: %s\n%s", node, figures, String.join("\n", plan)).isTrue();
    return Long.parseLong(m.group(1).replace(",", ""));
  }

  private long duckDbCount(String sql) throws SQLException {
    try (Statement s = duckdb.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
