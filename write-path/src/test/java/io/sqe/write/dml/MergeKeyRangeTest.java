package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.Prepared;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MERGE narrows its target scan to its source's key range (min and max of the source column each
 * integer target key equals in ON), found at execution: files outside the range are not read. The
 * proof is a data file deleted from disk: a MERGE whose source keys lie elsewhere succeeds, one
 * that must read every target row (WHEN NOT MATCHED BY SOURCE) fails on the missing file.
 */
class MergeKeyRangeTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "v", Types.IntegerType.get()));

  @TempDir Path dir;
  private Lakehouse lake;
  private ReferenceDuckDb duck;

  @BeforeEach
  void setUp() throws Exception {
    lake = new Lakehouse(dir);
    duck = new ReferenceDuckDb();
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 200; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("v", (int) id);
      rows.add(r);
    }
    // Twenty files of ten rows each: ids 0-9, 10-19, ...
    lake.create("t", SCHEMA, PartitionSpec.unpartitioned(), rows, 10);
    lake.update("create table src (id bigint, v int)");
    lake.update("insert into src values (150, -150), (151, -151), (158, -158), (500, -500)");
    duck.copy(lake.table("t"), "t");
    duck.copy(lake.table("src"), "src");
    // The file with ids 0-9 is gone from disk: reading it fails.
    Table t = lake.table("t");
    DataFile first = Lakehouse.dataFiles(t).stream()
        .filter(f -> Lakehouse.fileRecords(t, f).stream().anyMatch(r -> ((Long) r.getField("id")) == 0L))
        .findFirst()
        .orElseThrow();
    Files.delete(Path.of(first.location().replaceFirst("^file:", "")));
  }

  @AfterEach
  void tearDown() throws Exception {
    duck.close();
    lake.close();
  }

  @Test
  void aMergeReadsOnlyTheFilesInItsSourcesKeyRange() {
    String merge = "merge into t using src on t.id = src.id"
        + " when matched then update set v = src.v"
        + " when not matched then insert values (src.id, src.v)";
    long expected = duck.update(merge);
    assertThat(lake.update(merge)).isEqualTo(expected).isEqualTo(4);
    Table after = lake.table("t");
    assertThat(after.currentSnapshot().summary()).containsEntry("deleted-data-files", "1");
    // The rows of the missing file are still in the table's metadata, so compare the others.
    assertSameSurvivingRows();
  }

  @Test
  void aSourceThatReadsTheTargetAndAnInnerJoinAreNarrowedToo() {
    String merge = "merge into t as x using (select id, v + 1000 as v from t where id between 100 and 104) as y"
        + " on y.id = x.id when matched then update set v = y.v";
    long expected = duck.update(merge);
    assertThat(lake.update(merge)).isEqualTo(expected).isEqualTo(5);
    assertSameSurvivingRows();
  }

  @Test
  void anEmptySourceReadsNoTargetFile() {
    assertThat(lake.update("merge into t using (select * from src where id < 0) s on t.id = s.id"
        + " when matched then delete when not matched then insert values (s.id, s.v)")).isZero();
  }

  @Test
  void unmatchedTargetRowsNeedTheWholeTable() {
    long snapshot = lake.table("t").currentSnapshot().snapshotId();
    assertThatThrownBy(() -> lake.update("merge into t using src on t.id = src.id"
        + " when matched then update set v = src.v when not matched by source and t.v < 0 then delete"))
        .hasStackTraceContaining("NotFound");
    assertThat(lake.table("t").currentSnapshot().snapshotId()).isEqualTo(snapshot);
  }

  @Test
  void eachExecutionOfAPreparedMergeFindsTheSourceRangeAgain() {
    String merge = "merge into t using src on t.id = src.id when matched then update set v = src.v";
    Prepared.Command prepared = (Prepared.Command) lake.engine.prepare(lake.session, merge);
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "prepared-1").rowCount()).isEqualTo(3);
    lake.update("insert into src values (42, -42)");
    // The range is now 42 to 500, no longer 150 to 500: the row with id 42 changes too.
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "prepared-2").rowCount()).isEqualTo(4);
    assertThat(lake.query("select v from t where id = 42")).containsExactly(List.of(-42));
  }

  /** The rows outside the missing file (still in the table's metadata) are DuckDB's, by checksum. */
  private void assertSameSurvivingRows() {
    String checksum = "select count(*), sum(v), sum(id * v), sum(id * id * v) from t where id >= 10";
    List<Object> ours = lake.query(checksum).get(0);
    List<String> theirs = duck.rows("select count(*) || ',' || sum(v) || ',' || sum(id * v) || ',' || sum(id * id * v) from t where id >= 10");
    assertThat(theirs).hasSize(1);
    String line = ours.stream().map(o -> String.valueOf(new java.math.BigDecimal(String.valueOf(o)).toBigInteger()))
        .collect(java.util.stream.Collectors.joining(","));
    assertThat(theirs.get(0)).contains(line);
  }
}
