package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
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
 * Copy-on-write touches only the data files with changed rows: each is rewritten with its other
 * rows as they were, in their order, and every other file stays in the snapshot as it was.
 */
class CopyOnWriteFilesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "v", Types.IntegerType.get()),
          Types.NestedField.optional(3, "s", Types.StructType.of(
              Types.NestedField.optional(4, "a", Types.IntegerType.get()),
              Types.NestedField.optional(5, "b", Types.StringType.get()))));

  @TempDir Path dir;
  private Lakehouse lake;
  private ReferenceDuckDb duck;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    duck = new ReferenceDuckDb();
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 200; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("v", id % 7 == 0 ? null : (int) (id % 10));
      Record s = GenericRecord.create(SCHEMA.findType("s").asStructType());
      s.setField("a", (int) id);
      s.setField("b", id % 3 == 0 ? null : "b" + id);
      r.setField("s", id % 11 == 0 ? null : s);
      rows.add(r);
    }
    // Twenty files of ten rows each: ids 0-9, 10-19, ...
    lake.create("t", SCHEMA, PartitionSpec.unpartitioned(), rows, 10);
    duck.copy(lake.table("t"), "t");
  }

  @AfterEach
  void tearDown() throws Exception {
    duck.close();
    lake.close();
  }

  @Test
  void aOneRowUpdateRewritesExactlyOneFile() {
    Map<String, List<Record>> before = contents(lake.table("t"));
    assertThat(before).hasSize(20);
    assertThat(run("update t set v = -1, s = null where id = 37")).isEqualTo(1);
    Table table = lake.table("t");
    assertThat(table.currentSnapshot().summary())
        .containsEntry("deleted-data-files", "1")
        .containsEntry("added-data-files", "1")
        .containsEntry("deleted-records", "10")
        .containsEntry("added-records", "10");
    Map<String, List<Record>> after = contents(table);
    Set<String> removed = difference(before.keySet(), after.keySet());
    Set<String> added = difference(after.keySet(), before.keySet());
    assertThat(removed).hasSize(1);
    assertThat(added).hasSize(1);
    List<Record> old = before.get(removed.iterator().next());
    List<Record> rewritten = after.get(added.iterator().next());
    // The other nine rows are copied as they were, in file order; row 37 has its new values.
    assertThat(rewritten).hasSize(10);
    for (int i = 0; i < 10; i++) {
      Record expected = old.get(i).copy();
      if (expected.getField("id").equals(37L)) {
        expected.setField("v", -1);
        expected.setField("s", null);
      }
      assertThat(rewritten.get(i)).isEqualTo(expected);
    }
    // The files without a changed row are the same files, with the same rows.
    for (String path : after.keySet()) {
      if (!added.contains(path)) {
        assertThat(after.get(path)).isEqualTo(before.get(path));
      }
    }
  }

  @Test
  void deletingAWholeFileAddsNoFile() {
    assertThat(run("delete from t where id between 40 and 49")).isEqualTo(10);
    Table table = lake.table("t");
    assertThat(table.currentSnapshot().summary())
        .containsEntry("deleted-data-files", "1")
        .containsEntry("deleted-records", "10")
        .doesNotContainKey("added-data-files");
    assertThat(Lakehouse.dataFiles(table)).hasSize(19);
  }

  @Test
  void changesAcrossFilesRewriteThoseFilesOnly() {
    assertThat(run("delete from t where id in (5, 15, 199)")).isEqualTo(3);
    // The rows the three files keep are written together, as one new file.
    assertThat(lake.table("t").currentSnapshot().summary())
        .containsEntry("deleted-data-files", "3")
        .containsEntry("added-data-files", "1")
        .containsEntry("added-records", "27");
    lake.update("create table src (id bigint, v int)");
    lake.update("insert into src values (52, 100), (300, 300)");
    duck.copy(lake.table("src"), "src");
    assertThat(run("merge into t using src on t.id = src.id when matched then update set v = src.v"
        + " when not matched then insert (id, v) values (src.id, src.v)")).isEqualTo(2);
    // The MERGE rewrote the file of row 52, its new row written along with them.
    assertThat(lake.table("t").currentSnapshot().summary())
        .containsEntry("deleted-data-files", "1")
        .containsEntry("added-data-files", "1")
        .containsEntry("added-records", "11");
    long snapshot = lake.table("t").currentSnapshot().snapshotId();
    assertThat(run("update t set v = 0 where id = 1000")).isZero();
    assertThat(run("delete from t where v > 1000")).isZero();
    assertThat(lake.table("t").currentSnapshot().snapshotId()).as("statements that change nothing commit nothing").isEqualTo(snapshot);
  }

  /** Runs a statement on SQE and on DuckDB's copy, and checks the table both ways. */
  private long run(String sql) {
    long rows = lake.update(sql);
    assertThat(rows).as("row count of %s", sql).isEqualTo(duck.update(sql));
    duck.assertSameRows(lake.table("t"), "t", sql);
    return rows;
  }

  /** Each current data file's rows, in file order, by the file's path. */
  private static Map<String, List<Record>> contents(Table table) {
    Map<String, List<Record>> files = new HashMap<>();
    for (DataFile file : Lakehouse.dataFiles(table)) {
      files.put(file.location(), Lakehouse.fileRecords(table, file));
    }
    return files;
  }

  private static Set<String> difference(Set<String> a, Set<String> b) {
    return a.stream().filter(x -> !b.contains(x)).collect(Collectors.toSet());
  }
}
