package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.write.WritePath;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queries of typical DELETE, UPDATE and MERGE statements (dbt's incremental MERGE among them)
 * plan on SQE's columnar operators, their target's data file and row position columns included:
 * EXPLAIN shows no node of Calcite's row runtime.
 */
class RowLevelPlansColumnarTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    lake.update("create table t (id int, v int, tag varchar, amount decimal(12, 2), day date) partitioned by (tag)");
    lake.update("insert into t values (1, 10, 'a', 1.50, date '2024-01-01'), (2, 20, 'b', null, date '2024-01-02'), (3, 30, 'a', 3.25, null)");
    lake.update("insert into t values (4, 40, 'b', 4.00, date '2024-02-01'), (5, null, 'a', 5.75, date '2024-02-02')");
    lake.update("create table src (id int, v int, op varchar)");
    lake.update("insert into src values (1, 100, 'u'), (2, 200, 'd'), (6, 600, 'i')");
  }

  @AfterEach
  void tearDown() throws Exception {
    lake.close();
  }

  @Test
  void rowLevelWritesReadTheirTargetOnTheColumnarOperators() {
    List<String> statements = List.of(
        "delete from t where v > 15 and tag = 'a'",
        "delete from t where day < date '2024-02-01' or amount is null",
        "update t set v = v + 1, amount = amount * 2 where id in (1, 3, 5)",
        "update t as x set tag = 'c' where x.amount > 2",
        "merge into t using src on t.id = src.id"
            + " when matched then update set v = src.v"
            + " when not matched then insert (id, v, tag) values (src.id, src.v, 'n')",
        "merge into t using src on t.id = src.id when not matched then insert (id, v, tag) values (src.id, src.v, src.op)",
        // dbt-sqe's incremental MERGE (macros/materializations/strategies.sql).
        "merge into t as DBT_INTERNAL_DEST using (select id, v, op as tag from src) as DBT_INTERNAL_SOURCE"
            + " on (DBT_INTERNAL_SOURCE.id = DBT_INTERNAL_DEST.id)"
            + " when matched then update set v = DBT_INTERNAL_SOURCE.v, tag = DBT_INTERNAL_SOURCE.tag"
            + " when not matched then insert (id, v, tag) values (DBT_INTERNAL_SOURCE.id, DBT_INTERNAL_SOURCE.v, DBT_INTERNAL_SOURCE.tag)");
    for (String statement : statements) {
      String plan = String.join("\n", lake.query("explain " + statement).stream().map(row -> String.valueOf(row.get(0))).toList());
      assertThat(plan).as(statement).contains("SqeTableScan").doesNotContain("Enumerable");
    }
  }

  /**
   * MERGE with several WHEN MATCHED clauses, conditions and DELETE, which EXPLAIN's grammar (Calcite's
   * MERGE) does not parse: the plan its prepared command describes, as EXPLAIN would show it.
   */
  @Test
  void mergeWithConditionalClausesReadsOnTheColumnarOperators() {
    CommandContext[] captured = new CommandContext[1];
    CommandExecutor capture = (context, statement) -> {
      captured[0] = context;
      return Optional.empty();
    };
    List<CommandExecutor> executors = new ArrayList<>(List.of(capture));
    executors.addAll(WritePath.executors());
    QueryEngine engine = new QueryEngine(new Catalogs(List.of(lake.catalog), "lake"), lake.allocator, EngineConfig.DEFAULT, executors);
    List<String> statements = List.of(
        "merge into t using src on t.id = src.id"
            + " when matched and src.op = 'd' then delete"
            + " when matched then update set v = src.v, amount = t.amount + 1"
            + " when not matched and src.op = 'i' then insert (id, v, tag) values (src.id, src.v, 'n')",
        "merge into t using src on t.id = src.id when matched then delete");
    for (String statement : statements) {
      Prepared.Command command = (Prepared.Command) engine.prepare(lake.session, statement);
      String plan = String.join("\n", command.command().explain(captured[0]).orElseThrow());
      assertThat(plan).as(statement).contains("SqeTableScan").doesNotContain("Enumerable");
    }
  }
}
