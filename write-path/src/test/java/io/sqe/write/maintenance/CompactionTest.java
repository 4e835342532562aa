package io.sqe.write.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.write.files.DataFileWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction through Iceberg's API on an embedded catalog: what it picks, and that every row survives it. */
class CompactionTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.IntegerType.get()),
      Types.NestedField.optional(2, "k", Types.IntegerType.get()));

  @TempDir Path dir;
  private LakehouseCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofMinutes(5));
    catalog.namespaces().createNamespace(Namespace.of("s"));
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
  }

  @Test
  void filesOfAnOlderPartitionSpecAreRewrittenInTheCurrentOne() throws IOException {
    Table table = catalog.iceberg().createTable(TableIdentifier.of("s", "evolved"), SCHEMA, PartitionSpec.unpartitioned());
    for (int i = 0; i < 6; i++) {
      append(table, List.of(row(i, i % 3), row(i + 100, (i + 1) % 3)));
    }
    table.updateSpec().addField("k").commit();
    append(table, List.of(row(50, 0)));
    List<String> before = rows(table);

    Compaction.Result result = new Compaction(table, 10L << 20, "q-evolved").run("optimize of s.evolved");

    table.refresh();
    // The six files of the unpartitioned spec are one group; the single file of the new spec stays.
    assertThat(result.rewrittenFiles()).isEqualTo(6);
    List<DataFile> files = files(table);
    assertThat(files).allSatisfy(f -> assertThat(f.specId()).isEqualTo(table.spec().specId()));
    // Rows of partitions 0, 1 and 2 from the old files, and the untouched file of partition 0.
    assertThat(result.addedFiles()).isEqualTo(3);
    assertThat(files).hasSize(4);
    assertThat(rows(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().summary()).containsEntry("sqe.query-id", "q-evolved");
  }

  @Test
  void filesAtOrAboveTheThresholdAndLonePartitionsAreLeftAlone() throws IOException {
    Table table = catalog.iceberg().createTable(
        TableIdentifier.of("s", "threshold"), SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("k").build());
    for (int i = 0; i < 4; i++) {
      append(table, List.of(row(i, 1)));
    }
    append(table, List.of(row(10, 2)));
    long smallest = files(table).stream().mapToLong(DataFile::fileSizeInBytes).min().orElseThrow();
    long largest = files(table).stream().mapToLong(DataFile::fileSizeInBytes).max().orElseThrow();
    long snapshot = table.currentSnapshot().snapshotId();

    // Every file is at least as large as the threshold: nothing to do, and no commit.
    assertThat(new Compaction(table, smallest, "q1").run("optimize").rewrittenFiles()).isZero();
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);

    // All are small now, but partition k=2 has a single file: only the four of k=1 are merged.
    Compaction.Result result = new Compaction(table, largest + 1, "q2").run("optimize");
    assertThat(result.rewrittenFiles()).isEqualTo(4);
    assertThat(result.addedFiles()).isEqualTo(1);
    table.refresh();
    assertThat(files(table)).hasSize(2);
  }

  private static Record row(int id, int k) {
    Record record = GenericRecord.create(SCHEMA);
    record.setField("id", id);
    record.setField("k", k);
    return record;
  }

  private static void append(Table table, List<Record> rows) {
    DataFileWriter writer = DataFileWriter.builder(table).build();
    rows.forEach(writer::write);
    AppendFiles append = table.newAppend();
    writer.complete().forEach(append::appendFile);
    append.commit();
  }

  private static List<DataFile> files(Table table) throws IOException {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    }
    return files;
  }

  private static List<String> rows(Table table) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.toString()));
    }
    rows.sort(null);
    return rows;
  }
}
