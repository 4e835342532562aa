package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.Prepared;
import io.sqe.engine.command.CommandResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental models' MERGEs and INSERTs (dbt's pattern: the model's rows newer than the target's newest) run
 * by SQE and by DuckDB on the same tables, over seeded random steps that append source rows newer
 * or older than the target's newest, update and delete source rows, and delete or add the
 * target's newest rows; after each MERGE the target has DuckDB's rows. SQE answers some MERGEs
 * from the files' column bounds without reading a row ({@link EmptySource}): the test counts them
 * and the MERGEs that ran, and needs both. The seed is printed; {@code -Dsqe.test.seed} replays it.
 */
class IncrementalMergeVersusDuckDbTest {
  private static final int STEPS = Integer.getInteger("sqe.test.steps", 40);
  /** The models: target, body (the model's query) and the column and comparison of "newer". */
  private static final List<String[]> MODELS = List.of(
      new String[] {"m_plain", "select id, v, ts, t from src where v % 3 <> 0", "ts", ">"},
      new String[] {"m_joined", "select a.id, a.v + coalesce(b.w, 0) as v, a.ts, a.t from src a left join other b on a.id = b.id", "ts", ">="},
      new String[] {"m_time", "select id, v * 2 as v, ts, t from src where id % 5 <> 1", "t", ">"},
      // dbt's delete+insert strategy: one MERGE that deletes the target's rows with a newer key and inserts the newer rows.
      new String[] {"m_replace", "select id, v, ts, t from src where v % 4 <> 0", "ts", ">"},
      // A key that is no plain integer column: the MERGE is planned at execution, not by its source's key range.
      new String[] {"m_textkey", "select id, v, ts, t from src where v % 2 = 0", "ts", ">"},
      // Acts on unmatched target rows without a source row: never skipped for an empty source.
      new String[] {"m_sweep", "select id, v, ts, t from src", "ts", ">"},
      // dbt's append strategy: an INSERT of the newer rows.
      new String[] {"m_append", "select a.id, a.v, a.ts, a.t from src a join other b on a.id % 3 = b.id % 3 and b.id < 3", "ts", ">"});

  @TempDir Path dir;
  private Lakehouse lake;
  private ReferenceDuckDb duck;
  private final AtomicInteger ids = new AtomicInteger();

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    duck = new ReferenceDuckDb();
  }

  @AfterEach
  void tearDown() throws Exception {
    duck.close();
    lake.close();
  }

  @Test
  void incrementalMergesLeaveDuckDbsRows() {
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("IncrementalMergeVersusDuckDbTest seed " + seed);
    Random random = new Random(seed);
    both("create table src (id bigint, v int, ts bigint, t timestamp)");
    both("create table other (id bigint, w int)");
    appendSource(random, 40, 0, 100);
    for (int i = 0; i < 30; i += 3) {
      both("insert into other values (" + i + ", " + random.nextInt(50) + ")");
    }
    for (String[] model : MODELS) {
      both("create table " + model[0] + " as " + model[1]);
    }
    int known = 0;
    int ran = 0;
    java.util.Map<String, Integer> knownByModel = new java.util.TreeMap<>();
    for (int step = 0; step < STEPS; step++) {
      String what = mutate(random);
      for (String[] model : MODELS) {
        String newer = "(select * from (" + model[1] + ") x where " + model[2] + " " + model[3] + " (select max(" + model[2] + ") from "
            + model[0] + "))";
        String merge = switch (model[0]) {
          case "m_append" -> "insert into " + model[0] + " (id, v, ts, t) select id, v, ts, t from " + newer + " as s";
          case "m_sweep" -> "merge into " + model[0] + " as d using " + newer + " as s on (s.id = d.id)"
              + " when not matched by source and d.id % 10 = 0 then update set v = d.v + 1"
              + " when not matched then insert (id, v, ts, t) values (s.id, s.v, s.ts, s.t)";
          case "m_textkey" -> "merge into " + model[0] + " as d using " + newer + " as s"
              + " on (cast(s.id as varchar) = cast(d.id as varchar))"
              + " when matched then update set v = s.v, ts = s.ts, t = s.t"
              + " when not matched then insert (id, v, ts, t) values (s.id, s.v, s.ts, s.t)";
          case "m_replace" -> "merge into " + model[0] + " as d using " + newer + " as s on false"
              + " when not matched by source and (exists (select 1 from " + newer + " as k where k.id = d.id)) then delete"
              + " when not matched then insert (id, v, ts, t) values (s.id, s.v, s.ts, s.t)";
          default -> "merge into " + model[0] + " as d using " + newer + " as s on (s.id = d.id)"
              + " when matched then update set v = s.v, ts = s.ts, t = s.t"
              + " when not matched then insert (id, v, ts, t) values (s.id, s.v, s.ts, s.t)";
        };
        long expected = duck.update(merge);
        CommandResult result = run(merge);
        String context = "seed " + seed + ", step " + step + " (" + what + "): " + merge;
        assertThat(result.rowCount()).as(context).isEqualTo(expected);
        duck.assertSameRows(lake.table(model[0]), model[0], context);
        if (result.reuse() != null && result.reuse().detail().contains("by the data files' column bounds")) {
          assertThat(expected).as(context).isZero();
          known++;
          knownByModel.merge(model[0], 1, Integer::sum);
        } else {
          ran++;
        }
      }
    }
    System.out.println("IncrementalMergeVersusDuckDbTest: " + known + " statements known empty from bounds, " + ran + " run");
    assertThat(known).as("statements answered from the bounds").isPositive();
    assertThat(knownByModel).as("models answered from the bounds").containsKeys("m_plain", "m_replace", "m_append");
    assertThat(ran).as("statements run").isPositive();
  }

  /**
   * A source whose newer rows are aggregated with a grand total (ROLLUP) has a row even when no
   * row is newer: the MERGE is not known empty, and inserts it as DuckDB does.
   */
  @Test
  void aGrandTotalOfNoNewerRowIsStillARow() {
    both("create table src (id bigint, v int, ts bigint, t timestamp)");
    both("insert into src values (1, 5, 10, timestamp '2026-01-01 00:00:10'), (2, 6, 20, timestamp '2026-01-01 00:00:20')");
    both("create table totals as select id, v, ts, t from src");
    String merge = "merge into totals as d using (select id, cast(count(*) as int) as v, max(ts) as ts, max(t) as t from"
        + " (select * from src where ts > (select max(ts) from totals)) z group by rollup(id)) as s on (s.id = d.id)"
        + " when matched then update set v = s.v"
        + " when not matched then insert (id, v, ts, t) values (s.id, s.v, s.ts, s.t)";
    long expected = duck.update(merge);
    CommandResult result = run(merge);
    assertThat(expected).isEqualTo(1);
    assertThat(result.rowCount()).isEqualTo(expected);
    assertThat(result.reuse()).isNull();
    duck.assertSameRows(lake.table("totals"), "totals", merge);
  }

  /** One random change to the sources or targets, the same on both engines; says what it did. */
  private String mutate(Random random) {
    int kind = random.nextInt(9);
    long newest = newest();
    switch (kind) {
      case 0, 1 -> {
        return "nothing";
      }
      case 2, 3 -> {
        appendSource(random, 1 + random.nextInt(4), newest + 1, newest + 20);
        return "newer source rows";
      }
      case 4 -> {
        appendSource(random, 1 + random.nextInt(3), Math.max(0, newest - 30), newest);
        return "older source rows";
      }
      case 5 -> {
        both("update src set v = v + 1 where id % 7 = " + random.nextInt(7));
        return "source rows updated";
      }
      case 8 -> {
        // Existing keys become newer: the MERGEs update the target's rows of them.
        both("update src set ts = ts + 50, t = t + interval '50' second where id % 9 = " + random.nextInt(9));
        return "source rows made newer";
      }
      case 6 -> {
        String[] model = MODELS.get(random.nextInt(MODELS.size()));
        both("delete from " + model[0] + " where " + model[2] + " = (select max(" + model[2] + ") from " + model[0] + ")");
        return "the newest rows of " + model[0] + " deleted";
      }
      default -> {
        both("delete from src where id % 11 = " + random.nextInt(11));
        return "source rows deleted";
      }
    }
  }

  /** The largest ts of the source, or 0. */
  private long newest() {
    List<List<Object>> rows = lake.query("select max(ts) from src");
    Object max = rows.get(0).get(0);
    return max == null ? 0 : ((Number) max).longValue();
  }

  /** Appends {@code count} source rows with new ids and ts (and t, the same instant) in {@code [from, to]}. */
  private void appendSource(Random random, int count, long from, long to) {
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < count; i++) {
      long ts = from + (long) (random.nextDouble() * (to - from + 1));
      String t = "timestamp '2026-01-01 00:00:00' + interval '" + ts + "' second";
      values.append(i == 0 ? "" : ", ").append("(").append(ids.incrementAndGet()).append(", ").append(random.nextInt(100))
          .append(", ").append(ts).append(", ").append(t).append(")");
    }
    both("insert into src values " + values);
  }

  private void both(String sql) {
    duck.update(sql);
    run(sql);
  }

  private CommandResult run(String sql) {
    Prepared prepared = lake.engine.prepare(lake.session, sql);
    return lake.engine.run(lake.session, (Prepared.Command) prepared, List.of(), "q" + ids.incrementAndGet() + "-" + System.nanoTime());
  }
}
