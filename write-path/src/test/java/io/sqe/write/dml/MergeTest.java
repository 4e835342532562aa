package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SortedSet;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MERGE against DuckDB running the same statements on copies of the same tables: each MERGE must
 * report DuckDB's row count and leave the target with DuckDB's rows, as Iceberg's reader and
 * DuckDB's Parquet reader both see it. Cardinality errors, which DuckDB does not raise, are
 * checked against the snapshot and the files on disk.
 */
class MergeTest {
  /** The target: several data files in two partitions, NULL and duplicate keys, nested columns. */
  private static final List<String> TARGET_ROWS = List.of(
      "(1, 10, 'a', row(1, 'x1'), array[1, 2], map['k', 1, 'j', 2]), (2, 20, 'a', null, array[3], null), (3, 30, 'b', row(3, null), null, map['z', 0])",
      "(4, 40, 'b', row(4, 'x4'), array[4, cast(null as int)], map['k', 4]), (5, 50, 'a', row(5, 'x5'), array[5], map['k', 5]), (null, 60, 'a', row(6, 'x6'), array[6], map['k', 6])",
      "(7, 70, 'b', row(7, 'x7'), array[7, 7], null), (7, 71, 'a', row(71, 'x71'), null, map['q', 71]), (null, 80, 'b', null, null, null)",
      "(9, 90, 'a', row(9, 'x9'), array[9], map['k', 9]), (10, -5, 'b', row(10, 'x10'), array[10], map['k', 10]), (11, 110, 'a', null, array[11], null)");
  private static final List<String> SOURCE_ROWS = List.of(
      "(1, 100, 'u', row(100, 's1'), array[100]), (2, 200, 'd', row(200, 's2'), array[200]), (3, 5, 'u', row(300, 's3'), array[300])",
      "(5, 500, 'x', null, null), (7, 700, 'u', row(700, 's7'), array[700, 701]), (12, 1200, 'i', row(1200, 's12'), array[1200])",
      "(13, 13, 'i', row(13, 's13'), null), (14, 1400, 'x', null, array[14]), (null, 999, 'i', row(999, 'snull'), array[999])");

  @TempDir Path dir;
  private Lakehouse lake;
  private ReferenceDuckDb duck;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    duck = new ReferenceDuckDb();
    lake.update("create table t (id int, v int, tag varchar, s row(a int, b varchar), l array(int), m map(varchar, int))"
        + " partitioned by (tag)");
    TARGET_ROWS.forEach(rows -> lake.update("insert into t values " + rows));
    lake.update("create table src (id int, v int, op varchar, s row(a int, b varchar), l array(int))");
    SOURCE_ROWS.forEach(rows -> lake.update("insert into src values " + rows));
    duck.copy(lake.table("t"), "t");
    duck.copy(lake.table("src"), "src");
    assertThat(Lakehouse.dataFiles(lake.table("t"))).hasSizeGreaterThan(4);
    duck.assertSameRows(lake.table("t"), "t", "the inserts");
  }

  @AfterEach
  void tearDown() throws Exception {
    duck.close();
    lake.close();
  }

  @Test
  void sourceIsATableASubqueryOrAWithQuery() {
    mergeLikeDuckDb("merge into t using src on t.id = src.id"
        + " when matched then update set v = src.v, s = src.s"
        + " when not matched then insert (id, v, tag, s, l) values (src.id, src.v, 'new', src.s, src.l)");
    mergeLikeDuckDb("merge into t as x using (select id, v * 2 as v, op from src where op <> 'x') as y on x.id = y.id"
        + " when matched and y.op = 'd' then delete"
        + " when matched then update set v = x.v + y.v, tag = 'b'");
    mergeLikeDuckDb("merge into t using (with big as (select id, v, l from src where v > 100), small as (select id from src where v <= 100)"
        + " select big.id, big.v, big.l from big union all select small.id, 0, null from small) z on t.id = z.id"
        + " when matched and z.v = 0 then update set v = 0, l = z.l"
        + " when not matched by source and t.tag = 'a' then update set tag = 'b'"
        + " when not matched and z.id > 12 then insert (id, v, l) values (z.id, z.v, z.l)");
  }

  @Test
  void clausesApplyInTheirOrderFirstMatchingWins() {
    List<String> conditional = List.of(
        " when matched and src.op = 'd' then delete",
        " when matched and src.v > 150 then update set v = src.v, tag = 'b'",
        " when matched and src.v > 100 then delete",
        " when not matched and src.v > 1000 then insert (id, v, tag) values (src.id, src.v, 'big')",
        " when not matched and src.op = 'i' then insert (id, v, tag, l) values (src.id, src.v, 'i', src.l)",
        " when not matched by source and t.v < 60 then delete",
        " when not matched by source and t.tag = 'b' then update set v = -2");
    // DuckDB moves an unconditional clause behind the conditional ones of its kind, so for it to
    // be a reference they come last here; unconditionalClauseHidesTheLaterOnes covers the rest.
    List<String> unconditional = List.of(
        " when matched then update set v = t.v + src.v, l = src.l",
        " when not matched then insert (id, v, s) values (src.id, -1, src.s)",
        " when not matched by source then update set v = 0, m = null");
    Random random = new Random(7);
    for (int order = 0; order < 6; order++) {
      List<String> chosen = new ArrayList<>(conditional);
      Collections.shuffle(chosen, random);
      // Leave some clauses out, so that the rows they would catch reach later ones or none.
      chosen = chosen.subList(0, order < 2 ? chosen.size() : 2 + random.nextInt(chosen.size() - 2));
      chosen = new ArrayList<>(chosen);
      for (String clause : unconditional) {
        if (order < 2 || random.nextBoolean()) {
          chosen.add(clause);
        }
      }
      String copy = "t" + order;
      lake.update("create table " + copy + " partitioned by (tag) as select * from t");
      duck.update("create table " + copy + " as select * from t");
      mergeLikeDuckDb("merge into " + copy + " as t using src on t.id = src.id" + String.join("", chosen), copy);
    }
  }

  @Test
  void unconditionalClauseHidesTheLaterOnes() {
    assertThat(lake.update("merge into t using src on t.id = src.id"
        + " when matched then update set v = -1"
        + " when matched and src.op = 'd' then delete"
        + " when not matched then insert (id, v) values (src.id, -1)"
        + " when not matched and src.v > 1000 then insert (id, v) values (src.id, 1000)"
        + " when not matched by source then update set tag = 'gone'"
        + " when not matched by source and t.v > 0 then delete")).isEqualTo(16);
    assertThat(Lakehouse.records(lake.table("t")))
        .extracting(r -> r.getField("id") + " " + r.getField("v") + " " + r.getField("tag"))
        .containsExactlyInAnyOrder(
            "1 -1 a", "2 -1 a", "3 -1 b", "4 40 gone", "5 -1 a", "null 60 gone", "7 -1 b", "7 -1 a", "null 80 gone",
            "9 90 gone", "10 -5 gone", "11 110 gone", "12 -1 null", "13 -1 null", "14 -1 null", "null -1 null");
  }

  @Test
  void nullKeysNeverMatch() {
    mergeLikeDuckDb("merge into t using src on t.id = src.id"
        + " when matched then update set v = src.v"
        + " when not matched then insert (id, v, tag) values (src.id, src.v, 'ins')"
        + " when not matched by source then update set tag = 'orphan'");
    // The NULL-keyed target rows were not matched by the NULL-keyed source row; that row was inserted.
    assertThat(Lakehouse.records(lake.table("t")))
        .filteredOn(r -> r.getField("id") == null)
        .extracting(r -> r.getField("v") + " " + r.getField("tag"))
        .containsExactlyInAnyOrder("60 orphan", "80 orphan", "999 ins");
  }

  @Test
  void nestedColumnsPassThroughUnchanged() {
    List<List<Object>> before = lake.query("select id, v, t.s, l, m from t where id in (4, 9, 10) order by id");
    assertThat(lake.update("update t set v = v + 1 where id in (4, 9, 10)")).isEqualTo(3);
    duck.update("update t set v = v + 1 where id in (4, 9, 10)");
    duck.assertSameRows(lake.table("t"), "t", "an update of other columns");
    assertThat(lake.update("delete from t where id in (1, 2, 3)")).isEqualTo(3);
    duck.update("delete from t where id in (1, 2, 3)");
    duck.assertSameRows(lake.table("t"), "t", "a delete of other rows");
    mergeLikeDuckDb("merge into t using src on t.id = src.id"
        + " when matched then update set v = src.v"
        + " when not matched then insert (id, s, l) values (src.id, src.s, src.l)");
    List<List<Object>> after = lake.query("select id, v - 1, t.s, l, m from t where id in (4, 9, 10) order by id");
    assertThat(after).isEqualTo(before);
    mergeLikeDuckDb("merge into t using src on t.id = src.id when matched then update set s = src.s, l = src.l");
  }

  @Test
  void aTargetRowMatchedTwiceFailsAndWritesNothing() {
    lake.update("insert into src values (7, 1, 'u', null, null)");
    Table table = lake.table("t");
    long snapshot = table.currentSnapshot().snapshotId();
    SortedSet<String> files = Lakehouse.filesOnDisk(table);
    List<String> rows = ReferenceDuckDb.icebergRows(table);
    // Fails even when the clause that would apply is false for the duplicate pair, and when
    // other clauses insert rows first.
    for (String merge : List.of(
        "merge into t using src on t.id = src.id when matched then update set v = src.v",
        "merge into t using src on t.id = src.id when matched and src.v > 5000 then delete",
        "merge into t using src on t.id = src.id when not matched then insert (id) values (src.id)"
            + " when matched then update set v = 0",
        "merge into t using src on t.id = src.id when matched and src.op = 'd' then delete when matched then delete")) {
      assertThatThrownBy(() -> lake.update(merge))
          .as(merge)
          .isInstanceOfSatisfying(SqeException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("matched one target row with more than one source row").contains("nothing was written");
          });
      Table now = lake.table("t");
      assertThat(now.currentSnapshot().snapshotId()).as(merge).isEqualTo(snapshot);
      assertThat(Lakehouse.filesOnDisk(now)).as(merge).isEqualTo(files);
      assertThat(ReferenceDuckDb.icebergRows(now)).as(merge).isEqualTo(rows);
    }
    // A lone unconditional DELETE means the same whichever source row matched, and a MERGE
    // that only inserts never touches matched rows: both are allowed.
    duck.copy(lake.table("src"), "src");
    mergeLikeDuckDb("merge into t using src on t.id = src.id when not matched then insert (id, v) values (src.id, src.v)");
    String delete = "merge into t using src on t.id = src.id when matched then delete";
    long matched = ReferenceDuckDb.icebergRows(lake.table("t")).size();
    duck.update(delete);
    // Each deleted row counts once (DuckDB counts it once per matching source row).
    long deleted = lake.update(delete);
    duck.assertSameRows(lake.table("t"), "t", delete);
    assertThat(deleted).isEqualTo(matched - ReferenceDuckDb.icebergRows(lake.table("t")).size()).isEqualTo(9);
  }

  private void mergeLikeDuckDb(String merge) {
    mergeLikeDuckDb(merge, "t");
  }

  private void mergeLikeDuckDb(String merge, String target) {
    long expected = duck.update(merge);
    assertThat(lake.update(merge)).as("row count of %s", merge).isEqualTo(expected);
    duck.assertSameRows(lake.table(target), target, merge);
  }
}
