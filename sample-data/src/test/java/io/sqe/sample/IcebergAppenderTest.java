package io.sqe.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.sample.IcebergAppender.AppendResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IcebergAppenderTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "category", Types.StringType.get()),
          Types.NestedField.optional(3, "day", Types.DateType.get()));
  private static final TableIdentifier ID = TableIdentifier.of("db", "t");
  private static final LocalDate START = LocalDate.of(2024, 1, 1);

  @TempDir Path warehouse;
  private LakehouseCatalog catalog;

  @BeforeEach
  void createCatalog() {
    catalog = IcebergCatalogFactory.embedded("lake", warehouse, Duration.ZERO);
    catalog.namespaces().createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void closeCatalog() throws IOException {
    catalog.close();
  }

  @Test
  void rollsToANewFileAfterMaxRows() {
    Table table = createTable(PartitionSpec.unpartitioned(), Map.of());

    AppendResult result =
        IcebergAppender.builder(table).maxRowsPerFile(1000).build().append(rows(0, 2500));

    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(result.snapshotId()).hasValue(table.currentSnapshot().snapshotId());
    assertThat(result.rowCount()).isEqualTo(2500);
    assertThat(result.dataFiles())
        .extracting(DataFile::recordCount)
        .containsExactly(1000L, 1000L, 500L);
    assertThat(readIds(table))
        .isEqualTo(LongStream.range(0, 2500).boxed().collect(Collectors.toSet()));
    List<DataFile> files = committedFiles(table);
    assertThat(files).hasSize(3);
    for (DataFile file : files) {
      long lower = Conversions.fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(1));
      long upper = Conversions.fromByteBuffer(Types.LongType.get(), file.upperBounds().get(1));
      assertThat(upper - lower + 1).isEqualTo(file.recordCount());
      assertThat(file.valueCounts()).containsEntry(1, file.recordCount());
    }
  }

  @Test
  void rollsAtTheTablesTargetFileSize() {
    // A tiny target makes every size check (one per 1000 rows) roll to a new file.
    Table table =
        createTable(
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1"));

    AppendResult result = IcebergAppender.builder(table).build().append(rows(0, 2500));

    assertThat(result.dataFiles())
        .extracting(DataFile::recordCount)
        .containsExactly(1000L, 1000L, 500L);
  }

  @Test
  void writesFilesPerPartitionOfTheTablesSpec() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").month("day").build();
    Table table = createTable(spec, Map.of());

    // 3 categories x 2 months, interleaved, 200 rows each
    AppendResult result =
        IcebergAppender.builder(table).maxRowsPerFile(100).build().append(rows(0, 1200));

    assertThat(result.dataFiles()).hasSize(12).allMatch(file -> file.recordCount() == 100);
    table.refresh();
    for (DataFile file : committedFiles(table)) {
      String category = file.partition().get(0, String.class);
      int month = file.partition().get(1, Integer.class);
      assertThat(
              Conversions.<CharSequence>fromByteBuffer(
                      Types.StringType.get(), file.lowerBounds().get(2))
                  .toString())
          .isEqualTo(category);
      assertThat(
              Conversions.<CharSequence>fromByteBuffer(
                      Types.StringType.get(), file.upperBounds().get(2))
                  .toString())
          .isEqualTo(category);
      LocalDate first =
          LocalDate.ofEpochDay(
              Conversions.<Integer>fromByteBuffer(Types.DateType.get(), file.lowerBounds().get(3)));
      LocalDate last =
          LocalDate.ofEpochDay(
              Conversions.<Integer>fromByteBuffer(Types.DateType.get(), file.upperBounds().get(3)));
      long monthsSinceEpoch = (first.getYear() - 1970) * 12L + first.getMonthValue() - 1;
      assertThat(month).isEqualTo(monthsSinceEpoch);
      assertThat(last.withDayOfMonth(1)).isEqualTo(first.withDayOfMonth(1));
    }
    assertThat(readIds(table)).hasSize(1200);
  }

  @Test
  void writesParallelStreamsAsOneCommit() {
    Table table = createTable(PartitionSpec.unpartitioned(), Map.of());

    AppendResult result =
        IcebergAppender.builder(table)
            .parallelism(2)
            .maxRowsPerFile(600)
            .snapshotProperty("written-by", "test")
            .build()
            .appendStreams(
                List.of(rows(0, 1000), rows(1000, 2000), rows(2000, 3000), rows(3000, 4000)));

    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(table.currentSnapshot().summary())
        .containsEntry("written-by", "test")
        .containsEntry("added-records", "4000");
    assertThat(result.dataFiles()).hasSize(8);
    assertThat(readIds(table))
        .isEqualTo(LongStream.range(0, 4000).boxed().collect(Collectors.toSet()));
  }

  @Test
  void commitsNothingWithoutRows() {
    Table table = createTable(PartitionSpec.unpartitioned(), Map.of());

    AppendResult result = IcebergAppender.builder(table).build().appendStreams(List.of());

    assertThat(result.snapshotId()).isEmpty();
    assertThat(result.dataFiles()).isEmpty();
    table.refresh();
    assertThat(table.currentSnapshot()).isNull();
  }

  @Test
  void failureMidWriteLeavesTableAndFilesUnchanged() throws IOException {
    Table table = createTable(PartitionSpec.unpartitioned(), Map.of());
    IcebergAppender.builder(table).build().append(rows(0, 500));
    long snapshot = table.currentSnapshot().snapshotId();
    Set<Path> filesBefore = filesUnder(table);

    IcebergAppender appender = IcebergAppender.builder(table).maxRowsPerFile(1000).build();
    assertThatThrownBy(() -> appender.append(failingAfter(rows(500, 5000), 2500)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("row source failed");

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(table.snapshots()).hasSize(1);
    assertThat(filesUnder(table)).isEqualTo(filesBefore);
    assertThat(readIds(table)).hasSize(500);
  }

  @Test
  void failureOfOneParallelStreamLeavesTableAndFilesUnchanged() throws IOException {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
    Table table = createTable(spec, Map.of());
    IcebergAppender.builder(table).build().append(rows(0, 500));
    long snapshot = table.currentSnapshot().snapshotId();
    Set<Path> filesBefore = filesUnder(table);

    IcebergAppender appender =
        IcebergAppender.builder(table).parallelism(2).maxRowsPerFile(100).build();
    assertThatThrownBy(
            () ->
                appender.appendStreams(
                    List.of(
                        rows(500, 2000), failingAfter(rows(2000, 4000), 700), rows(4000, 6000))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("row source failed");

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(filesUnder(table)).isEqualTo(filesBefore);
  }

  @Test
  void failedCommitDeletesTheWrittenFiles() throws IOException {
    Table table = createTable(PartitionSpec.unpartitioned(), Map.of());
    Path data = dataDirectory(table);
    // The table object outlives its catalog entry, so the commit cannot succeed.
    catalog.iceberg().dropTable(ID, false);

    IcebergAppender appender = IcebergAppender.builder(table).maxRowsPerFile(100).build();
    assertThatThrownBy(() -> appender.append(rows(0, 1000)))
        .isInstanceOf(NoSuchTableException.class);

    assertThat(filesUnder(data)).isEmpty();
  }

  private Table createTable(PartitionSpec spec, Map<String, String> properties) {
    return catalog.iceberg().createTable(ID, SCHEMA, spec, properties);
  }

  /** Rows with ids [from, to): categories a, b, c and two months, interleaved. */
  private static List<Record> rows(long from, long to) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < to; id++) {
      GenericRecord row = GenericRecord.create(SCHEMA);
      row.set(0, id);
      row.set(1, String.valueOf((char) ('a' + id % 3)));
      row.set(2, START.plusDays(id % 2 * 40 + id % 7));
      rows.add(row);
    }
    return rows;
  }

  private static Iterable<Record> failingAfter(List<Record> rows, int good) {
    return () ->
        new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < rows.size();
          }

          @Override
          public Record next() {
            if (next == good) {
              throw new IllegalStateException("row source failed");
            }
            return rows.get(next++);
          }
        };
  }

  private static Set<Long> readIds(Table table) {
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      Set<Long> ids = new java.util.HashSet<>();
      for (Record record : records) {
        assertThat(ids.add((Long) record.getField("id"))).isTrue();
      }
      return ids;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<DataFile> committedFiles(Table table) {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static Path dataDirectory(Table table) {
    return Path.of(URI.create(table.location() + "/data"));
  }

  /** Every file under the table's data directory, checksum files included. */
  private static Set<Path> filesUnder(Table table) throws IOException {
    return filesUnder(dataDirectory(table));
  }

  private static Set<Path> filesUnder(Path data) throws IOException {
    if (!Files.exists(data)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }
}
