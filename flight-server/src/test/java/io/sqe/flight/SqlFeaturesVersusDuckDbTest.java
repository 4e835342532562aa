package io.sqe.flight;

import io.sqe.flight.testing.TpchHarness;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SQL the Foundation promises, each feature in a query over TPC-H data whose answer must equal
 * DuckDB's over the same Parquet files. Every query orders its rows completely.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SqlFeaturesVersusDuckDbTest extends TpchHarness {
  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    open(dir, Map.of());
  }

  @AfterAll
  void stop() throws Exception {
    close();
  }

  static Stream<Arguments> queries() {
    return Stream.of(
        // joins of every kind
        q("inner join", "select n_name, r_name from nation join region on n_regionkey = r_regionkey order by n_name"),
        q("left join", "select c_custkey, o_orderkey from customer left join orders on c_custkey = o_custkey where c_custkey < 12 order by c_custkey, o_orderkey"),
        q("right join", "select o_orderkey, c_custkey from orders right join (select * from customer where c_custkey < 12) c on c.c_custkey = o_custkey order by c_custkey, o_orderkey"),
        q("full join", "select c.c_custkey, o.o_orderkey from (select * from customer where c_custkey < 30) c full outer join (select * from orders where o_orderkey < 300) o on c.c_custkey = o.o_custkey order by 1 nulls last, 2 nulls last"),
        q("cross join", "select count(*) from nation cross join region"),
        q("non-equi join", "select count(*) from nation a join nation b on a.n_nationkey < b.n_nationkey and a.n_regionkey = b.n_regionkey"),
        q("self join with using", "select a.n_name, b.n_name from nation a join nation b using (n_regionkey) where a.n_nationkey < 3 order by 1, 2"),
        // aggregates
        q("group by having", "select o_custkey, count(*), sum(o_totalprice), min(o_orderdate), max(o_orderdate) from orders group by o_custkey having count(*) > 25 order by 1"),
        q("count distinct", "select o_orderstatus, count(distinct o_custkey), count(*) from orders group by o_orderstatus order by 1"),
        q("aggregate filter", "select count(*) filter (where o_orderstatus = 'F'), count(*) from orders"),
        q("avg and stddev", "select l_returnflag, avg(l_quantity), stddev_samp(l_quantity), var_pop(l_discount) from lineitem group by l_returnflag order by 1"),
        q("grouping sets", "select n_regionkey, n_name, count(*) from nation group by grouping sets ((n_regionkey), (n_name), ()) order by 1 nulls first, 2 nulls first"),
        q("rollup", "select r_name, n_name, count(*) from nation join region on n_regionkey = r_regionkey group by rollup (r_name, n_name) order by 1 nulls last, 2 nulls last"),
        q("cube", "select o_orderstatus, o_orderpriority, count(*) from orders group by cube (o_orderstatus, o_orderpriority) order by 1 nulls last, 2 nulls last"),
        q("distinct", "select distinct o_orderpriority from orders order by 1"),
        // window functions
        q("row_number and running sum", "select o_custkey, o_orderkey, row_number() over (partition by o_custkey order by o_orderdate, o_orderkey), sum(o_totalprice) over (partition by o_custkey order by o_orderdate, o_orderkey rows between unbounded preceding and current row) from orders where o_custkey < 20 order by o_custkey, o_orderkey"),
        q("rank lag lead", "select n_nationkey, rank() over (partition by n_regionkey order by n_name), dense_rank() over (order by n_regionkey), lag(n_name) over (order by n_nationkey), lead(n_name, 2) over (order by n_nationkey) from nation order by n_nationkey"),
        q("window without order", "select n_nationkey, count(*) over (partition by n_regionkey), max(n_name) over () from nation order by n_nationkey"),
        q("ntile and first_value", "select n_nationkey, ntile(4) over (order by n_nationkey), first_value(n_name) over (partition by n_regionkey order by n_nationkey) from nation order by n_nationkey"),
        // sub-queries and CTEs
        q("scalar sub-query", "select n_name, (select r_name from region where r_regionkey = n_regionkey) from nation order by n_name"),
        q("correlated not exists", "select c_custkey from customer c where not exists (select 1 from orders o where o.o_custkey = c.c_custkey) and c_custkey < 100 order by 1"),
        q("correlated scalar", "select o_orderkey from orders o where o_totalprice > (select avg(o2.o_totalprice) * 2.5 from orders o2 where o2.o_custkey = o.o_custkey) order by 1"),
        q("in sub-query", "select count(*) from orders where o_custkey in (select c_custkey from customer where c_mktsegment = 'BUILDING')"),
        q("not in sub-query", "select count(*) from customer where c_custkey not in (select o_custkey from orders)"),
        q("cte", "with t as (select o_custkey, count(*) as c from orders group by o_custkey) select c, count(*) from t group by c order by c"),
        q("nested cte", "with a as (select n_regionkey k, count(*) c from nation group by n_regionkey), b as (select k, c * 2 as d from a) select k, d from b where d > 8 order by k"),
        // set operations
        q("union", "select n_regionkey from nation union select r_regionkey + 10 from region order by 1"),
        q("union all", "select count(*) from (select n_regionkey from nation union all select r_regionkey from region) x"),
        q("intersect", "select n_regionkey from nation intersect select r_regionkey from region where r_regionkey < 3 order by 1"),
        q("except", "select n_nationkey from nation except select n_nationkey from nation where n_regionkey = 1 order by 1"),
        q("intersect all", "select n_regionkey from nation intersect all select n_regionkey from nation where n_nationkey < 12 order by 1"),
        q("except all", "select n_regionkey from nation except all select n_regionkey from nation where n_nationkey < 12 order by 1"),
        // dbt's check that two relations hold the same rows
        q("set operations in a sub-query", "select count(*) from ((select n_regionkey from nation except select r_regionkey from region where r_regionkey < 2) union all (select r_regionkey from region intersect select n_regionkey from nation where n_nationkey > 20)) as a"),
        // ordering and paging
        q("nulls first", "select c_custkey, o_orderkey from customer left join orders on c_custkey = o_custkey where c_custkey < 10 order by o_orderkey desc nulls first, c_custkey"),
        q("nulls last", "select c_custkey, o_orderkey from customer left join orders on c_custkey = o_custkey where c_custkey < 10 order by o_orderkey asc nulls last, c_custkey"),
        q("limit offset", "select o_orderkey from orders order by o_orderkey limit 5 offset 10"),
        q("order by expression", "select n_name from nation order by length(n_name) desc, n_name limit 7"),
        // expressions
        q("case", "select case when o_totalprice > 200000 then 'high' when o_totalprice > 100000 then 'mid' else 'low' end as band, count(*) from orders group by 1 order by 1"),
        q("simple case", "select n_nationkey, case n_regionkey when 0 then 'zero' when 1 then 'one' else 'many' end from nation order by 1"),
        q("coalesce nullif", "select c_custkey, coalesce(o_orderkey, -1), nullif(c_nationkey, 0) from customer left join orders on c_custkey = o_custkey where c_custkey < 8 order by 1, 2"),
        q("between and in", "select count(*) from lineitem where l_quantity between 10 and 20 and l_shipmode in ('MAIL', 'SHIP')"),
        q("like", "select count(*) from part where p_name like '%green%' and p_type not like 'PROMO%'"),
        q("cast", "select o_orderkey, cast(o_totalprice as double), cast(o_orderdate as varchar), cast(o_orderkey as varchar), cast('42' as bigint), cast(o_custkey as decimal(10, 2)) from orders order by o_orderkey limit 5"),
        q("try_cast", "select try_cast('x' as integer), try_cast('12' as integer), try_cast(o_orderstatus as integer) from orders order by o_orderkey limit 3"),
        q("values", "select * from (values (1, 'a'), (2, 'b'), (3, null)) as t(x, y) order by x"),
        // string functions
        q("upper lower length", "select upper(n_name), lower(n_name), char_length(n_name), length(n_name) from nation order by n_nationkey"),
        q("substring position", "select substring(n_name from 2 for 3), substring(n_name, 1, 2), position('A' in n_name), strpos(n_name, 'N') from nation order by n_nationkey"),
        q("trim replace concat", "select trim('  x  '), ltrim('  y'), rtrim('z  '), replace(n_name, 'A', 'a'), n_name || '-' || cast(n_nationkey as varchar), concat(n_name, '/', r_name) from nation join region on n_regionkey = r_regionkey order by n_nationkey"),
        q("split_part with a literal delimiter", "select split_part(n_comment, '.', 1), split_part(n_name || '|x|y', '|', 3), split_part(n_name || '*' || r_name, '*', 2), split_part(n_comment, ' ', -1), split_part(n_name, 'A', 9) from nation join region on n_regionkey = r_regionkey order by n_nationkey"),
        q("right over columns", "select right(n_name, n_regionkey), right(n_name, 0) from nation order by n_nationkey"),
        q("pad left right split", "select lpad(n_name, 12, '*'), rpad(n_name, 12, '.'), left(n_name, 3), right(n_name, 2), split_part(n_comment, ' ', 2) from nation order by n_nationkey"),
        // (DuckDB's SIMILAR TO is a plain regular expression, not the SQL standard's, so it is not compared.)
        // Anchored: SQE's regexp_replace replaces every match (Trino), DuckDB's only the first.
        q("regexp", "select regexp_replace(n_name, '^[AEIOU]', '_'), n_name like '%IA' from nation order by n_nationkey"),
        // math functions
        q("math", "select abs(-o_totalprice), ceil(o_totalprice), floor(o_totalprice), round(o_totalprice / 7, 2), mod(o_orderkey, 7), sign(o_totalprice - 100000) from orders order by o_orderkey limit 10"),
        q("math double", "select sqrt(o_totalprice), power(o_orderkey, 2), exp(1.0), ln(o_totalprice), log10(o_totalprice) from orders order by o_orderkey limit 10"),
        q("greatest least", "select greatest(l_quantity, l_discount * 100, l_tax * 100), least(l_shipdate, l_commitdate, l_receiptdate) from lineitem order by l_orderkey, l_linenumber limit 10"),
        // Integer division truncates, as in Trino and PostgreSQL (DuckDB's / is floating point; its // is not).
        q("arithmetic", "select cast(o_orderkey as double) / 7, o_orderkey * 3 - 2, o_totalprice * 1.5, o_totalprice / 3 from orders order by o_orderkey limit 10"),
        // dates and times
        q("extract", "select extract(year from o_orderdate), extract(month from o_orderdate), extract(day from o_orderdate), extract(quarter from o_orderdate) from orders order by o_orderkey limit 10"),
        // A date plus an interval is a date (SQL standard, Trino); DuckDB makes it a timestamp, hence the casts.
        q("date arithmetic", "select cast(o_orderdate + interval '1' month as date), cast(o_orderdate - interval '7' day as date), cast(o_orderdate + interval '1' year as date) from orders order by o_orderkey limit 10"),
        q("month end arithmetic", "select cast(date '1995-01-31' + interval '1' month as date), cast(date '1996-02-29' + interval '1' year as date)"),
        q("date comparisons", "select count(*) from lineitem where l_shipdate >= date '1995-01-01' and l_shipdate < date '1995-01-01' + interval '3' month"),
        q("timestamps", "select cast(o_orderdate as timestamp), cast(o_orderdate as timestamp) + interval '90' minute, cast('2024-03-01 10:15:30' as timestamp) from orders order by o_orderkey limit 5"),
        q("date trunc", "select date_trunc('month', o_orderdate), date_trunc('year', o_orderdate), count(*) from orders group by 1, 2 order by 1 limit 12"),
        q("date trunc week", "select date_trunc('week', o_orderdate), count(*) from orders group by 1 order by 1 limit 12"),
        q("timestamp microseconds", "select cast('1999-12-31 23:59:59.999999' as timestamp), datediff('microsecond', cast('1999-12-31 23:59:59.999999' as timestamp), cast('2000-01-01 00:00:00' as timestamp)), datediff('microsecond', cast(o_orderdate as timestamp), cast(o_orderdate as timestamp) + interval '90' minute) from orders order by o_orderkey limit 5"),
        q("date diff", "select datediff('day', l_shipdate, l_receiptdate), count(*) from lineitem group by 1 order by 1"));
  }

  private static Arguments q(String name, String sql) {
    return Arguments.of(name, sql);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesDuckDb(String name, String sql) throws Exception {
    compare(name, sql);
  }
}
