package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedSet;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that fails after it has written data files leaves the table as it was: the previous
 * snapshot current and readable, and none of the statement's files on disk.
 */
class FailedWriteTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    lake.createNumbers("numbers", 3000, 1000);
    // Files roll over every 1000 rows (the writer checks the size that often).
    lake.update("create table t (id int, k int) partitioned by (k) with ('write.target-file-size-bytes' = '1000')");
    lake.update("insert into t values (1, 1), (2, 2)");
  }

  @AfterEach
  void tearDown() throws Exception {
    lake.close();
  }

  @Test
  void insertFailingOnALateRowWritesNothing() {
    String select = " from numbers";
    // Without the bad value the same INSERT writes several files, so the failure comes after some.
    lake.update("create table probe (id int, k int) with ('write.target-file-size-bytes' = '1000')");
    lake.update("insert into probe select x, 0" + select);
    assertThat(lake.table("probe").currentSnapshot().summary()).containsEntry("added-data-files", "3");

    assertFailsAndLeavesTable(
        "insert into t select x, cast(case when x = 2999 then 'late' else '0' end as int)" + select,
        ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void mergeFailingOnALateRowWritesNothing() {
    assertFailsAndLeavesTable(
        "merge into t using numbers n on t.id = n.x when matched then update set k = 5"
            + " when not matched then insert values (n.x, 10 / (2999 - n.x))",
        ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void failureWhileWritingFilesRemovesTheWrittenOnes() throws IOException {
    Table table = lake.table("t");
    // Data files go under a directory where the second partition's directory cannot be made.
    Path data = dir.resolve("blocked-data");
    Files.createDirectories(data);
    Files.writeString(data.resolve("k=2"), "a file where partition k=2 would be a directory");
    table.updateProperties().set(TableProperties.WRITE_DATA_LOCATION, data.toUri().toString()).commit();
    lake.catalog.invalidate(org.apache.iceberg.catalog.TableIdentifier.of("s", "t"));

    assertFailsAndLeavesTable("insert into t select x, case when x > 2500 then 2 else 1 end from numbers", ErrorCode.INTERNAL);
    assertFailsAndLeavesTable("update t set k = 2 where id = 1", ErrorCode.INTERNAL);
    try (Stream<Path> files = Files.walk(data)) {
      assertThat(files.filter(Files::isRegularFile)).containsExactly(data.resolve("k=2"));
    }
  }

  /** Runs a statement that must fail; the table keeps its snapshot, its rows and its files. */
  private void assertFailsAndLeavesTable(String sql, ErrorCode code) {
    Table before = lake.table("t");
    long snapshot = before.currentSnapshot().snapshotId();
    List<String> rows = ReferenceDuckDb.icebergRows(before);
    SortedSet<String> files = Lakehouse.filesOnDisk(before);
    assertThatThrownBy(() -> lake.update(sql))
        .as(sql)
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(code));
    Table after = lake.table("t");
    assertThat(after.currentSnapshot().snapshotId()).as(sql).isEqualTo(snapshot);
    assertThat(ReferenceDuckDb.icebergRows(after)).as(sql).isEqualTo(rows);
    assertThat(lake.query("select count(*) from t")).containsExactly(List.of((long) rows.size()));
    assertThat(Lakehouse.filesOnDisk(after)).as("files of %s after %s", after.location(), sql).isEqualTo(files);
  }
}
