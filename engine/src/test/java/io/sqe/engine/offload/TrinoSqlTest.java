package io.sqe.engine.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.TestQueries;
import io.sqe.engine.TestTables;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Trino SQL SQE writes for the forms Trino reads differently from Calcite's defaults, as
 * EXPLAIN of an offloaded query shows it (no cluster: the statement is only written). That Trino
 * runs it and answers as DuckDB does is flight-server's {@code OffloadToTrinoTest}.
 */
class TrinoSqlTest {
  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;

  @BeforeEach
  void setUp() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "k", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get()),
        Types.NestedField.optional(3, "price", Types.DecimalType.of(15, 2)),
        Types.NestedField.optional(4, "day", Types.DateType.get()),
        Types.NestedField.optional(5, "qty", Types.IntegerType.get()));
    for (String name : List.of("t", "u")) {
      Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), schema);
      Record r = GenericRecord.create(schema);
      r.setField("k", 1L);
      r.setField("name", "a");
      r.setField("price", new BigDecimal("1.50"));
      r.setField("day", LocalDate.of(1995, 1, 1));
      r.setField("qty", 3);
      TestTables.appendFile(table, List.of(r));
    }
    engine = lake.engine(EngineConfig.DEFAULT.withOffload(
        new OffloadConfig(Optional.of("http://127.0.0.1:1"), "svc", OffloadConfig.DEFAULT_MIN_SCAN_BYTES, false)));
  }

  /** The statement SQE would send Trino for {@code sql}: EXPLAIN's second row, after where it runs. */
  private String trinoSql(String sql) {
    List<List<Object>> plan = TestQueries.rows(
        engine, EmbeddedLake.session("test").withOption(OffloadConfig.SESSION_OPTION, "always"), "explain plan for " + sql);
    assertThat(plan.get(0)).containsExactly("offloaded to trino http://127.0.0.1:1");
    return plan.get(1).get(0).toString();
  }

  @Test
  void stringLiteralsHaveNoCharacterSetPrefix() {
    String sql = trinoSql("select name from s.t where name = 'ASIA' or name like '%gr''een%'");
    assertThat(sql).contains("WHERE \"name\" = 'ASIA' OR \"name\" LIKE '%gr''een%'").doesNotContain("_UTF");
  }

  @Test
  void averageOfADecimalIsTakenAtThePlansScale() {
    assertThat(trinoSql("select avg(price), avg(qty) from s.t"))
        .contains("AVG(CAST(\"price\" AS DECIMAL(38, 6)))")
        .contains("AVG(\"qty\")");
  }

  @Test
  void decimalQuotientIsTakenAtThePlansScale() {
    String sql = trinoSql("select sum(case when name = 'a' then price else 0 end) / sum(price) from s.t");
    assertThat(sql).contains("CAST(SUM(CASE WHEN \"name\" = 'a' THEN \"price\" ELSE 0.00 END) AS DECIMAL(38, ");
  }

  @Test
  void aCorrelatedSubQueryOfTheSameTableHasAnAliasOfItsOwn() {
    assertThat(trinoSql("select k from s.t where exists (select * from s.t x where x.k = t.k and x.qty <> t.qty)"))
        .contains("AS \"t\"\nWHERE EXISTS")
        .contains("AS \"t0\"\nWHERE \"k\" = \"t\".\"k\" AND \"qty\" <> \"t\".\"qty\"");
  }

  @Test
  void noTableAliasIsTheNameOfAColumn() {
    assertThat(trinoSql("select name as t, sum(qty) as total from s.t group by name order by t"))
        .contains("SELECT \"name\" AS \"t\"")
        .contains(" AS \"t0\"\n")
        .doesNotContain(" AS \"t\"\n");
  }
}
