package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TpchHarness;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The read queries dbt-sqe's macros send plan on SQE's columnar operators, with no row-runtime node. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DbtQueriesPlanColumnarTest extends TpchHarness {
  static Stream<String> queries() {
    return Stream.of(
        "select 1 as id",
        "select t.table_catalog as table_database, t.table_schema as table_schema, t.table_name as table_name,"
            + " t.table_type as table_type, t.comment as table_comment, c.column_name as column_name,"
            + " c.ordinal_position as column_index, c.data_type as column_type, c.comment as column_comment,"
            + " cast(null as varchar) as table_owner from information_schema.tables as t join information_schema.columns as c"
            + " on c.table_catalog = t.table_catalog and c.table_schema = t.table_schema and c.table_name = t.table_name"
            + " where (t.table_schema ilike 'tpch') and t.table_name not like '%\\_\\_dbt\\_tmp%' escape '\\'"
            + " order by t.table_schema, t.table_name, c.ordinal_position",
        "select table_schema as \"schema\", table_name as identifier, last_altered as last_modified,"
            + " current_timestamp as snapshotted_at from information_schema.tables"
            + " where (table_schema = 'tpch' and table_name = 'orders') or (table_schema = 'tpch' and table_name = 'nation')",
        "select * from (select o_orderkey, o_totalprice from orders where o_orderdate > date '1995-01-01') as __dbt_sbq where false limit 0",
        "with items as (select l_orderkey, sum(l_quantity * p_retailprice) as amount, sum(l_quantity) as items"
            + " from lineitem join part on p_partkey = l_partkey group by l_orderkey)"
            + " select o.o_orderkey, o.o_custkey, o.o_orderdate, o.o_orderstatus, items.items, items.amount"
            + " from orders as o join items on items.l_orderkey = o.o_orderkey"
            + " where o.o_orderdate >= (select max(o_orderdate) from orders) - interval '30' day",
        "select c_custkey, c_name, count(o_orderkey) as orders, coalesce(sum(o_totalprice), 0) as total,"
            + " min(o_orderdate) as first_order, max(o_orderdate) as last_order"
            + " from customer left join orders on o_custkey = c_custkey group by c_custkey, c_name",
        "select count(*) from orders as DBT_INTERNAL_DEST where exists (select 1 from customer as DBT_INTERNAL_KEYS"
            + " where DBT_INTERNAL_KEYS.c_custkey = DBT_INTERNAL_DEST.o_custkey and DBT_INTERNAL_KEYS.c_nationkey = 3)");
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
  void plansColumnar(String sql) throws Exception {
    assertThat(explain(sql)).as(sql).doesNotContain("Enumerable");
  }
}
