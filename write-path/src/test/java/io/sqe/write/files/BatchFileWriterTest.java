package io.sqe.write.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.SqeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the batch writer holds on to: a partition's file keeps no batch open once the writer is
 * past it, a sorted table's buffer releases its batches when it is written or when the write is
 * aborted, and its files end where {@link DataFileWriter}'s do for the same rows.
 */
class BatchFileWriterTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()), Types.NestedField.optional(2, "p", Types.StringType.get()));
  private static final org.apache.arrow.vector.types.pojo.Schema BATCHES = new org.apache.arrow.vector.types.pojo.Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("p", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  private static final int ROWS = 1_000;

  @TempDir Path dir;
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void partitionFilesKeepNoBatchOpenOnceTheWriterIsPast() {
    Table table = table("partitioned", PartitionSpec.builderFor(SCHEMA).identity("p").build(), SortOrder.unsorted());
    BatchFileWriter writer = DataFileWriter.builder(table).buildForBatches(layout(table));
    for (int b = 0; b < 40; b++) {
      // The first row of each batch goes to a partition that gets no other row.
      writer.write(batch(b * ROWS, i -> i == 0 ? "rare" : "common"));
      assertThat(allocator.getAllocatedMemory()).as("bytes held after batch %s", b).isZero();
    }
    List<DataFile> files = writer.complete();
    assertThat(files).hasSize(2);
    assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(40L * ROWS);
  }

  @Test
  void sortedFilesEndWhereTheRecordWritersDo() {
    SortOrder byId = SortOrder.builderFor(SCHEMA).desc("id").build();
    Table batches = table("batches", PartitionSpec.unpartitioned(), byId);
    Table records = table("records", PartitionSpec.unpartitioned(), byId);
    BatchFileWriter batchWriter = DataFileWriter.builder(batches).sortBufferRows(2_500).buildForBatches(layout(batches));
    DataFileWriter recordWriter = DataFileWriter.builder(records).sortBufferRows(2_500).build();
    for (int b = 0; b < 10; b++) {
      // Ids run backwards within each batch and forwards across them, so every buffer gets sorted.
      int first = b * ROWS;
      writeDescending(batchWriter, first);
      for (int i = 0; i < ROWS; i++) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", (long) first + ROWS - 1 - i);
        r.setField("p", i % 7 == 0 ? null : "v" + i);
        recordWriter.write(r);
      }
    }
    List<List<Long>> batchFiles = ids(batches, batchWriter.complete());
    assertThat(allocator.getAllocatedMemory()).isZero();
    // The first buffer holds a quarter of the others: 625, 2,500, 2,500, 2,500 and the last 1,875 rows.
    assertThat(batchFiles).hasSize(5).isEqualTo(ids(records, recordWriter.complete()));
    assertThat(batchFiles.stream().map(List::size)).containsExactlyInAnyOrder(625, 2_500, 2_500, 2_500, 1_875);
    assertThat(batchFiles).allSatisfy(ids -> assertThat(ids).isSortedAccordingTo((a, c) -> Long.compare(c, a)));
  }

  @Test
  void sortedRowsComeInTheRecordWritersOrderWithTiesNullsTransformsAndPartitions() {
    List<SortOrder> orders = List.of(
        SortOrder.builderFor(SCHEMA).asc("p", NullOrder.NULLS_LAST).build(),
        SortOrder.builderFor(SCHEMA).desc("p", NullOrder.NULLS_FIRST).asc("id").build(),
        SortOrder.builderFor(SCHEMA).asc(Expressions.truncate("p", 2)).desc("id").build(),
        SortOrder.builderFor(SCHEMA).desc(Expressions.bucket("id", 5), NullOrder.NULLS_FIRST).build());
    List<PartitionSpec> specs = List.of(PartitionSpec.unpartitioned(), PartitionSpec.builderFor(SCHEMA).bucket("id", 3).build());
    int n = 0;
    for (SortOrder order : orders) {
      for (PartitionSpec spec : specs) {
        n++;
        Table batches = table("batches" + n, spec, order);
        Table records = table("records" + n, spec, order);
        BatchFileWriter batchWriter = DataFileWriter.builder(batches).sortBufferRows(2_500).buildForBatches(layout(batches));
        DataFileWriter recordWriter = DataFileWriter.builder(records).sortBufferRows(2_500).build();
        java.util.Random random = new java.util.Random(n);
        for (int b = 0; b < 8; b++) {
          long[] ids = new long[ROWS];
          String[] values = new String[ROWS];
          for (int i = 0; i < ROWS; i++) {
            // Few distinct values, so most rows tie on p and keep the order they came in.
            ids[i] = random.nextInt(1_000_000);
            values[i] = random.nextInt(9) == 0 ? null : "v" + random.nextInt(12);
            Record r = GenericRecord.create(SCHEMA);
            r.setField("id", ids[i]);
            r.setField("p", values[i]);
            recordWriter.write(r);
          }
          batchWriter.write(batch(ids, values));
        }
        List<List<Long>> written = ids(batches, batchWriter.complete());
        assertThat(allocator.getAllocatedMemory()).isZero();
        assertThat(written).as("%s, %s", order, spec).isEqualTo(ids(records, recordWriter.complete()));
      }
    }
  }

  @Test
  void abortReleasesTheSortBuffer() {
    Table table = table("aborted", PartitionSpec.unpartitioned(), SortOrder.builderFor(SCHEMA).asc("p").build());
    BatchFileWriter writer = DataFileWriter.builder(table).buildForBatches(layout(table));
    for (int b = 0; b < 5; b++) {
      writeDescending(writer, b * ROWS);
    }
    assertThat(allocator.getAllocatedMemory()).isPositive();
    writer.abort();
    assertThat(allocator.getAllocatedMemory()).isZero();
  }

  @Test
  void aFailedBufferWrittenWhileTheNextFillsFailsTheWriteAndAbortLeavesNothing() throws java.io.IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()), Types.NestedField.optional(2, "fx", Types.FixedType.ofLength(4)));
    org.apache.arrow.vector.types.pojo.Schema arrow = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("fx", FieldType.nullable(ArrowType.Binary.INSTANCE), null)));
    Table table = new HadoopTables(new Configuration())
        .create(schema, PartitionSpec.unpartitioned(), SortOrder.builderFor(schema).asc("id").build(), Map.of(), dir.resolve("failed").toUri().toString());
    BatchFileWriter writer = DataFileWriter.builder(table)
        .sortBufferRows(2_500)
        .buildForBatches(BatchFileWriter.layout(table, arrow, new int[] {0, 1}).orElseThrow());
    // Row 1,500 is in the second buffer (the first holds 625 rows), written while the third fills; its value is a byte short.
    SqeException failure = null;
    for (int b = 0; b < 10 && failure == null; b++) {
      VectorSchemaRoot batch = VectorSchemaRoot.create(arrow, allocator);
      BigIntVector ids = (BigIntVector) batch.getVector(0);
      org.apache.arrow.vector.VarBinaryVector fx = (org.apache.arrow.vector.VarBinaryVector) batch.getVector(1);
      for (int i = 0; i < ROWS; i++) {
        long id = (long) b * ROWS + i;
        ids.setSafe(i, id);
        fx.setSafe(i, id == 1_500 ? new byte[3] : new byte[4]);
      }
      batch.setRowCount(ROWS);
      try {
        writer.write(batch);
      } catch (SqeException e) {
        failure = e;
      }
    }
    if (failure == null) {
      try {
        writer.complete();
      } catch (SqeException e) {
        failure = e;
      }
    }
    assertThat(failure).isNotNull();
    assertThat(failure.getMessage()).isEqualTo("Column fx of type fixed[4] takes 4 bytes, not 3");
    writer.abort();
    assertThat(allocator.getAllocatedMemory()).isZero();
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir.resolve("failed"))) {
      assertThat(files.filter(f -> f.toString().endsWith(".parquet"))).isEmpty();
    }
  }

  /**
   * A sort by one column of integers compares the values as longs: the files, and the order of
   * their rows, ties and NULLs included, are the record writer's, ascending and descending with
   * NULLs first and last, for INTEGER and BIGINT keys with their extreme values.
   */
  @Test
  void sortedByOneIntegerColumnAsTheRecordWriterSorts() {
    Schema keyed = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(3, "k", Types.IntegerType.get()),
        Types.NestedField.optional(4, "g", Types.LongType.get()));
    org.apache.arrow.vector.types.pojo.Schema arrow = new org.apache.arrow.vector.types.pojo.Schema(List.of(
        new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("k", FieldType.nullable(new ArrowType.Int(32, true)), null),
        new Field("g", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    long[] extremes = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1};
    int n = 0;
    for (String column : List.of("k", "g")) {
      for (SortOrder order : List.of(
          SortOrder.builderFor(keyed).asc(column, NullOrder.NULLS_LAST).build(),
          SortOrder.builderFor(keyed).asc(column, NullOrder.NULLS_FIRST).build(),
          SortOrder.builderFor(keyed).desc(column, NullOrder.NULLS_FIRST).build(),
          SortOrder.builderFor(keyed).desc(column, NullOrder.NULLS_LAST).build())) {
        n++;
        HadoopTables tables = new HadoopTables(new Configuration());
        Table batches = tables.create(keyed, PartitionSpec.unpartitioned(), order, Map.of(), dir.resolve("keyed" + n).toUri().toString());
        Table records = tables.create(keyed, PartitionSpec.unpartitioned(), order, Map.of(), dir.resolve("kept" + n).toUri().toString());
        BatchFileWriter batchWriter = DataFileWriter.builder(batches).sortBufferRows(2_500)
            .buildForBatches(BatchFileWriter.layout(batches, arrow, new int[] {0, 1, 2}).orElseThrow());
        DataFileWriter recordWriter = DataFileWriter.builder(records).sortBufferRows(2_500).build();
        java.util.Random random = new java.util.Random(n);
        for (int b = 0; b < 8; b++) {
          VectorSchemaRoot batch = VectorSchemaRoot.create(arrow, allocator);
          for (int i = 0; i < ROWS; i++) {
            // Few distinct keys, so most rows tie and keep the order they came in (their ids).
            long id = (long) b * ROWS + i;
            Integer k = random.nextInt(9) == 0 ? null : random.nextInt(3) == 0 ? Integer.MIN_VALUE + random.nextInt(2) : random.nextInt(40) - 20;
            Long g = random.nextInt(9) == 0 ? null : random.nextInt(3) == 0 ? extremes[random.nextInt(extremes.length)] : random.nextInt(40) - 20L;
            ((BigIntVector) batch.getVector(0)).setSafe(i, id);
            if (k == null) {
              ((org.apache.arrow.vector.IntVector) batch.getVector(1)).setNull(i);
            } else {
              ((org.apache.arrow.vector.IntVector) batch.getVector(1)).setSafe(i, k);
            }
            if (g == null) {
              ((BigIntVector) batch.getVector(2)).setNull(i);
            } else {
              ((BigIntVector) batch.getVector(2)).setSafe(i, g);
            }
            Record r = GenericRecord.create(keyed);
            r.setField("id", id);
            r.setField("k", k);
            r.setField("g", g);
            recordWriter.write(r);
          }
          batch.setRowCount(ROWS);
          batchWriter.write(batch);
        }
        List<List<Long>> written = ids(batches, batchWriter.complete());
        assertThat(allocator.getAllocatedMemory()).isZero();
        assertThat(written).as("%s", order).isEqualTo(ids(records, recordWriter.complete()));
      }
    }
  }

  /** Writes a batch of ids from {@code first + ROWS - 1} down to {@code first}. */
  private void writeDescending(BatchFileWriter writer, int first) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(BATCHES, allocator);
    BigIntVector ids = (BigIntVector) batch.getVector(0);
    VarCharVector p = (VarCharVector) batch.getVector(1);
    for (int i = 0; i < ROWS; i++) {
      ids.setSafe(i, first + ROWS - 1 - i);
      if (i % 7 == 0) {
        p.setNull(i);
      } else {
        p.setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
      }
    }
    batch.setRowCount(ROWS);
    writer.write(batch);
  }

  private VectorSchemaRoot batch(long[] idValues, String[] values) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(BATCHES, allocator);
    BigIntVector ids = (BigIntVector) batch.getVector(0);
    VarCharVector p = (VarCharVector) batch.getVector(1);
    for (int i = 0; i < idValues.length; i++) {
      ids.setSafe(i, idValues[i]);
      if (values[i] == null) {
        p.setNull(i);
      } else {
        p.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    batch.setRowCount(idValues.length);
    return batch;
  }

  private VectorSchemaRoot batch(int first, java.util.function.IntFunction<String> partition) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(BATCHES, allocator);
    BigIntVector ids = (BigIntVector) batch.getVector(0);
    VarCharVector p = (VarCharVector) batch.getVector(1);
    for (int i = 0; i < ROWS; i++) {
      ids.setSafe(i, first + i);
      p.setSafe(i, partition.apply(i).getBytes(StandardCharsets.UTF_8));
    }
    batch.setRowCount(ROWS);
    return batch;
  }

  private Table table(String name, PartitionSpec spec, SortOrder order) {
    return new HadoopTables(new Configuration()).create(SCHEMA, spec, order, Map.of(), dir.resolve(name).toUri().toString());
  }

  private static BatchFileWriter.Layout layout(Table table) {
    return BatchFileWriter.layout(table, BATCHES, new int[] {0, 1}).orElseThrow();
  }

  /** The ids of each file, in file order, the files ordered by their first id. */
  private static List<List<Long>> ids(Table table, List<DataFile> files) {
    List<List<Long>> all = new ArrayList<>();
    for (DataFile file : files) {
      List<Long> ids = new ArrayList<>();
      try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
          .project(SCHEMA)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(SCHEMA, fileSchema))
          .build()) {
        records.forEach(r -> ids.add((Long) r.getField("id")));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      all.add(ids);
    }
    all.sort((a, b) -> Long.compare(a.get(0), b.get(0)));
    return all;
  }
}
