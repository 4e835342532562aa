package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CreateTableAsTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    lake.createNumbers("numbers", 3000, 1000);
  }

  @AfterEach
  void tearDown() throws Exception {
    lake.close();
  }

  @Test
  void createsPartitionedSortedTableFromQuery() {
    long rows = lake.update(
        "create table t partitioned by (k) sorted by (v desc) with ('write.target-file-size-bytes' = '1000') as"
            + " select mod(x, 2) as k, x * 7 % 101 as v, 'row ' || cast(x as varchar) as label from numbers");
    assertThat(rows).isEqualTo(3000);
    Table table = lake.table("t");
    assertThat(table.spec().fields()).hasSize(1);
    assertThat(table.sortOrder().isSorted()).isTrue();
    assertThat(table.properties()).containsEntry("write.target-file-size-bytes", "1000");
    assertThat(table.schema().findField("k").isOptional()).isTrue();
    long sumOfV = 0;
    for (int x = 1; x <= 3000; x++) {
      sumOfV += x * 7 % 101;
    }
    assertThat(lake.query("select count(*), sum(v), count(distinct k) from t")).containsExactly(List.of(3000L, sumOfV, 2L));
    List<DataFile> files = Lakehouse.dataFiles(table);
    // A small target size gives each of the two partitions several files.
    assertThat(files).hasSizeGreaterThan(2);
    for (DataFile file : files) {
      int k = file.partition().get(0, Integer.class);
      List<Record> records = Lakehouse.fileRecords(table, file);
      assertThat(records).allSatisfy(r -> assertThat(r.getField("k")).isEqualTo(k));
      List<Integer> values = records.stream().map(r -> (Integer) r.getField("v")).toList();
      assertThat(values).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
      assertThat(file.sortOrderId()).isEqualTo(table.sortOrder().orderId());
    }
    try (ReferenceDuckDb duck = new ReferenceDuckDb()) {
      assertThat(duck.parquetRows(table)).hasSize(3000).isEqualTo(ReferenceDuckDb.icebergRows(table));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    assertThat(Lakehouse.dataFilesWithStats(table)).allSatisfy(file -> {
      assertThat(file.lowerBounds()).containsKey(table.schema().findField("v").fieldId());
      assertThat(file.upperBounds()).containsKey(table.schema().findField("v").fieldId());
    });
  }

  @Test
  void failingQueryLeavesNoTableAndNoFiles() throws IOException {
    // The last rows fail, after files were written for the others.
    assertThatThrownBy(() -> lake.update("create table broken as select x, 10 / (3000 - x) as y from numbers"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThat(lake.catalog.iceberg().tableExists(TableIdentifier.of("s", "broken"))).isFalse();
    try (Stream<Path> paths = Files.walk(dir.resolve("warehouse"))) {
      assertThat(paths.filter(p -> p.toString().contains("broken") && p.toString().endsWith(".parquet"))).isEmpty();
    }
  }

  @Test
  void createOrReplaceKeepsHistory() {
    lake.update("create table t as select x, x * 2 as y from numbers where x <= 10");
    Table before = lake.table("t");
    Snapshot first = before.currentSnapshot();
    assertThatThrownBy(() -> lake.update("create table t as select 1 as a"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
    assertThat(lake.update("create table if not exists t as select 1 as a")).isZero();
    assertThat(lake.update("create or replace table t (label) as select 'v' || cast(x as varchar) from numbers where x <= 5"))
        .isEqualTo(5);
    Table after = lake.table("t");
    assertThat(after.schema().columns()).extracting(Types.NestedField::name).containsExactly("label");
    assertThat(lake.query("select count(*) from t")).containsExactly(List.of(5L));
    // The replaced version stays readable by snapshot id, with its own schema.
    assertThat(after.snapshot(first.snapshotId())).isNotNull();
    List<Record> old = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(after).useSnapshot(first.snapshotId()).build()) {
      records.forEach(old::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(old).hasSize(10).allSatisfy(r -> assertThat(r.getField("y")).isEqualTo((Integer) r.getField("x") * 2));
    assertThat(after.history()).hasSize(2);
  }

  @Test
  void rejectsUnnamedColumns() {
    assertThatThrownBy(() -> lake.update("create table t as select x + 1 from numbers"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("no name");
        });
    assertThat(lake.catalog.iceberg().tableExists(TableIdentifier.of("s", "t"))).isFalse();
  }
}
