package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.command.CommandResult;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
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
 * Planner and execution options set per session with {@code SET}: a planner option changes the
 * plans of that session alone (EXPLAIN shows it), is part of the plan-cache key (a plan made under
 * other options is not reused, and RESET finds the first plan again), and a bad value or name is
 * INVALID_ARGUMENT with the position of what is wrong.
 */
class SessionOptionsTest {
  private static final String SQL = "select g, sum(v) from t group by g";

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "g", Types.LongType.get()), Types.NestedField.required(2, "v", Types.LongType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), schema);
    List<Record> records = new ArrayList<>();
    for (long i = 0; i < 1_000; i++) {
      Record r = GenericRecord.create(schema);
      r.setField("g", i % 10);
      r.setField("v", i);
      records.add(r);
    }
    TestTables.appendFile(table, records);
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void aPlannerOptionSetInTheSessionChangesItsPlansAndIsPartOfThePlanCacheKey() {
    assertThat(TestQueries.plan(engine, session, SQL)).contains("SqeAggregate");
    TestQueries.Result first = TestQueries.run(engine, session, SQL);
    assertThat(first.stats().planCached()).isFalse();
    assertThat(TestQueries.run(engine, session, SQL).stats().planCached()).isTrue();

    Session other = session;
    session = set("SET SESSION planner.columnar = false");
    assertThat(session.options()).containsEntry("planner.columnar", "false");
    assertThat(TestQueries.plan(engine, session, SQL)).doesNotContain("SqeAggregate").contains("Enumerable");
    TestQueries.Result rows = TestQueries.run(engine, session, SQL);
    assertThat(rows.stats().planCached()).as("a plan made under other options is not reused").isFalse();
    assertThat(rows.rows()).containsExactlyInAnyOrderElementsOf(first.rows());
    assertThat(TestQueries.run(engine, session, SQL).stats().planCached()).isTrue();
    assertThat(TestQueries.plan(engine, other, SQL)).as("other sessions keep the server's options").contains("SqeAggregate");

    session = set("RESET planner.columnar");
    assertThat(session.options()).doesNotContainKey("planner.columnar");
    assertThat(TestQueries.run(engine, session, SQL).stats().planCached()).isTrue();
    assertThat(TestQueries.plan(engine, session, SQL)).contains("SqeAggregate");
  }

  @Test
  void anExecutionOptionIsSetAndResetLikeAPlannerOne() {
    session = set("SET SESSION \"execution.long-key-join\" = false");
    assertThat(engine.executionOptions(session).longKeyJoin()).isFalse();
    session = set("RESET execution.long_key_join");
    assertThat(engine.executionOptions(session).longKeyJoin()).isTrue();
  }

  @Test
  void aSessionMayLowerTheParallelismButNotRaiseIt() {
    int server = engine.config().planner().parallelism();
    session = set("SET SESSION query.parallelism = 1");
    assertThat(engine.plannerOptions(session).parallelism()).isEqualTo(1);
    session = set("SET SESSION query.parallelism = " + (server + 1));
    assertThat(engine.plannerOptions(session).parallelism()).isEqualTo(server);
  }

  @Test
  void aBadValueOrNameIsInvalidArgument() {
    assertInvalid("SET SESSION planner.parallel_min_rows = -1", "planner.parallel-min-rows", 1, 41);
    assertInvalid("SET SESSION planner.columnar = maybe", "planner.columnar", 1, 32);
    assertInvalid("SET SESSION planner.shared_subplan_min_cost = 'many'", "planner.shared-subplan-min-cost", 1, 47);
    assertInvalid("SET SESSION query.parallelism = 0", "query.parallelism", 1, 33);
    assertInvalid("SET SESSION planner.no_such_option = 1", "planner.no_such_option", 1, 13);
    assertThat(session.options()).isEmpty();
  }

  private void assertInvalid(String sql, String named, int line, int column) {
    assertThatThrownBy(() -> set(sql))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.position()).contains(new SqeException.SqlPosition(line, column));
        })
        .hasMessageContaining(named);
  }

  /** Runs a session statement and returns the session it leaves. */
  private Session set(String sql) {
    Prepared.Command command = (Prepared.Command) engine.prepare(session, sql);
    CommandResult result = engine.run(session, command, List.of(), "set");
    return result.sessionChange().apply(session);
  }
}
