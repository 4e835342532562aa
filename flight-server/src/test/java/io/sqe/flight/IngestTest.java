package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.flight.testing.BothCatalogs;
import io.sqe.flight.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.FlightSqlClient.Transaction;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bulk ingest through Arrow's FlightSqlClient ({@code executeIngest}, what ADBC's adbc_ingest
 * sends) in every table definition mode, in a transaction, and with every Arrow type SQE stores,
 * read back through SQL and compared value for value with what was sent.
 */
class IngestTest {
  private static final AtomicInteger TABLES = new AtomicInteger();
  /** Timestamps from year 1 to 9999, in microseconds since the epoch. */
  private static final long MIN_MICROS = -62_135_596_800_000_000L;
  private static final long MAX_MICROS = 253_402_300_799_999_999L;

  @RegisterExtension static final BothCatalogs SERVERS = new BothCatalogs();
  static Stream<TestServer> servers() {
    return SERVERS.both();
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void everyTableDefinitionMode(TestServer server) throws Exception {
    String t = "i" + TABLES.incrementAndGet();
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      // ADBC "append" into a missing table, then "create".
      assertThatThrownBy(() -> ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL, TableExistsOption.TABLE_EXISTS_OPTION_APPEND, null, 0, 3))
          .satisfies(status(FlightStatusCode.NOT_FOUND));
      assertThat(ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL, null, 0, 3)).isEqualTo(3);
      assertThatThrownBy(() -> ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL, null, 0, 3))
          .satisfies(status(FlightStatusCode.ALREADY_EXISTS));
      // "append", then "create_append".
      assertThat(ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL, TableExistsOption.TABLE_EXISTS_OPTION_APPEND, null, 3, 2)).isEqualTo(2);
      assertThat(ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_APPEND, null, 5, 1)).isEqualTo(1);
      assertThat(query(client, "select count(*), sum(id) from app." + t)).containsExactly(List.of(6L, 15L));
      Table before = table(server, t);
      int snapshots = size(before.snapshots());
      // "replace": the new rows only, in one commit that keeps the table's history.
      assertThat(ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_REPLACE, null, 100, 4)).isEqualTo(4);
      assertThat(query(client, "select count(*), sum(id) from app." + t)).containsExactly(List.of(4L, 406L));
      Table after = table(server, t);
      assertThat(after.uuid()).isEqualTo(before.uuid());
      assertThat(size(after.snapshots())).isEqualTo(snapshots + 1);
      // Unspecified options are an error, as the protocol asks.
      assertThatThrownBy(() -> ingest(client, t, TableNotExistOption.TABLE_NOT_EXIST_OPTION_UNSPECIFIED, TableExistsOption.TABLE_EXISTS_OPTION_APPEND, null, 0, 1))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void ingestInATransactionLandsAtCommit(TestServer server) throws Exception {
    String created = "i" + TABLES.incrementAndGet();
    String existing = "i" + TABLES.incrementAndGet();
    try (TestServer.Client client = server.client(SERVERS.allocator()); TestServer.Client other = server.client(SERVERS.allocator())) {
      ingest(client, existing, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL, null, 0, 2);
      Transaction txn = client.sql().beginTransaction(client.auth());
      assertThat(ingest(client, existing, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL, TableExistsOption.TABLE_EXISTS_OPTION_APPEND, txn, 10, 3)).isEqualTo(3);
      assertThat(query(other, "select count(*) from app." + existing)).containsExactly(List.of(2L));
      client.sql().commit(txn, client.auth());
      assertThat(query(other, "select count(*) from app." + existing)).containsExactly(List.of(5L));

      Transaction creating = client.sql().beginTransaction(client.auth());
      ingest(client, created, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL, creating, 0, 3);
      assertThat(server.server().catalogs().find("iceberg").orElseThrow().iceberg().tableExists(TableIdentifier.of("app", created))).isFalse();
      client.sql().rollback(creating, client.auth());
      assertThat(server.server().catalogs().find("iceberg").orElseThrow().iceberg().tableExists(TableIdentifier.of("app", created))).isFalse();
    }
  }

  @Test
  void everyArrowTypeRoundTrips() throws Exception {
    long seed = System.nanoTime();
    System.out.println("IngestTest.everyArrowTypeRoundTrips seed=" + seed);
    Random random = new Random(seed);
    int rows = 3_000;
    Schema schema = allTypes();
    String t = "types" + TABLES.incrementAndGet();
    try (TestServer.Client client = SERVERS.embedded().client(SERVERS.allocator()); VectorSchemaRoot data = VectorSchemaRoot.create(schema, SERVERS.allocator())) {
      fill(data, rows, random);
      List<List<Object>> sent = canonicalRows(data);
      byte[] stream = batches(data, 1_000);
      try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(stream), SERVERS.allocator())) {
        ExecuteIngestOptions options = new ExecuteIngestOptions(
            t,
            TableDefinitionOptions.newBuilder()
                .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
                .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
                .build(),
            "iceberg",
            "app",
            Map.of());
        assertThat(client.sql().executeIngest(reader, options, client.auth())).isEqualTo(rows);
      }
      List<List<Object>> read = new ArrayList<>();
      FlightInfo info = client.sql().execute("select * from app." + t + " order by k", client.auth());
      try (FlightStream result = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
        while (result.next()) {
          read.addAll(canonicalRows(result.getRoot()));
        }
      }
      assertThat(read).hasSize(rows);
      for (int r = 0; r < rows; r++) {
        assertThat(read.get(r)).as("row %s (seed %s)", r, seed).isEqualTo(sent.get(r));
      }
      TimeMicroVector times = (TimeMicroVector) data.getVector("t64");
      try (CloseableIterable<Record> stored = IcebergGenerics.read(table(SERVERS.embedded(), t)).select("k", "t64").build()) {
        int count = 0;
        for (Record record : stored) {
          int k = Math.toIntExact((Long) record.getField("k"));
          Object expected = times.isNull(k) ? null : LocalTime.ofNanoOfDay(times.get(k) * 1_000L);
          assertThat(record.getField("t64")).as("t64 of row %s (seed %s)", k, seed).isEqualTo(expected);
          count++;
        }
        assertThat(count).isEqualTo(rows);
      }
    }
  }

  private static Schema allTypes() {
    Map<String, String> uuid = Map.of(ArrowTypeMapping.EXTENSION_NAME, ArrowTypeMapping.UUID_EXTENSION);
    List<Field> fields = new ArrayList<>();
    fields.add(new Field("k", FieldType.notNullable(new ArrowType.Int(64, true)), null));
    fields.add(nullable("b", ArrowType.Bool.INSTANCE));
    fields.add(nullable("i8", new ArrowType.Int(8, true)));
    fields.add(nullable("i16", new ArrowType.Int(16, true)));
    fields.add(nullable("i32", new ArrowType.Int(32, true)));
    fields.add(nullable("u8", new ArrowType.Int(8, false)));
    fields.add(nullable("u16", new ArrowType.Int(16, false)));
    fields.add(nullable("u32", new ArrowType.Int(32, false)));
    fields.add(nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
    fields.add(nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)));
    fields.add(nullable("dec", new ArrowType.Decimal(38, 10, 128)));
    fields.add(nullable("money", new ArrowType.Decimal(9, 2, 128)));
    fields.add(nullable("d32", new ArrowType.Date(DateUnit.DAY)));
    fields.add(nullable("d64", new ArrowType.Date(DateUnit.MILLISECOND)));
    fields.add(nullable("t32", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    fields.add(nullable("t64", new ArrowType.Time(TimeUnit.MICROSECOND, 64)));
    fields.add(nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)));
    fields.add(nullable("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)));
    fields.add(nullable("tstz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")));
    fields.add(nullable("s", ArrowType.Utf8.INSTANCE));
    fields.add(nullable("ls", ArrowType.LargeUtf8.INSTANCE));
    fields.add(nullable("bin", ArrowType.Binary.INSTANCE));
    fields.add(nullable("lbin", ArrowType.LargeBinary.INSTANCE));
    fields.add(nullable("fx", new ArrowType.FixedSizeBinary(8)));
    fields.add(new Field("u", new FieldType(true, new ArrowType.FixedSizeBinary(16), null, uuid), null));
    fields.add(new Field("point", FieldType.nullable(ArrowType.Struct.INSTANCE),
        List.of(nullable("x", new ArrowType.Int(32, true)), nullable("label", ArrowType.Utf8.INSTANCE))));
    fields.add(new Field("longs", FieldType.nullable(new ArrowType.List()), List.of(nullable("element", new ArrowType.Int(64, true)))));
    fields.add(new Field("scores", FieldType.nullable(new ArrowType.Map(false)),
        List.of(new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
            List.of(new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                nullable("value", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))))));
    return new Schema(fields);
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** Random values in every column; about one in ten is null. */
  private static void fill(VectorSchemaRoot root, int rows, Random random) {
    for (int r = 0; r < rows; r++) {
      ((BigIntVector) root.getVector("k")).setSafe(r, r);
      for (FieldVector vector : root.getFieldVectors()) {
        if (vector.getName().equals("k")) {
          continue;
        }
        if (random.nextInt(10) == 0) {
          vector.setNull(r);
        } else {
          set(vector, r, random);
        }
      }
    }
    root.setRowCount(rows);
  }

  private static void set(FieldVector vector, int r, Random random) {
    switch (vector.getName()) {
      case "b" -> ((BitVector) vector).setSafe(r, random.nextBoolean() ? 1 : 0);
      case "i8" -> ((TinyIntVector) vector).setSafe(r, (byte) random.nextInt());
      case "i16" -> ((SmallIntVector) vector).setSafe(r, (short) random.nextInt());
      case "i32" -> ((IntVector) vector).setSafe(r, random.nextInt());
      case "u8" -> ((UInt1Vector) vector).setSafe(r, random.nextInt(256));
      case "u16" -> ((UInt2Vector) vector).setSafe(r, random.nextInt(65_536));
      case "u32" -> ((UInt4Vector) vector).setSafe(r, random.nextInt());
      case "f32" -> ((Float4Vector) vector).setSafe(r, (float) random.nextGaussian() * 1e6f);
      case "f64" -> ((Float8Vector) vector).setSafe(r, random.nextGaussian() * 1e12);
      case "dec" -> ((DecimalVector) vector).setSafe(r, BigDecimal.valueOf(random.nextLong() % 10_000_000_000_000L, 10));
      case "money" -> ((DecimalVector) vector).setSafe(r, BigDecimal.valueOf(random.nextInt(200_000_000) - 100_000_000L, 2));
      case "d32" -> ((DateDayVector) vector).setSafe(r, random.nextInt(60_000) - 20_000);
      case "d64" -> ((DateMilliVector) vector).setSafe(r, (random.nextInt(60_000) - 20_000) * 86_400_000L);
      case "t32" -> ((TimeMilliVector) vector).setSafe(r, random.nextInt(86_400_000));
      case "t64" -> ((TimeMicroVector) vector).setSafe(r, Math.floorMod(random.nextLong(), 86_400_000_000L));
      case "ts" -> ((TimeStampMicroVector) vector).setSafe(r, random.nextLong(MIN_MICROS, MAX_MICROS));
      case "ts_ms" -> ((TimeStampMilliVector) vector).setSafe(r, random.nextLong(MIN_MICROS, MAX_MICROS) / 1_000L);
      case "tstz" -> ((TimeStampMicroTZVector) vector).setSafe(r, random.nextLong(MIN_MICROS, MAX_MICROS));
      case "s" -> ((VarCharVector) vector).setSafe(r, text(random));
      case "ls" -> ((LargeVarCharVector) vector).setSafe(r, text(random));
      case "bin" -> ((VarBinaryVector) vector).setSafe(r, bytes(random, random.nextInt(20)));
      case "lbin" -> ((LargeVarBinaryVector) vector).setSafe(r, bytes(random, random.nextInt(20)));
      case "fx" -> ((FixedSizeBinaryVector) vector).setSafe(r, bytes(random, 8));
      case "u" -> {
        UUID id = UUID.randomUUID();
        ((FixedSizeBinaryVector) vector).setSafe(
            r, ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array());
      }
      case "point" -> {
        StructVector point = (StructVector) vector;
        point.setIndexDefined(r);
        ((IntVector) point.getChild("x")).setSafe(r, random.nextInt(1000));
        if (random.nextBoolean()) {
          ((VarCharVector) point.getChild("label")).setSafe(r, text(random));
        } else {
          ((VarCharVector) point.getChild("label")).setNull(r);
        }
        if (random.nextInt(5) == 0) {
          ((IntVector) point.getChild("x")).setNull(r);
        }
      }
      case "longs" -> {
        ListVector list = (ListVector) vector;
        int start = list.startNewValue(r);
        int n = random.nextInt(4);
        BigIntVector elements = (BigIntVector) list.getDataVector();
        for (int i = 0; i < n; i++) {
          if (random.nextInt(6) == 0) {
            elements.setNull(start + i);
          } else {
            elements.setSafe(start + i, random.nextLong());
          }
        }
        list.endValue(r, n);
      }
      case "scores" -> {
        MapVector map = (MapVector) vector;
        int start = map.startNewValue(r);
        int n = random.nextInt(3);
        StructVector entries = (StructVector) map.getDataVector();
        for (int i = 0; i < n; i++) {
          entries.setIndexDefined(start + i);
          ((VarCharVector) entries.getChild("key")).setSafe(start + i, ("key" + i).getBytes(StandardCharsets.UTF_8));
          ((Float8Vector) entries.getChild("value")).setSafe(start + i, random.nextDouble());
        }
        map.endValue(r, n);
      }
      default -> throw new IllegalArgumentException(vector.getName());
    }
  }

  private static byte[] text(Random random) {
    String[] words = {"", "a", "naïve", "日本語", "emoji \uD83D\uDE00", "tab\tand\nnewline", "quote's"};
    return (words[random.nextInt(words.length)] + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** The rows as an Arrow IPC stream of batches of at most {@code size} rows. */
  private byte[] batches(VectorSchemaRoot data, int size) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot batchRoot = VectorSchemaRoot.create(data.getSchema(), SERVERS.allocator());
        ArrowStreamWriter writer = new ArrowStreamWriter(batchRoot, null, out)) {
      writer.start();
      int rows = data.getRowCount();
      for (int from = 0; from < rows; from += size) {
        try (VectorSchemaRoot slice = data.slice(from, Math.min(size, rows - from));
            ArrowRecordBatch batch = new VectorUnloader(slice).getRecordBatch()) {
          new VectorLoader(batchRoot).load(batch);
          writer.writeBatch();
        }
      }
      writer.end();
    }
    return out.toByteArray();
  }

  /** Every row with each value in one canonical Java form, whatever Arrow type carries it. */
  private static List<List<Object>> canonicalRows(VectorSchemaRoot root) {
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector vector : root.getFieldVectors()) {
        row.add(canonical(vector, r));
      }
      rows.add(row);
    }
    return rows;
  }

  private static Object canonical(FieldVector vector, int i) {
    if (vector.isNull(i)) {
      return null;
    }
    if (vector instanceof MapVector map) {
      StructVector entries = (StructVector) map.getDataVector();
      Map<Object, Object> values = new LinkedHashMap<>();
      for (int e = map.getElementStartIndex(i); e < map.getElementEndIndex(i); e++) {
        values.put(canonical((FieldVector) entries.getChildrenFromFields().get(0), e), canonical(entries.getChildrenFromFields().get(1), e));
      }
      return values;
    }
    if (vector instanceof ListVector list) {
      List<Object> values = new ArrayList<>();
      for (int e = list.getElementStartIndex(i); e < list.getElementEndIndex(i); e++) {
        values.add(canonical(list.getDataVector(), e));
      }
      return values;
    }
    if (vector instanceof StructVector struct) {
      List<Object> values = new ArrayList<>();
      for (FieldVector child : struct.getChildrenFromFields()) {
        values.add(canonical(child, i));
      }
      return values;
    }
    if (vector instanceof BaseIntVector ints) {
      return ints.getValueAsLong(i);
    }
    if (vector instanceof FloatingPointVector floats) {
      return floats.getValueAsDouble(i);
    }
    if (vector instanceof DateDayVector days) {
      return LocalDate.ofEpochDay(days.get(i));
    }
    if (vector instanceof DateMilliVector millis) {
      return LocalDate.ofEpochDay(Math.floorDiv(millis.get(i), 86_400_000L));
    }
    if (vector instanceof TimeMilliVector millis) {
      return LocalTime.ofNanoOfDay(millis.get(i) * 1_000_000L);
    }
    if (vector instanceof TimeMicroVector micros) {
      // SQL reads TIME to the millisecond (Calcite's runtime holds it in an int); the test checks
      // the stored microseconds with Iceberg's own reader instead.
      return LocalTime.ofNanoOfDay(micros.get(i) * 1_000L).truncatedTo(ChronoUnit.MILLIS);
    }
    if (vector instanceof TimeStampVector stamps) {
      ArrowType.Timestamp type = (ArrowType.Timestamp) vector.getField().getType();
      long micros = type.getUnit() == TimeUnit.MILLISECOND ? stamps.get(i) * 1_000L : stamps.get(i);
      return (type.getTimezone() == null ? "local " : "utc ") + micros;
    }
    Object value = vector.getObject(i);
    if (value instanceof Text text) {
      return text.toString();
    }
    if (value instanceof byte[] bytes) {
      return HexFormat.of().formatHex(bytes);
    }
    return value;
  }

  private long ingest(TestServer.Client client, String table, TableNotExistOption ifMissing, TableExistsOption ifExists, Transaction txn, long from, int rows)
      throws Exception {
    Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), nullable("note", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot data = VectorSchemaRoot.create(schema, SERVERS.allocator())) {
      for (int r = 0; r < rows; r++) {
        ((BigIntVector) data.getVector("id")).setSafe(r, from + r);
        ((VarCharVector) data.getVector("note")).setSafe(r, ("row " + (from + r)).getBytes(StandardCharsets.UTF_8));
      }
      data.setRowCount(rows);
      ExecuteIngestOptions options = new ExecuteIngestOptions(
          table, TableDefinitionOptions.newBuilder().setIfNotExist(ifMissing).setIfExists(ifExists).build(), null, "app", Map.of());
      return txn == null
          ? client.sql().executeIngest(data, options, client.auth())
          : client.sql().executeIngest(data, options, txn, client.auth());
    }
  }

  private static List<List<Object>> query(TestServer.Client client, String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        rows.addAll(canonicalRows(stream.getRoot()));
      }
    }
    return rows;
  }

  private static Table table(TestServer server, String name) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("app", name));
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }

  private static java.util.function.Consumer<Throwable> status(FlightStatusCode code) {
    return e -> assertThat(e).isInstanceOfSatisfying(FlightRuntimeException.class, f -> assertThat(f.status().code()).isEqualTo(code));
  }
}
