package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import io.sqe.flight.testing.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queries through Arrow's FlightSqlClient against a real server and a real embedded catalog. */
class FlightSqlQueryTest {
  private static final Schema NUMBERS =
      new Schema(
          Types.NestedField.required(1, "n", Types.LongType.get()),
          Types.NestedField.optional(2, "label", Types.StringType.get()),
          Types.NestedField.optional(3, "bucket", Types.IntegerType.get()));
  private static final int ROWS = 50_000;

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer server;
  private static TestServer.Client client;

  @BeforeAll
  static void start() {
    allocator = new RootAllocator();
    server = TestServer.start(dir, Map.of("query.max-memory", "256m"));
    List<Record> rows = new ArrayList<>();
    for (long n = 0; n < ROWS; n++) {
      Record r = GenericRecord.create(NUMBERS);
      r.setField("n", n);
      r.setField("label", n % 10 == 0 ? null : "label-" + n);
      r.setField("bucket", (int) (n % 7));
      rows.add(r);
    }
    TestTables.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", NUMBERS, rows, 10_000);
    client = server.client(allocator);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  private static List<List<Object>> rows(FlightInfo info) throws Exception {
    return client.rows(info);
  }

  private static List<List<Object>> query(String sql) throws Exception {
    return rows(client.sql().execute(sql, client.auth()));
  }

  @Test
  void streamsALargeResultInManyBatches() throws Exception {
    // Three copies of the table: more rows than one record batch holds.
    FlightInfo info =
        client.sql().execute("select a.n, a.label from s.numbers a cross join (values 1, 2, 3) b(x)", client.auth());
    long rows = 0;
    long sum = 0;
    int batches = 0;
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      while (stream.next()) {
        batches++;
        BigIntVector n = (BigIntVector) stream.getRoot().getVector("n");
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          sum += n.get(i);
        }
        rows += stream.getRoot().getRowCount();
      }
    }
    assertThat(rows).isEqualTo(3L * ROWS);
    assertThat(sum).isEqualTo(3L * ROWS * (ROWS - 1) / 2);
    assertThat(batches).isGreaterThan(1);
  }

  @Test
  void aggregatesMatchAnInvariant() throws Exception {
    List<List<Object>> rows = query("select bucket, count(*) c, count(label) l from s.numbers group by bucket order by bucket");
    assertThat(rows).hasSize(7);
    long total = rows.stream().mapToLong(r -> (Long) r.get(1)).sum();
    long labelled = rows.stream().mapToLong(r -> (Long) r.get(2)).sum();
    assertThat(total).isEqualTo(ROWS);
    assertThat(labelled).isEqualTo(ROWS - ROWS / 10);
  }

  @Test
  void preparedStatementBindsParametersThroughDoPut() throws Exception {
    FlightSqlClient.PreparedStatement prepared =
        client.sql().prepare("select count(*) from s.numbers where n < ? and bucket = ?", client.auth());
    try {
      assertThat(prepared.getParameterSchema().getFields()).hasSize(2);
      try (VectorSchemaRoot params = VectorSchemaRoot.create(prepared.getParameterSchema(), allocator)) {
        params.allocateNew();
        ((BigIntVector) params.getVector(0)).setSafe(0, 700);
        ((IntVector) params.getVector(1)).setSafe(0, 3);
        params.setRowCount(1);
        prepared.setParameters(params);
        List<List<Object>> rows = rows(prepared.execute(client.auth()));
        assertThat(rows).containsExactly(List.of(100L));
      }
    } finally {
      prepared.close(client.auth());
    }
  }

  @Test
  void syntaxErrorIsInvalidArgumentWithPosition() {
    assertThatThrownBy(() -> client.sql().execute("select n from s.numbers wher n > 1", client.auth()))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("line 1, column");
        });
  }

  @Test
  void unknownTableIsNotFound() {
    assertThatThrownBy(() -> client.sql().execute("select * from s.missing", client.auth()))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
          assertThat(e.getMessage()).contains("missing");
        });
  }

  @Test
  void divisionByZeroFailsTheStreamCleanly() throws Exception {
    FlightInfo info = client.sql().execute("select n / (bucket - bucket) from s.numbers", client.auth());
    assertThatThrownBy(() -> rows(info))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
    assertThat(query("select count(*) from s.numbers")).containsExactly(List.of((long) ROWS));
  }

  @Test
  void callsWithoutATokenAreUnauthenticated() throws Exception {
    try (FlightClient anonymous = FlightClient.builder(allocator, server.server().location()).build();
        FlightSqlClient sql = new FlightSqlClient(anonymous)) {
      assertThatThrownBy(() -> sql.execute("select 1"))
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
  }
}
