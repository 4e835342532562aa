package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prepared statements through Arrow's FlightSqlClient: create, bind parameters of each type
 * through DoPut (one or several rows), execute, close; and the same through the JDBC driver.
 * Expected counts come from the rows the test wrote.
 */
class PreparedStatementTest {
  private static final Schema EVENTS =
      new Schema(
          NestedField.required(1, "id", Types.LongType.get()),
          NestedField.optional(2, "kind", Types.StringType.get()),
          NestedField.optional(3, "qty", Types.IntegerType.get()),
          NestedField.optional(4, "price", Types.DecimalType.of(10, 2)),
          NestedField.optional(5, "ratio", Types.DoubleType.get()),
          NestedField.optional(6, "flag", Types.BooleanType.get()),
          NestedField.optional(7, "day", Types.DateType.get()),
          NestedField.optional(8, "at", Types.TimestampType.withoutZone()),
          NestedField.optional(9, "at_utc", Types.TimestampType.withZone()),
          NestedField.optional(10, "ref", Types.UUIDType.get()),
          NestedField.optional(11, "blob", Types.BinaryType.get()));
  private static final int ROWS = 200;

  @TempDir static Path dir;
  private static TestServer server;
  private static RootAllocator allocator;
  private static TestServer.Client client;
  private static List<Record> rows;

  @BeforeAll
  static void start() {
    server = TestServer.start(dir, Map.of());
    rows = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      Record r = GenericRecord.create(EVENTS);
      r.setField("id", id);
      r.setField("kind", id % 9 == 0 ? null : "kind-" + id % 4);
      r.setField("qty", (int) (id % 7));
      r.setField("price", BigDecimal.valueOf(id % 10 * 125, 2));
      r.setField("ratio", id % 5 / 4.0);
      r.setField("flag", id % 3 == 0);
      r.setField("day", LocalDate.of(2024, 2, 27).plusDays(id % 5));
      r.setField("at", LocalDateTime.of(2024, 1, 1, 0, 0).plusMinutes(id % 6 * 15));
      r.setField("at_utc", OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(id % 8));
      r.setField("ref", new UUID(0, id % 11));
      r.setField("blob", ByteBuffer.wrap(("b" + id % 6).getBytes(StandardCharsets.UTF_8)));
      rows.add(r);
    }
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "app", "events", EVENTS, rows, 50);
    allocator = new RootAllocator();
    client = server.client(allocator);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  private static long expectedCount(String column, Object value) {
    return rows.stream().filter(r -> Objects.equals(r.getField(column), value)).count();
  }

  @Test
  void eachColumnTypeBindsAsAParameter() throws Exception {
    Record probe = rows.get(37);
    assertCount("id", probe.getField("id"), (v, i) -> ((BigIntVector) v).setSafe(i, (Long) probe.getField("id")));
    assertCount("kind", probe.getField("kind"), (v, i) -> ((VarCharVector) v).setSafe(i, ((String) probe.getField("kind")).getBytes(StandardCharsets.UTF_8)));
    assertCount("qty", probe.getField("qty"), (v, i) -> ((IntVector) v).setSafe(i, (Integer) probe.getField("qty")));
    assertCount("price", probe.getField("price"), (v, i) -> ((DecimalVector) v).setSafe(i, (BigDecimal) probe.getField("price")));
    assertCount("ratio", probe.getField("ratio"), (v, i) -> ((Float8Vector) v).setSafe(i, (Double) probe.getField("ratio")));
    assertCount("flag", probe.getField("flag"), (v, i) -> ((BitVector) v).setSafe(i, (Boolean) probe.getField("flag") ? 1 : 0));
    assertCount("day", probe.getField("day"), (v, i) -> ((DateDayVector) v).setSafe(i, (int) ((LocalDate) probe.getField("day")).toEpochDay()));
    assertCount("at", probe.getField("at"), (v, i) -> ((TimeStampMicroVector) v).setSafe(i, micros(((LocalDateTime) probe.getField("at")).toInstant(ZoneOffset.UTC).toEpochMilli())));
    assertCount("at_utc", probe.getField("at_utc"), (v, i) -> ((TimeStampMicroTZVector) v).setSafe(i, micros(((OffsetDateTime) probe.getField("at_utc")).toInstant().toEpochMilli())));
    assertCount("ref", probe.getField("ref"), (v, i) -> ((FixedSizeBinaryVector) v).setSafe(i, bytes((UUID) probe.getField("ref"))));
    assertCount("blob", probe.getField("blob"), (v, i) -> ((VarBinaryVector) v).setSafe(i, ((ByteBuffer) probe.getField("blob")).array()));
  }

  private interface Setter {
    void set(FieldVector vector, int index);
  }

  private static void assertCount(String column, Object value, Setter setter) throws Exception {
    FlightSqlClient.PreparedStatement prepared =
        client.sql().prepare("select count(*) from app.events where \"" + column + "\" = ?", client.auth());
    try (VectorSchemaRoot parameters = VectorSchemaRoot.create(prepared.getParameterSchema(), allocator)) {
      parameters.allocateNew();
      setter.set(parameters.getVector(0), 0);
      parameters.setRowCount(1);
      prepared.setParameters(parameters);
      assertThat(counts(prepared)).as(column).containsExactly(expectedCount(column, value));
    } finally {
      prepared.close(client.auth());
    }
  }

  @Test
  void severalParameterRowsGiveOneResultEachAndRebindingReplacesThem() throws Exception {
    FlightSqlClient.PreparedStatement prepared =
        client.sql().prepare("select count(*) from app.events where kind = ? and qty < ?", client.auth());
    try (VectorSchemaRoot parameters = VectorSchemaRoot.create(prepared.getParameterSchema(), allocator)) {
      String[] kinds = {"kind-1", "kind-2", "kind-3"};
      int[] limits = {3, 7, 0};
      bind(parameters, kinds, limits);
      prepared.setParameters(parameters);
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < kinds.length; i++) {
        String kind = kinds[i];
        int limit = limits[i];
        expected.add(rows.stream().filter(r -> kind.equals(r.getField("kind")) && (Integer) r.getField("qty") < limit).count());
      }
      assertThat(counts(prepared)).isEqualTo(expected);

      bind(parameters, new String[] {"kind-0"}, new int[] {5});
      prepared.setParameters(parameters);
      assertThat(counts(prepared))
          .containsExactly(rows.stream().filter(r -> "kind-0".equals(r.getField("kind")) && (Integer) r.getField("qty") < 5).count());

      // A null parameter compares as SQL NULL does: with nothing.
      parameters.allocateNew();
      parameters.getVector(0).setNull(0);
      ((IntVector) parameters.getVector(1)).setSafe(0, 100);
      parameters.setRowCount(1);
      prepared.setParameters(parameters);
      assertThat(counts(prepared)).containsExactly(0L);
    } finally {
      prepared.close(client.auth());
    }
  }

  private static void bind(VectorSchemaRoot parameters, String[] kinds, int[] limits) {
    parameters.allocateNew();
    for (int i = 0; i < kinds.length; i++) {
      ((VarCharVector) parameters.getVector(0)).setSafe(i, kinds[i].getBytes(StandardCharsets.UTF_8));
      ((IntVector) parameters.getVector(1)).setSafe(i, limits[i]);
    }
    parameters.setRowCount(kinds.length);
  }

  @Test
  void misuseIsAnErrorNotAHang() throws Exception {
    FlightSqlClient.PreparedStatement prepared =
        client.sql().prepare("select count(*) from app.events where id < ?", client.auth());
    // Executing before binding the statement's parameter.
    assertThatThrownBy(() -> counts(prepared))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
    prepared.close(client.auth());
    // Executing after closing it.
    assertThatThrownBy(() -> counts(prepared)).isInstanceOf(RuntimeException.class);
    // A statement that does not validate fails at prepare, with its position.
    assertThatThrownBy(() -> client.sql().prepare("select count(*) from app.events where nope = ?", client.auth()))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("line 1, column 39");
        });
  }

  @Test
  void jdbcBindsTypedParameters() throws Exception {
    Record probe = rows.get(58);
    try (Connection connection =
            DriverManager.getConnection(server.jdbcUrl() + "&user=admin&password=" + server.adminPassword());
        PreparedStatement statement =
            connection.prepareStatement(
                "select count(*) from app.events where kind = ? and price = ? and \"day\" = ? and flag = ? and ratio = ?")) {
      statement.setString(1, (String) probe.getField("kind"));
      statement.setBigDecimal(2, (BigDecimal) probe.getField("price"));
      statement.setDate(3, java.sql.Date.valueOf((LocalDate) probe.getField("day")));
      statement.setBoolean(4, (Boolean) probe.getField("flag"));
      statement.setDouble(5, (Double) probe.getField("ratio"));
      long expected =
          rows.stream()
              .filter(r -> Objects.equals(r.getField("kind"), probe.getField("kind")))
              .filter(r -> r.getField("price").equals(probe.getField("price")))
              .filter(r -> r.getField("day").equals(probe.getField("day")))
              .filter(r -> r.getField("flag").equals(probe.getField("flag")))
              .filter(r -> r.getField("ratio").equals(probe.getField("ratio")))
              .count();
      assertThat(expected).isPositive();
      try (ResultSet rs = statement.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(expected);
      }
    }
  }

  private static List<Long> counts(FlightSqlClient.PreparedStatement prepared) throws Exception {
    List<Long> counts = new ArrayList<>();
    var info = prepared.execute(client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        BigIntVector v = (BigIntVector) stream.getRoot().getVector(0);
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          counts.add(v.get(i));
        }
      }
    }
    return counts;
  }

  private static long micros(long millis) {
    return millis * 1000L;
  }

  private static byte[] bytes(UUID uuid) {
    return ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();
  }
}
