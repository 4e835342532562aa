package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import io.sqe.write.files.BatchFileWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CTAS and INSERT ... SELECT of a query with a columnar plan write the batches of the query straight
 * to Parquet; the tables they make hold what the row-at-a-time path makes of the same statement
 * ({@code planner.columnar = false}): the same rows in the same files, with the same partitions,
 * sort order and column metrics, for every type the columnar path writes, NULLs, NaNs and extreme
 * values included.
 */
class BatchWriteTest {
  private static final Schema SOURCE =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "b", Types.BooleanType.get()),
          Types.NestedField.optional(3, "i", Types.IntegerType.get()),
          Types.NestedField.optional(4, "l", Types.LongType.get()),
          Types.NestedField.optional(5, "f", Types.FloatType.get()),
          Types.NestedField.optional(6, "d", Types.DoubleType.get()),
          Types.NestedField.optional(7, "d9", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(8, "d18", Types.DecimalType.of(18, 4)),
          Types.NestedField.optional(9, "d38", Types.DecimalType.of(38, 10)),
          Types.NestedField.optional(10, "dt", Types.DateType.get()),
          Types.NestedField.optional(11, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(12, "tstz", Types.TimestampType.withZone()),
          Types.NestedField.optional(13, "s", Types.StringType.get()),
          Types.NestedField.optional(14, "bin", Types.BinaryType.get()),
          Types.NestedField.optional(15, "fx", Types.FixedType.ofLength(16)));
  private static final int ROWS = 3_000;

  /** Layouts of the CTAS: the clauses between the table's name and AS. */
  private static final List<String> LAYOUTS = List.of(
      "",
      " partitioned by (b, bucket(3, s))",
      " sorted by (l desc nulls last, s)",
      " sorted by (d, f desc nulls first, d38, dt, ts, tstz, bin, fx, i, b, d9, d18)",
      " sorted by (truncate(2, s))",
      " partitioned by (bucket(4, i)) sorted by (i nulls first, dt desc) with ('write.target-file-size-bytes' = '20000')",
      " with ('write.target-file-size-bytes' = '30000', 'write.parquet.row-group-size-bytes' = '20000')",
      // A Parquet property the columnar file writer does not take: the rows go through Iceberg's writer.
      " sorted by (id) with ('write.parquet.bloom-filter-enabled.column.s' = 'true', 'write.parquet.row-group-size-bytes' = '30000')");

  @TempDir Path dir;
  private Lakehouse lake;
  private Session rowsOnly;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    rowsOnly = lake.session.withOption(PlannerOptions.COLUMNAR, "false");
    long seed = Long.getLong("sqe.test.seed", System.nanoTime());
    System.out.println("BatchWriteTest seed: " + seed);
    lake.create("src", SOURCE, PartitionSpec.unpartitioned(), rows(new Random(seed)), 700);
  }

  @AfterEach
  void tearDown() throws Exception {
    // Closing the lake closes its root allocator, which fails on a batch the writer did not close.
    lake.close();
  }

  @Test
  void ctasWritesWhatTheRowPathWrites() {
    assertThat(lake.engine.prepare(lake.session, "select * from src"))
        .isInstanceOfSatisfying(Prepared.Query.class, q -> assertThat(q.plan().batchPlan()).as("a columnar plan").isNotNull());
    for (int n = 0; n < LAYOUTS.size(); n++) {
      String layout = LAYOUTS.get(n);
      assertThat(lake.update("create table batches_" + n + layout + " as select * from src")).as(layout).isEqualTo(ROWS);
      assertThat(lake.update(rowsOnly, "create table rows_" + n + layout + " as select * from src")).as(layout).isEqualTo(ROWS);
      Table batches = lake.table("batches_" + n);
      assertThat(BatchFileWriter.layout(batches, lake.engine.prepare(lake.session, "select * from src").resultSchema(), identity(15)))
          .as("the batch path takes every column of %s", layout)
          .isPresent();
      assertSameFiles(batches, lake.table("rows_" + n), layout);
      assertThat(ReferenceDuckDb.icebergRows(batches)).as(layout).isEqualTo(ReferenceDuckDb.icebergRows(lake.table("src")));
    }
  }

  @Test
  void insertSelectWritesWhatTheRowPathWrites() {
    String columns = "id bigint, i bigint, d double, d38 decimal(38, 10), s varchar, fx binary(16), extra int";
    for (String table : List.of("batches", "rows")) {
      lake.update("create table " + table + " (" + columns + ") partitioned by (bucket(2, id)) sorted by (d desc)");
    }
    // Widened (INTEGER into BIGINT, REAL into DOUBLE) and left out (extra) columns, a filter, and several statements.
    String select = "select id, i, f, d38, s, fx from src where ";
    for (String where : List.of("id < 1000", "id >= 1000 and i < 0", "id >= 1000 and (i >= 0 or i is null)")) {
      assertThat(lake.engine.prepare(lake.session, select + where))
          .isInstanceOfSatisfying(Prepared.Query.class, q -> assertThat(q.plan().batchPlan()).as(where).isNotNull());
      String insert = " (id, i, d, d38, s, fx) " + select;
      long batchRows = lake.update("insert into batches" + insert + where);
      assertThat(lake.update(rowsOnly, "insert into rows" + insert + where)).isEqualTo(batchRows);
    }
    assertSameFiles(lake.table("batches"), lake.table("rows"), "insert");
    assertThat(ReferenceDuckDb.icebergRows(lake.table("batches"))).hasSize(ROWS);
    try (ReferenceDuckDb duck = new ReferenceDuckDb()) {
      Table written = lake.table("batches");
      lake.update("create table batches_readable as select id, i, d, d38, s, extra from batches");
      assertThat(duck.parquetRows(lake.table("batches_readable"))).isEqualTo(ReferenceDuckDb.icebergRows(lake.table("batches_readable")));
      assertThat(written.currentSnapshot().summary()).containsEntry("total-records", String.valueOf(ROWS));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void nullInNotNullColumnFailsAsOnTheRowPathAndLeavesNoFiles() throws Exception {
    for (Session session : List.of(lake.session, rowsOnly)) {
      assertThatThrownBy(() -> lake.update(session, "create table t (id not null, s not null) as select id, s from src"))
          .isInstanceOfSatisfying(SqeException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).isEqualTo("NULL value for NOT NULL column s");
          });
    }
    lake.update("create table n (id bigint not null, s varchar not null)");
    for (Session session : List.of(lake.session, rowsOnly)) {
      assertThatThrownBy(() -> lake.update(session, "insert into n select id, s from src"))
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).isEqualTo("NULL value for NOT NULL column s"));
    }
    assertThat(lake.table("n").currentSnapshot()).isNull();
    try (Stream<Path> paths = Files.walk(dir.resolve("warehouse"))) {
      assertThat(paths.filter(p -> p.toString().endsWith(".parquet") && !p.toString().contains("/src/"))).isEmpty();
    }
  }

  @Test
  void fixedColumnTakesOnlyValuesOfItsLength() {
    lake.update("create table f (id bigint, fx binary(16))");
    for (Session session : List.of(lake.session, rowsOnly)) {
      assertThatThrownBy(() -> lake.update(session, "insert into f select id, bin from src"))
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).startsWith("Column fx of type fixed[16] takes 16 bytes, not "));
    }
  }

  /**
   * Both tables have the same data files: the same partitions, record counts, rows in file order
   * and column metrics (value, null and NaN counts, bounds), and the same sort order id.
   */
  private static void assertSameFiles(Table batches, Table rows, String what) {
    List<String> batchFiles = Lakehouse.dataFilesWithStats(batches).stream().map(f -> describe(batches, f)).sorted().toList();
    List<String> rowFiles = Lakehouse.dataFilesWithStats(rows).stream().map(f -> describe(rows, f)).sorted().toList();
    assertThat(batchFiles).as("the data files of %s", what).isEqualTo(rowFiles);
  }

  private static String describe(Table table, DataFile file) {
    Schema schema = table.schema();
    StringBuilder s = new StringBuilder();
    s.append("partition ").append(file.partition()).append(", ").append(file.recordCount()).append(" rows, sort order ")
        .append(file.sortOrderId()).append(", split offsets ").append(file.splitOffsets() == null ? null : file.splitOffsets().size())
        .append('\n').append(footer(file));
    for (Types.NestedField field : schema.columns()) {
      int id = field.fieldId();
      s.append(field.name()).append(": values ").append(file.valueCounts().get(id))
          .append(", nulls ").append(file.nullValueCounts().get(id))
          .append(", NaNs ").append(file.nanValueCounts() == null ? null : file.nanValueCounts().get(id))
          .append(", bounds ").append(bound(field, file.lowerBounds())).append(" to ").append(bound(field, file.upperBounds()))
          .append('\n');
    }
    for (Record record : Lakehouse.fileRecords(table, file)) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < record.size(); i++) {
        values.add(ReferenceDuckDb.text(record.get(i)));
      }
      s.append(String.join(" | ", values)).append('\n');
    }
    return s.toString();
  }

  /** What the file's footer says beyond the values: schema, metadata, row groups, codecs, bloom filters. */
  private static String footer(DataFile file) {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Path.of(java.net.URI.create(file.location()))))) {
      ParquetMetadata footer = reader.getFooter();
      StringBuilder s = new StringBuilder();
      s.append(footer.getFileMetaData().getSchema()).append('\n');
      s.append(new java.util.TreeMap<>(footer.getFileMetaData().getKeyValueMetaData())).append('\n');
      for (BlockMetaData block : footer.getBlocks()) {
        s.append("row group of ").append(block.getRowCount()).append(" rows:");
        for (ColumnChunkMetaData column : block.getColumns()) {
          s.append(' ').append(column.getPath()).append(' ').append(column.getCodec())
              .append(column.getBloomFilterOffset() >= 0 ? " bloom" : "")
              .append(' ').append(column.getStatistics().getNumNulls()).append(" nulls");
        }
        s.append('\n');
      }
      return s.toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String bound(Types.NestedField field, Map<Integer, ByteBuffer> bounds) {
    ByteBuffer bound = bounds == null ? null : bounds.get(field.fieldId());
    if (bound == null) {
      return "none";
    }
    Object value = Conversions.fromByteBuffer(field.type(), bound);
    return ReferenceDuckDb.text(value instanceof CharSequence ? value.toString() : value);
  }

  private static int[] identity(int columns) {
    return IntStream.range(0, columns).toArray();
  }

  /** Random rows of {@link #SOURCE}, about one value in eight NULL, with the extremes of each type. */
  private static List<Record> rows(Random random) {
    List<Record> rows = new ArrayList<>();
    float[] floats = {Float.NaN, -0.0f, 0.0f, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, Float.MIN_VALUE, -Float.MAX_VALUE};
    double[] doubles = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE};
    String[] texts = {"", "a", "ab", "é", "日本語", "\uD83D\uDE00 emoji", "z"};
    for (int n = 0; n < ROWS; n++) {
      Record r = GenericRecord.create(SOURCE);
      r.setField("id", (long) n);
      r.setField("b", orNull(random, random.nextBoolean()));
      r.setField("i", orNull(random, random.nextInt(5) == 0 ? (random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE) : random.nextInt(100) - 50));
      r.setField("l", orNull(random, random.nextInt(5) == 0 ? (random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : random.nextLong() % 1000));
      r.setField("f", orNull(random, random.nextInt(4) == 0 ? floats[random.nextInt(floats.length)] : random.nextFloat() * 100 - 50));
      r.setField("d", orNull(random, random.nextInt(4) == 0 ? doubles[random.nextInt(doubles.length)] : random.nextGaussian() * 1e6));
      r.setField("d9", orNull(random, BigDecimal.valueOf(random.nextInt(1_999_999_999) - 999_999_999L, 2)));
      r.setField("d18", orNull(random, BigDecimal.valueOf(random.nextLong() % 999_999_999_999_999_999L, 4)));
      r.setField("d38", orNull(random, new BigDecimal(new BigInteger(125, random).subtract(BigInteger.ONE.shiftLeft(124)), 10)));
      r.setField("dt", orNull(random, LocalDate.ofEpochDay(random.nextInt(40_000) - 20_000)));
      LocalDateTime time = LocalDateTime.ofEpochSecond(random.nextInt(2_000_000_000) - 1_000_000_000L, random.nextInt(1_000_000) * 1000, ZoneOffset.UTC);
      r.setField("ts", orNull(random, time));
      r.setField("tstz", orNull(random, OffsetDateTime.of(time.plusHours(random.nextInt(48)), ZoneOffset.UTC)));
      r.setField("s", orNull(random, random.nextInt(3) == 0 ? texts[random.nextInt(texts.length)] : "text " + random.nextInt(500)));
      byte[] bytes = new byte[random.nextInt(20)];
      random.nextBytes(bytes);
      r.setField("bin", orNull(random, ByteBuffer.wrap(bytes)));
      byte[] fixed = new byte[16];
      random.nextBytes(fixed);
      r.setField("fx", orNull(random, fixed));
      rows.add(r);
    }
    return rows;
  }

  private static <T> T orNull(Random random, T value) {
    return random.nextInt(8) == 0 ? null : value;
  }
}
