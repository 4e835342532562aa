package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Joins of more tables than {@code query.max-reordered-joins} keep the FROM list's order, with
 * each condition pushed down into the first join that has its columns; smaller ones are reordered
 * by cost. Over the real Iceberg tables of {@link StarSchemaTables}, results checked against values
 * computed here.
 */
class JoinOrderLimitTest {
  /** The star query with two unrelated tables first in the FROM list: their join is a cartesian product. */
  private static final String STAR =
      "select count(*), sum(f_value) from small, big, fact where f_big = b_key and f_small = s_key";

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.empty();
  private final Session session = EmbeddedLake.session("test");

  @BeforeEach
  void setUp() {
    StarSchemaTables.write(lake.catalog());
  }

  @Test
  void aJoinOfNoMoreTablesThanTheLimitIsReordered() {
    QueryEngine engine = lake.engine(EngineConfig.DEFAULT.withMaxReorderedJoins(3));
    assertThat(TestQueries.plan(engine, session, STAR)).doesNotContain("NestedLoopJoin");
    assertThat(TestQueries.rows(engine, session, STAR)).isEqualTo(List.of(starResult()));
  }

  @Test
  void aJoinOfMoreTablesThanTheLimitKeepsTheFromOrder() {
    QueryEngine engine = lake.engine(EngineConfig.DEFAULT.withMaxReorderedJoins(2));
    String plan = TestQueries.plan(engine, session, STAR);
    // small x big, in the FROM list's order, has no condition of its own.
    assertThat(plan).contains("NestedLoopJoin(condition=[true]");
    assertThat(TestQueries.rows(engine, session, STAR)).isEqualTo(List.of(starResult()));
  }

  /**
   * Before the limit, the heuristic ordering of 300 tables never finished (150 ran for minutes); in
   * FROM order, 300 take seconds to plan and run. The timeout only guards against that hang.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aJoinOfThreeHundredTablesPlansInFromOrder() {
    QueryEngine engine = lake.engine();
    StringBuilder sql = new StringBuilder("select count(*), sum(t0.b_key), max(t299.b_name) from big t0");
    for (int i = 1; i < 300; i++) {
      sql.append(", big t").append(i);
    }
    sql.append(" where t0.b_key = t1.b_key");
    for (int i = 2; i < 300; i++) {
      sql.append(" and t").append(i - 1).append(".b_key = t").append(i).append(".b_key");
    }
    // Each key of big meets itself only: 200 rows, keys 0..199; "red 99" is the largest name.
    assertThat(TestQueries.rows(engine, session, sql.toString())).isEqualTo(List.of(List.of(200L, 199L * 200 / 2, "red 99")));
  }

  /** small's 10 keys each meet 600 fact rows, and each of those exactly one row of big. */
  private static List<Object> starResult() {
    long sum = 0;
    for (long id = 0; id < 6000; id++) {
      sum += id;
    }
    return List.of(6000L, sum);
  }
}
