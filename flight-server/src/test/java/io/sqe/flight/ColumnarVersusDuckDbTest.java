package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TpchHarness;
import io.sqe.sample.tpch.TpchQueries;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Queries that run on SQE's columnar operators (scans, filters, computed columns, top-N, sorts,
 * hash aggregates with grouping sets and DISTINCT, joins, set operations, windows), checked
 * to plan as such and compared row by row with DuckDB reading the same Parquet files: TPC-H at
 * scale 0.01 through the Flight SQL JDBC driver.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ColumnarVersusDuckDbTest extends TpchHarness {
  static Stream<String> queries() {
    return Stream.of(
        "select * from lineitem order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, l_extendedprice - l_discount as net, l_quantity * 2 as twice from lineitem"
            + " where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, cast(l_extendedprice as double) * (1 - cast(l_discount as double)) as disc_price"
            + " from lineitem where l_discount between 0.05 and 0.07 and l_quantity < 24 order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, l_shipmode, l_returnflag from lineitem"
            + " where l_shipmode in ('MAIL', 'SHIP') and l_returnflag = 'R' order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, l_comment from lineitem where l_comment like '%regular%' order by l_orderkey desc, l_linenumber limit 500",
        "select o_orderkey, o_orderdate, o_totalprice from orders where extract(year from o_orderdate) = 1995"
            + " order by o_orderkey limit 100000",
        "select o_orderkey, case when o_orderpriority = '1-URGENT' then 'high' when o_orderpriority = '2-HIGH' then 'high' else 'low' end as p"
            + " from orders where o_orderstatus <> 'F' order by o_orderkey limit 100000",
        "select o_orderkey, o_totalprice from orders order by o_totalprice desc, o_orderkey limit 10",
        "select c_custkey, c_name, c_acctbal from customer where c_mktsegment = 'BUILDING' order by c_acctbal, c_custkey limit 25 offset 5",
        "select p_partkey, p_name, p_size from part where p_size not in (1, 5, 9, 49) and p_type like 'PROMO%'"
            + " order by p_name, p_partkey limit 300",
        "select s_suppkey, s_name, s_acctbal from supplier where s_acctbal > 5000 or s_nationkey = 3"
            + " order by s_suppkey limit 1000",
        "select n_nationkey, n_name, n_regionkey + 10 as r from nation order by n_name limit 25",
        // Hash aggregates: TPC-H Q6's filter with sums the evaluator computes, and GROUP BY on numeric keys.
        "select sum(l_extendedprice) as revenue, count(*) as n, sum(l_discount) as d from lineitem"
            + " where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' and l_discount between 0.05 and 0.07 and l_quantity < 24",
        "select l_linenumber, count(*) as n, sum(l_quantity) as q, min(l_shipdate) as first, max(l_extendedprice) as top"
            + " from lineitem group by l_linenumber order by l_linenumber limit 10",
        "select l_suppkey, l_returnflag, count(*) as n, sum(l_extendedprice) as price, min(l_comment) as c from lineitem"
            + " where l_shipdate <= date '1998-09-02' group by l_suppkey, l_returnflag order by l_suppkey, l_returnflag limit 1000",
        "select o_custkey, count(*) as n, sum(o_totalprice) as total, max(o_orderdate) as last from orders"
            + " group by o_custkey order by o_custkey limit 2000",
        "select count(*) as n, min(p_retailprice) as lo, max(p_name) as hi, sum(p_size) as s from part where p_size > 40",
        // Joins: hash joins of every shape TPC-H has, nested loops where no key is.
        "select l_orderkey, l_linenumber, o_orderdate, o_shippriority, l_extendedprice from customer, orders, lineitem"
            + " where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey"
            + " and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15' order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, n_name, l_extendedprice from customer, orders, lineitem, supplier, nation, region"
            + " where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey and c_nationkey = s_nationkey"
            + " and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'ASIA'"
            + " and o_orderdate >= date '1994-01-01' and o_orderdate < date '1995-01-01' order by l_orderkey, l_linenumber limit 100000",
        "select l_orderkey, l_linenumber, ps_supplycost, p_name from part, partsupp, lineitem"
            + " where p_partkey = ps_partkey and ps_partkey = l_partkey and ps_suppkey = l_suppkey and p_name like '%green%'"
            + " order by l_orderkey, l_linenumber limit 100000",
        "select c_custkey, o_orderkey from customer left join orders on c_custkey = o_custkey and o_comment not like '%special%requests%'"
            + " order by c_custkey, o_orderkey limit 100000",
        "select l1.l_orderkey, l1.l_linenumber, l2.l_linenumber as other from lineitem l1 join lineitem l2"
            + " on l1.l_orderkey = l2.l_orderkey and l1.l_suppkey <> l2.l_suppkey where l1.l_receiptdate > l1.l_commitdate"
            + " order by l1.l_orderkey, l1.l_linenumber, other limit 100000",
        "select c_custkey, o_orderkey from orders right join customer on o_custkey = c_custkey and o_totalprice > 300000"
            + " order by c_custkey, o_orderkey limit 100000",
        "select s_suppkey, p_partkey from supplier full join part on s_suppkey = p_partkey and p_size < 10"
            + " order by s_suppkey, p_partkey limit 100000",
        "select n_name, r_name from nation, region where n_regionkey < r_regionkey order by n_name, r_name limit 1000",
        // Sums are DECIMAL(38, s): their HAVING compares 128-bit values with the constant.
        "select l_orderkey, sum(l_quantity) as q, sum(l_extendedprice) as p from lineitem group by l_orderkey"
            + " having sum(l_quantity) > 150 and sum(l_extendedprice) <= 350000.555 or sum(l_quantity) = 12"
            + " or sum(l_extendedprice) < 2000.5 order by l_orderkey",
        "select o_custkey, sum(o_totalprice) as t from orders group by o_custkey"
            + " having sum(o_totalprice) >= 1000000.001 and sum(o_totalprice) <> 1234567.89 order by o_custkey");
  }

  /** ORDER BYs without a bound the top-N takes: SqeSort over the whole input. */
  static Stream<String> sorts() {
    return Stream.of(
        "select * from lineitem order by l_shipdate, l_orderkey, l_linenumber",
        "select l_orderkey, l_linenumber, l_shipmode, l_extendedprice from lineitem where l_shipmode in ('MAIL', 'SHIP')"
            + " order by l_shipmode, l_extendedprice desc, l_orderkey, l_linenumber",
        "select l_orderkey, l_linenumber, l_comment from lineitem order by l_comment desc, l_orderkey, l_linenumber offset 100 rows",
        "select o_orderkey, o_orderdate, o_totalprice, o_orderpriority from orders order by o_orderdate desc, o_orderpriority, o_orderkey",
        "select c_custkey, c_name, c_acctbal from customer order by c_mktsegment, c_acctbal desc, c_custkey offset 10 rows",
        "select p_partkey, p_name, p_retailprice from part order by p_retailprice, p_partkey fetch first 150000 rows only",
        "select ps_partkey, ps_suppkey, ps_supplycost from partsupp order by ps_supplycost desc, ps_partkey, ps_suppkey");
  }

  /**
   * Grouping sets, DISTINCT aggregates beside others (grouping sets too, in Calcite's plan) and set
   * operations, TPC-H- and dbt-shaped, each with the node it must plan.
   */
  static Stream<Arguments> groupingAndSetOperations() {
    return Stream.of(
        Arguments.of("SqeGroupingSets", "select n_name, y, sum(o_totalprice) as total, count(*) as n, grouping(n_name, y) as g"
            + " from (select n_name, extract(year from o_orderdate) as y, o_totalprice from orders, customer, nation"
            + " where o_custkey = c_custkey and c_nationkey = n_nationkey) as t"
            + " group by rollup(n_name, y) order by n_name nulls first, y nulls first"),
        Arguments.of("SqeGroupingSets", "select l_returnflag, l_linestatus, count(*) as n, sum(l_quantity) as q, max(l_shipdate) as last"
            + " from lineitem group by cube(l_returnflag, l_linestatus) order by l_returnflag nulls first, l_linestatus nulls first"),
        Arguments.of("SqeGroupingSets", "select c_mktsegment, count(distinct o_custkey) as customers, count(*) as orders,"
            + " sum(o_totalprice) as total from orders, customer where o_custkey = c_custkey group by c_mktsegment order by c_mktsegment"),
        Arguments.of("SqeGroupingSets", "select o_orderpriority, count(distinct o_custkey) as customers, count(distinct o_clerk) as clerks,"
            + " min(o_orderdate) as first from orders group by o_orderpriority order by o_orderpriority"),
        Arguments.of("SqeSetOperation", "select c_custkey from customer except select o_custkey from orders order by c_custkey"),
        Arguments.of("SqeSetOperation", "select o_custkey from orders where o_orderpriority = '1-URGENT'"
            + " except all select o_custkey from orders where o_orderstatus = 'F' order by o_custkey"),
        Arguments.of("SqeSetOperation", "select o_custkey from orders where o_orderpriority = '1-URGENT'"
            + " intersect all select o_custkey from orders where o_orderstatus = 'F' order by o_custkey"),
        Arguments.of("SqeSetOperation", "select n_regionkey, n_name from nation union select r_regionkey, r_name from region"
            + " order by n_regionkey, n_name"));
  }

  /** Window functions: SqeWindow over a sort per window group. */
  static Stream<Arguments> windows() {
    return Stream.of(
        Arguments.of("SqeWindow", "select c_nationkey, c_custkey, revenue, rank() over (partition by c_nationkey order by revenue desc) as rnk,"
            + " dense_rank() over (partition by c_nationkey order by revenue desc) as dense from (select c_nationkey, c_custkey,"
            + " sum(o_totalprice) as revenue from customer join orders on c_custkey = o_custkey group by c_nationkey, c_custkey) t"
            + " order by c_nationkey, rnk, c_custkey"),
        Arguments.of("SqeWindow", "select o_custkey, o_orderkey, sum(o_totalprice) over (partition by o_custkey order by o_orderdate, o_orderkey) as running,"
            + " count(*) over (partition by o_custkey) as orders_of_customer from orders order by o_custkey, o_orderdate, o_orderkey"),
        Arguments.of("SqeWindow", "select l_orderkey, l_linenumber, row_number() over (partition by l_suppkey order by l_shipdate, l_orderkey, l_linenumber) as rn,"
            + " lag(l_extendedprice) over (partition by l_suppkey order by l_shipdate, l_orderkey, l_linenumber) as prev"
            + " from lineitem order by l_orderkey, l_linenumber limit 100000"),
        Arguments.of("SqeWindow", "select o_orderkey, avg(o_totalprice) over (order by o_orderkey rows between 2 preceding and 2 following) as moving,"
            + " max(o_orderdate) over (partition by o_orderpriority order by o_orderkey rows between unbounded preceding and current row) as latest,"
            + " ntile(10) over (order by o_orderkey) as decile, first_value(o_clerk) over (partition by o_custkey order by o_orderkey) as first_clerk"
            + " from orders order by o_orderkey"));
  }

  /**
   * TPC-H queries whose plans lower whole with parallel parts: their joins' build sides shared by
   * the parts, their repeated subplans computed once.
   */
  static Stream<Integer> tpchQueries() {
    return Stream.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 22);
  }

  /** TPC-H queries whose plans lower whole but that the parallel planner does not split into parts. */
  static Stream<Integer> serialTpchQueries() {
    // Q16: its NOT IN is a nested-loop join with a one-row count above the joins of the scans.
    return Stream.of(16);
  }

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    open(dir, Map.of());
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  @ParameterizedTest
  @MethodSource("queries")
  void plansColumnarAndMatchesDuckDb(String sql) throws Exception {
    assertThat(plan(sqe, sql)).as(sql).contains("SqeTableScan").doesNotContain("Enumerable");
    compare(sql, sql);
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("tpchQueries")
  void tpchPlansColumnarInPartsAndMatchesDuckDb(int query) throws Exception {
    String sql = TpchQueries.query(query);
    Connection serial = sqe;
    Properties props = new Properties();
    props.put("user", TestServer.ADMIN);
    props.put("password", server.adminPassword());
    // Scale 0.01's tables split into parts as scale 1's do by default.
    try (Connection parallel = DriverManager.getConnection(server.jdbcUrl() + "&schema=tpch", props)) {
      try (Statement s = parallel.createStatement()) {
        s.execute("set session query.parallelism = 2");
        s.execute("set session planner.parallel_min_rows = 1000");
      }
      assertThat(plan(parallel, sql)).as("Q%d", query).contains("SqeGather").doesNotContain("Enumerable").doesNotContain("SharedInput");
      sqe = parallel;
      compare("Q" + query, sql);
    } finally {
      sqe = serial;
    }
  }

  @ParameterizedTest(name = "Q{0}")
  @MethodSource("serialTpchQueries")
  void tpchPlansColumnarAndMatchesDuckDb(int query) throws Exception {
    String sql = TpchQueries.query(query);
    assertThat(plan(sqe, sql)).as("Q%d", query).contains("SqeTableScan").doesNotContain("Enumerable");
    compare("Q" + query, sql);
  }

  /** Decimal arithmetic past 18 digits, which the batch evaluator computes in 128 bits. */
  static Stream<String> wideDecimals() {
    return Stream.of(
        "select l_orderkey, l_linenumber, l_extendedprice * (1 - l_discount) * (1 + l_tax) as charge,"
            + " l_extendedprice * (1 - l_discount) - l_quantity * l_tax as margin from lineitem order by l_orderkey, l_linenumber limit 100000",
        "select l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as charge,"
            + " sum(cast(l_extendedprice as decimal(38, 2)) * l_quantity * l_tax * 1000000000) as big, sum(-l_extendedprice * (l_tax - 1)) as negated"
            + " from lineitem group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus");
  }

  @ParameterizedTest
  @MethodSource("wideDecimals")
  void wideDecimalArithmeticRunsOnBatchesAndMatchesDuckDb(String sql) throws Exception {
    assertThat(plan(sqe, sql)).as(sql).contains("SqeProject").doesNotContain("Enumerable").doesNotContain("rowwise");
    compare(sql, sql);
  }

  /** SUBSTRING with constant bounds, computed and compared on the batches' bytes (TPC-H Q22's country codes). */
  static Stream<String> substrings() {
    return Stream.of(
        "select c_custkey, substring(c_phone from 1 for 2) as cc, substring(c_name from 10 for 4) as tail from customer"
            + " where substring(c_phone from 1 for 2) in ('13', '31', '23', '29') and substring(c_address from 2 for 3) >= 'M'"
            + " order by c_custkey",
        "select substring(o_orderpriority from 3 for 20) as p, count(*) as n from orders"
            + " where substring(o_clerk from 7 for 3) = '000' or substring(o_comment from 0 for 3) < 'c' group by substring(o_orderpriority from 3 for 20) order by p");
  }

  @ParameterizedTest
  @MethodSource("substrings")
  void substringsRunOnBatchesAndMatchDuckDb(String sql) throws Exception {
    assertThat(plan(sqe, sql)).as(sql).contains("SqeFilter").doesNotContain("Enumerable").doesNotContain("rowwise");
    compare(sql, sql);
  }

  @ParameterizedTest
  @MethodSource("sorts")
  void sortsPlanColumnarAndMatchDuckDb(String sql) throws Exception {
    assertThat(plan(sqe, sql)).as(sql).contains("SqeSort").doesNotContain("Enumerable");
    compare(sql, sql);
  }

  @ParameterizedTest
  @MethodSource({"groupingAndSetOperations", "windows"})
  void groupingSetsSetOperationsAndWindowsPlanColumnarAndMatchDuckDb(String node, String sql) throws Exception {
    assertThat(plan(sqe, sql)).as(sql).contains(node).doesNotContain("Enumerable");
    compare(sql, sql);
  }

  /** The plan EXPLAIN gives for {@code sql} on {@code connection}, one node per line. */
  private static String plan(Connection connection, String sql) throws java.sql.SQLException {
    StringBuilder plan = new StringBuilder();
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("explain plan for " + sql)) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }
}
