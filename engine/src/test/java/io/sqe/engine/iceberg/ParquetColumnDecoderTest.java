package io.sqe.engine.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.TestTables;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Parquet files written through Iceberg (several row groups and pages, required and optional
 * columns with nulls, dictionary-encoded and plain columns of every type SQE's page decoder reads,
 * data pages v1 and v2, several codecs) read the same through the column-by-column path, with the
 * decoder on as it is by default, as through Iceberg's generic row reader; and the file split into
 * several tasks reads each row exactly once.
 */
class ParquetColumnDecoderTest {
  private static final int ROWS = 30_000;
  private static final List<Type> TYPES =
      List.of(
          Types.BooleanType.get(),
          Types.IntegerType.get(),
          Types.LongType.get(),
          Types.DateType.get(),
          Types.TimestampType.withoutZone(),
          Types.TimestampType.withZone(),
          Types.DecimalType.of(9, 2),
          Types.DecimalType.of(18, 4),
          Types.DecimalType.of(38, 6),
          Types.DoubleType.get(),
          Types.FloatType.get(),
          Types.StringType.get(),
          Types.BinaryType.get(),
          Types.FixedType.ofLength(3));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();

  @ParameterizedTest
  @CsvSource({
    "v1, zstd, 20261130",
    "v1, snappy, 20261130",
    "v2, gzip, 20261130",
    "v2, uncompressed, 20261130",
    // Failed inside Iceberg's vectorized DELTA_BYTE_ARRAY reader, on a chunk whose dictionary fell
    // back to that encoding, while the decoder handed such chunks to it.
    "v2, uncompressed, 79195036947387"
  })
  void everyRowMatchesTheGenericRowReader(String pageVersion, String codec, long seed) throws IOException {
    List<Types.NestedField> fields = new ArrayList<>();
    fields.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    int id = 2;
    for (int t = 0; t < TYPES.size(); t++) {
      Type type = TYPES.get(t);
      String name = type.typeId().name().toLowerCase() + "_" + t;
      // Few distinct values (dictionary-encoded) and distinct values per row (plain), each required and optional.
      fields.add(Types.NestedField.required(id++, "dict_req_" + name, type));
      fields.add(Types.NestedField.optional(id++, "dict_opt_" + name, type));
      fields.add(Types.NestedField.required(id++, "plain_req_" + name, type));
      fields.add(Types.NestedField.optional(id++, "plain_opt_" + name, type));
      // Few distinct values and then distinct ones: the writer's dictionary outgrows its limit and
      // the chunk's later pages fall back to plain.
      fields.add(Types.NestedField.optional(id++, "mixed_opt_" + name, type));
    }
    Schema schema = new Schema(fields);
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(
                TableIdentifier.of("s", "decoded_" + pageVersion + "_" + codec + "_" + seed),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of(
                    TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "2097152",
                    TableProperties.PARQUET_PAGE_ROW_LIMIT, "1500",
                    TableProperties.PARQUET_PAGE_SIZE_BYTES, "8192",
                    TableProperties.PARQUET_PAGE_VERSION, pageVersion,
                    TableProperties.PARQUET_COMPRESSION, codec,
                    TableProperties.PARQUET_DICT_SIZE_BYTES, "16384",
                    TableProperties.SPLIT_SIZE, "524288",
                    TableProperties.SPLIT_OPEN_FILE_COST, "0"));
    Random random = new Random(seed);
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", (long) n);
      for (int f = 1; f < fields.size(); f++) {
        Types.NestedField field = fields.get(f);
        boolean dictionary = field.name().startsWith("dict_") || (field.name().startsWith("mixed_") && n % 6000 < 3000);
        // Nulls in runs and alone, and whole pages without any.
        boolean isNull = field.isOptional() && (n / 3000) % 3 != 0 && (random.nextInt(5) == 0 || (n / 40) % 7 == 2);
        long v = dictionary ? random.nextInt(13) - 6 : random.nextLong();
        r.setField(field.name(), isNull ? null : value(field.type(), v, dictionary ? 0 : n));
      }
      records.add(r);
    }
    DataFile file = TestTables.appendFile(table, records);

    assertChunkEncodings(file, schema, pageVersion);

    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<CombinedScanTask> combined = table.newScan().planTasks()) {
      for (CombinedScanTask task : combined) {
        tasks.addAll(task.files());
      }
    }
    assertThat(tasks).as("the file split into tasks").hasSizeGreaterThan(1);

    List<Object[]> read = new ArrayList<>();
    for (FileScanTask task : tasks) {
      try (CloseableIterator<Object> rows = VectorizedTaskReader.open(table.io(), task, schema, fields.size(), Map.of(), null)) {
        assertThat(rows).as("a task read column by column").isNotNull();
        rows.forEachRemaining(row -> read.add((Object[]) row));
      }
    }
    read.sort(Comparator.comparingLong(row -> (Long) row[0]));
    assertThat(read).hasSize(ROWS);

    List<Function<Object, Object>> converters = new ArrayList<>();
    for (Types.NestedField field : fields) {
      converters.add(IcebergValueConverters.forType(field.type()));
    }
    List<Object[]> expected = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record record : rows) {
        Object[] row = new Object[fields.size()];
        for (int c = 0; c < row.length; c++) {
          Object value = record.get(c);
          row[c] = value == null ? null : converters.get(c).apply(value);
        }
        expected.add(row);
      }
    }
    expected.sort(Comparator.comparingLong(row -> (Long) row[0]));
    for (int n = 0; n < ROWS; n++) {
      assertThat(read.get(n)).as("row %d (seed %d)", n, seed).containsExactly(expected.get(n));
    }

    // The residual of a filtered scan prunes row groups as Iceberg does: only ids in range come back.
    List<Object> filtered = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().filter(Expressions.lessThan("id", 1000L)).planFiles()) {
      for (FileScanTask task : planned) {
        try (CloseableIterator<Object> rows = VectorizedTaskReader.open(table.io(), task, schema, 1, Map.of(), null)) {
          rows.forEachRemaining(filtered::add);
        }
      }
    }
    assertThat(filtered).hasSizeBetween(1000, ROWS - 1).contains(0L, 999L);
  }

  private static Object value(Type type, long v, int n) {
    switch (type.typeId()) {
      case BOOLEAN:
        return v % 2 == 0;
      case INTEGER:
        return (int) v;
      case LONG:
        return v;
      case DATE:
        return LocalDate.of(1970, 1, 1).plusDays(v % 100_000);
      case TIMESTAMP: {
        LocalDateTime local = LocalDateTime.of(2000, 1, 1, 0, 0).plusNanos((v % 1_000_000_000_000_000L) * 1000);
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? local.atOffset(ZoneOffset.UTC) : local;
      }
      case DECIMAL: {
        Types.DecimalType decimal = (Types.DecimalType) type;
        BigInteger unscaled = BigInteger.valueOf(v).mod(BigInteger.TEN.pow(decimal.precision() > 18 ? 18 : decimal.precision()));
        if (decimal.precision() > 18) {
          unscaled = unscaled.multiply(BigInteger.valueOf(1_000_003L)).add(BigInteger.valueOf(n));
        }
        if (v < 0) {
          unscaled = unscaled.negate();
        }
        return new BigDecimal(unscaled, decimal.scale());
      }
      case DOUBLE:
        return v / 7.0;
      case FLOAT:
        return (float) (v % 1_000_000) / 4;
      case STRING:
        return "s-é-" + v;
      case BINARY:
        return ByteBuffer.wrap(("b" + v).getBytes(StandardCharsets.UTF_8));
      case FIXED:
        return new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16)};
      default:
        throw new IllegalArgumentException(type.toString());
    }
  }

  /**
   * The file has what the test is about: several row groups of several pages, chunks of the
   * dictionary columns all dictionary-encoded, and chunks of the v1 plain columns all plain.
   */
  private static void assertChunkEncodings(DataFile file, Schema schema, String pageVersion) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(java.nio.file.Path.of(file.location().replaceFirst("^file:", ""))))) {
      List<BlockMetaData> groups = reader.getFooter().getBlocks();
      assertThat(groups).hasSizeGreaterThan(2);
      Map<String, EncodingStats> firstGroup = new HashMap<>();
      Set<String> fellBack = new HashSet<>();
      for (ColumnChunkMetaData chunk : groups.get(0).getColumns()) {
        firstGroup.put(chunk.getPath().toDotString(), chunk.getEncodingStats());
        assertThat(chunk.getValueCount()).isGreaterThan(VectorizedTaskReader.BATCH_ROWS);
      }
      for (BlockMetaData group : groups) {
        for (ColumnChunkMetaData chunk : group.getColumns()) {
          EncodingStats stats = chunk.getEncodingStats();
          if (stats.hasDictionaryEncodedPages() && stats.hasNonDictionaryEncodedPages()) {
            fellBack.add(chunk.getPath().toDotString());
          }
        }
      }
      if (pageVersion.equals("v1")) {
        assertThat(fellBack).as("chunks whose dictionary fell back to plain").contains("mixed_opt_long_2", "mixed_opt_string_11");
      } else {
        // Parquet's v2 writer falls back to the delta encodings, which the decoder reads with
        // parquet-column's readers.
        assertThat(fellBack).as("chunks whose dictionary fell back to delta encodings").contains("mixed_opt_long_2", "mixed_opt_string_11");
        for (String column : List.of("plain_req_integer_1", "plain_opt_long_2", "plain_req_decimal_7", "plain_opt_date_3")) {
          assertThat(firstGroup.get(column).getDataEncodings()).as(column).contains(org.apache.parquet.column.Encoding.DELTA_BINARY_PACKED);
        }
        for (String column : List.of("plain_req_string_11", "plain_opt_binary_12", "plain_req_decimal_8", "plain_opt_fixed_13")) {
          assertThat(firstGroup.get(column).getDataEncodings()).as(column).contains(org.apache.parquet.column.Encoding.DELTA_BYTE_ARRAY);
        }
      }
      for (Types.NestedField field : schema.columns()) {
        EncodingStats stats = firstGroup.get(field.name());
        boolean fixedLength = field.type().typeId() == Type.TypeID.FIXED || field.type().typeId() == Type.TypeID.DECIMAL && ((Types.DecimalType) field.type()).precision() > 18;
        // Parquet's v1 writer never dictionary-encodes booleans or fixed-length byte arrays.
        if (field.name().startsWith("dict_") && field.type().typeId() != Type.TypeID.BOOLEAN && !(fixedLength && pageVersion.equals("v1"))) {
          assertThat(stats.hasNonDictionaryEncodedPages()).as(field.name()).isFalse();
        } else if (field.name().startsWith("plain_") && pageVersion.equals("v1")) {
          assertThat(stats.getDataEncodings()).as(field.name()).containsOnly(org.apache.parquet.column.Encoding.PLAIN);
        }
      }
    }
  }
}
