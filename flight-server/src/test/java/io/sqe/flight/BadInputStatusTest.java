package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.CodedOutputStream;
import io.sqe.flight.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed or unsuitable input sent through the real Flight SQL client gets INVALID_ARGUMENT
 * (NOT_FOUND for names that do not exist) with a message saying what is wrong; never UNKNOWN,
 * INTERNAL or a reset stream. After each test the server still answers.
 */
class BadInputStatusTest {
  private static final byte[] GARBAGE = {(byte) 0xff, 0x13, 0x37, (byte) 0x80, 0x01};
  private static final int NESTING = 2_000;

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static FlightClient flight;
  private static FlightSqlClient sql;
  private static CallOption auth;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    allocator = new RootAllocator();
    flight = FlightClient.builder(allocator, server.server().location()).build();
    auth = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
    sql = new FlightSqlClient(flight);
    sql.executeUpdate("CREATE SCHEMA s", auth);
    sql.executeUpdate("CREATE TABLE s.nation (n_nationkey INT, n_name VARCHAR)", auth);
    sql.executeUpdate("INSERT INTO s.nation VALUES (1, 'ALGERIA'), (2, 'ARGENTINA')", auth);
  }

  @AfterEach
  void theServerStillServes() throws Exception {
    assertThat(query("select 40 + 2")).containsExactly(List.of(42));
  }

  @AfterAll
  static void stop() throws Exception {
    sql.close();
    server.close();
    allocator.close();
  }

  @Test
  void anUnknownOrMistypedSessionPropertyIsInvalid() {
    assertInvalid(() -> sql.executeUpdate("SET plan_cache = false", auth), "plan_cache");
    assertInvalid(() -> query("SET plan_cache = false"), "plan_cache");
    assertInvalid(() -> sql.executeUpdate("SET time_zone = 42", auth), "time zone '42'");
  }

  @Test
  void aNullCatalogOrSchemaIsInvalid() {
    assertInvalid(() -> sql.executeUpdate("SET catalog = null", auth), "catalog");
    assertInvalid(() -> sql.executeUpdate("SET schema = null", auth), "schema");
    assertInvalid(() -> sql.executeUpdate("SET statement_timeout = null", auth), "statement_timeout");
  }

  @Test
  void comparingANumberColumnWithTextThatIsNoNumberIsInvalid() {
    assertInvalid(() -> query("select n_name from s.nation where n_nationkey = 'a'"), "Invalid number");
  }

  @Test
  void aNulInATableNameIsInvalid() {
    assertInvalid(() -> query("select * from s.\"na\u0000tion\""), "NUL");
    assertInvalid(() -> sql.executeUpdate("CREATE TABLE s.\"t\u0000x\" (a INT)", auth), "NUL");
    assertInvalid(() -> sql.executeUpdate("CREATE SCHEMA \"s\u0000x\"", auth), "NUL");
  }

  @Test
  void aNulInANameSentOutsideSqlIsInvalid() throws Exception {
    try (VectorSchemaRoot data = VectorSchemaRoot.of(new IntVector("a", allocator))) {
      data.setRowCount(0);
      assertInvalid(() -> sql.executeIngest(data, ingest("t\u0000x"), auth), "NUL");
    }
    Map<String, SessionOptionValue> options = Map.of(
        "schema", SessionOptionValueFactory.makeSessionOptionValue("s\u0000x"),
        "catalog", SessionOptionValueFactory.makeSessionOptionValue("iceberg\u0000"));
    SetSessionOptionsResult result = flight.setSessionOptions(new SetSessionOptionsRequest(options), auth);
    assertThat(result.getErrors()).containsOnlyKeys("schema", "catalog");
  }

  @Test
  void bulkIngestOfNanosecondTimestampsIntoANewTableIsInvalid() {
    try (VectorSchemaRoot data = VectorSchemaRoot.of(new TimeStampNanoVector("ts", allocator))) {
      TimeStampNanoVector ts = (TimeStampNanoVector) data.getVector("ts");
      ts.allocateNew(1);
      ts.set(0, 1_700_000_000_123_456_789L);
      ts.setValueCount(1);
      data.setRowCount(1);
      assertInvalid(() -> sql.executeIngest(data, ingest("nanos"), auth), "nanosecond");
    }
    assertThatThrownBy(() -> query("select count(*) from s.nanos"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
  }

  private static ExecuteIngestOptions ingest(String table) {
    return new ExecuteIngestOptions(
        table,
        TableDefinitionOptions.newBuilder()
            .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_FAIL)
            .build(),
        "iceberg",
        "s",
        Map.of());
  }

  @Test
  void aGarbageSessionOptionsBodyIsInvalid() {
    for (String action : List.of("SetSessionOptions", "GetSessionOptions", "CloseSession")) {
      assertInvalid(() -> results(new Action(action, GARBAGE)), "");
    }
  }

  @Test
  void aDeeplyNestedMessageIsInvalid() throws Exception {
    // Any keeps its value as bytes, so nested Anys are read one level at a time: an Any of an Any
    // is a command of an unknown kind.
    byte[] nestedAny = nestedAny(NESTING);
    List<String> anyActions = List.of("CreatePreparedStatement", "BeginTransaction", "EndTransaction", "CancelQuery");
    // Groups are read recursively, by protobuf's parser up to its nesting limit of 100.
    byte[] nestedGroups = nestedGroups(NESTING);
    List<String> allActions = List.of(
        "SetSessionOptions", "GetSessionOptions", "CloseSession", "CancelFlightInfo", "RenewFlightEndpoint",
        "CreatePreparedStatement", "BeginTransaction", "EndTransaction", "CancelQuery");
    for (byte[] body : List.of(nestedAny, nestedGroups)) {
      assertInvalid(() -> flight.getInfo(FlightDescriptor.command(body), auth), "");
      assertInvalid(() -> flight.getSchema(FlightDescriptor.command(body), auth), "");
      assertInvalid(() -> flight.pollInfo(FlightDescriptor.command(body), auth), "");
      assertInvalid(() -> drain(flight.getStream(new Ticket(body), auth)), "");
      for (String action : body == nestedAny ? anyActions : allActions) {
        assertThatThrownBy(() -> results(new Action(action, body))).as(action).isInstanceOfSatisfying(
            FlightRuntimeException.class, e -> assertThat(e.status().code()).as(e.getMessage()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
      }
    }
  }

  /** An Any that holds an Any that holds ... a statement, {@code depth} levels deep. */
  private static byte[] nestedAny(int depth) {
    Any any = Any.pack(CommandStatementQuery.newBuilder().setQuery("select 1").build());
    for (int i = 0; i < depth; i++) {
      any = Any.newBuilder().setTypeUrl("type.googleapis.com/google.protobuf.Any").setValue(any.toByteString()).build();
    }
    return any.toByteArray();
  }

  /** Unknown group fields nested {@code depth} levels, which a parser reads recursively. */
  private static byte[] nestedGroups(int depth) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    for (int i = 0; i < depth; i++) {
      out.writeTag(99, com.google.protobuf.WireFormat.WIRETYPE_START_GROUP);
    }
    for (int i = 0; i < depth; i++) {
      out.writeTag(99, com.google.protobuf.WireFormat.WIRETYPE_END_GROUP);
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static List<List<Object>> query(String statement) throws Exception {
    FlightInfo info = sql.execute(statement, auth);
    return drain(sql.getStream(info.getEndpoints().get(0).getTicket(), auth));
  }

  private static void results(Action action) {
    Iterator<Result> results = flight.doAction(action, auth);
    while (results.hasNext()) {
      results.next();
    }
  }

  private static void assertInvalid(ThrowingCallable call, String mentioned) {
    assertThatThrownBy(call).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).as(e.getMessage()).isIn(FlightStatusCode.INVALID_ARGUMENT, FlightStatusCode.NOT_FOUND);
      assertThat(e.getMessage()).contains(mentioned);
    });
  }
}
