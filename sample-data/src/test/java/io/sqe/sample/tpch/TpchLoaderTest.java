package io.sqe.sample.tpch;

import static io.sqe.sample.tpch.TpchTestData.SCALE;
import static io.sqe.sample.tpch.TpchTestData.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.sample.tpch.TpchLoadSummary.TableLoad;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TpchLoaderTest {
  @TempDir static Path warehouse;
  private static LakehouseCatalog catalog;
  private static TpchLoadSummary summary;

  @BeforeAll
  static void load() {
    catalog = TpchTestData.catalog(warehouse);
    summary = TpchLoader.defaults().load(catalog, SCHEMA, SCALE);
  }

  @AfterAll
  static void close() throws IOException {
    catalog.close();
  }

  @Test
  void loadsEveryTableWithTheGeneratorsRowCount() {
    assertThat(summary.tables())
        .extracting(TableLoad::table)
        .containsExactly(
            "nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem");
    assertThat(summary.tables()).noneMatch(TableLoad::skipped);
    for (TpchTable<?> source : TpchTable.getTables()) {
      long expected = TpchTestData.generatorRows(source, SCALE);
      String name = source.getTableName();
      assertThat(summary.rows(name)).as(name).isEqualTo(expected);
      Table table = TpchTestData.table(catalog, name);
      assertThat(table.snapshots()).as(name).hasSize(1);
      assertThat(table.currentSnapshot().summary())
          .as(name)
          .containsEntry("total-records", Long.toString(expected));
    }
  }

  @Test
  void splitsTablesIntoParquetFilesWithColumnMetrics() {
    for (TableLoad load : summary.tables()) {
      int expectedFiles = load.table().equals("nation") || load.table().equals("region") ? 1 : 4;
      assertThat(load.dataFiles()).as(load.table()).isEqualTo(expectedFiles);
      Table table = TpchTestData.table(catalog, load.table());
      assertThat(TpchTestData.dataFilePaths(table))
          .hasSize(expectedFiles)
          .allMatch(p -> p.endsWith(".parquet"));
    }

    Table lineitem = TpchTestData.table(catalog, "lineitem");
    List<DataFile> files = new ArrayList<>(TpchTestData.dataFiles(lineitem));
    files.sort(Comparator.comparingLong(file -> lowerOrderKey(lineitem, file)));
    assertThat(files).hasSize(4);
    int columns = lineitem.schema().columns().size();
    for (DataFile file : files) {
      assertThat(file.format()).isEqualTo(FileFormat.PARQUET);
      assertThat(file.lowerBounds()).hasSize(columns);
      assertThat(file.upperBounds()).hasSize(columns);
      assertThat(file.nullValueCounts())
          .hasSize(columns)
          .allSatisfy((id, nulls) -> assertThat(nulls).isZero());
    }
    // The parts hold consecutive orders, so the files' order-key ranges do not overlap.
    for (int i = 1; i < files.size(); i++) {
      assertThat(lowerOrderKey(lineitem, files.get(i)))
          .isGreaterThan(upperOrderKey(lineitem, files.get(i - 1)));
    }
  }

  @Test
  void skipsTablesThatAlreadyHoldTheData() {
    Map<String, Long> snapshots = currentSnapshots();

    TpchLoadSummary again = TpchLoader.defaults().load(catalog, SCHEMA, SCALE);

    assertThat(again.tables()).allMatch(TableLoad::skipped);
    assertThat(again.rowsPerTable()).isEqualTo(summary.rowsPerTable());
    assertThat(again.tables())
        .extracting(TableLoad::dataFiles)
        .containsExactlyElementsOf(summary.tables().stream().map(TableLoad::dataFiles).toList());
    assertThat(currentSnapshots()).isEqualTo(snapshots);
  }

  @Test
  void refusesToSkipTablesOfAnotherScaleFactor() {
    Map<String, Long> snapshots = currentSnapshots();

    assertThatThrownBy(() -> TpchLoader.defaults().load(catalog, SCHEMA, 0.02))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("scale factor 0.02")
        .hasMessageContaining("REPLACE");
    assertThat(currentSnapshots()).isEqualTo(snapshots);
  }

  @Test
  void replacesTablesWhenAsked(@TempDir Path otherWarehouse) throws IOException {
    try (LakehouseCatalog other = TpchTestData.catalog(otherWarehouse)) {
      TpchLoader.builder().filesPerTable(2).build().load(other, SCHEMA, 0.001);
      List<String> replacedFiles =
          TpchTestData.dataFilePaths(TpchTestData.table(other, "lineitem"));
      assertThat(replacedFiles).hasSize(2);

      TpchLoadSummary replaced =
          TpchLoader.builder()
              .filesPerTable(3)
              .parallelism(1)
              .existingTables(TpchLoader.ExistingTables.REPLACE)
              .build()
              .load(other, SCHEMA, 0.002);

      assertThat(replaced.tables()).noneMatch(TableLoad::skipped);
      assertThat(replaced.rows("lineitem"))
          .isEqualTo(TpchTestData.generatorRows(TpchTable.LINE_ITEM, 0.002));
      Table after = TpchTestData.table(other, "lineitem");
      assertThat(after.snapshots()).hasSize(1);
      assertThat(after.properties()).containsEntry(TpchLoader.SCALE_FACTOR_PROPERTY, "0.002");
      assertThat(TpchTestData.dataFilePaths(after)).hasSize(3);
      // the replaced table's files were purged with it
      assertThat(replacedFiles).allSatisfy(file -> assertThat(Path.of(file)).doesNotExist());
    }
  }

  private static Map<String, Long> currentSnapshots() {
    Map<String, Long> ids = new HashMap<>();
    for (String name : TpchLoader.tableNames()) {
      ids.put(name, TpchTestData.table(catalog, name).currentSnapshot().snapshotId());
    }
    return ids;
  }

  private static long lowerOrderKey(Table table, DataFile file) {
    return bound(table, file.lowerBounds());
  }

  private static long upperOrderKey(Table table, DataFile file) {
    return bound(table, file.upperBounds());
  }

  private static long bound(Table table, Map<Integer, ByteBuffer> bounds) {
    int id = table.schema().findField("l_orderkey").fieldId();
    return Conversions.<Long>fromByteBuffer(Types.LongType.get(), bounds.get(id));
  }
}
