package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.assertCode;
import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.StringValue;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that send what the server cannot use get a clear error through raw Flight calls
 * (INVALID_ARGUMENT for what is malformed or unknown, NOT_FOUND for handles and tickets no server
 * issued, UNAUTHORIZED for another user's), and the server keeps serving: after each test the
 * same client still runs a query.
 */
class BadClientTest {
  private static final byte[] GARBAGE = {(byte) 0xff, 0x13, 0x37, (byte) 0x80, 0x01};
  private static final String OTHER = "mallory";
  private static final String PASSWORD = "a long enough password";

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static FlightClient flight;
  private static FlightSqlClient sql;
  private static CallOption auth;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    server.server().authentication().users().addUser(OTHER, PASSWORD.toCharArray(), Set.of());
    allocator = new RootAllocator();
    flight = FlightClient.builder(allocator, server.server().location()).build();
    auth = flight.authenticateBasicToken(TestServer.ADMIN, server.adminPassword()).orElseThrow();
    sql = new FlightSqlClient(flight);
  }

  @AfterEach
  void theServerStillServes() throws Exception {
    FlightInfo info = sql.execute("select 40 + 2", auth);
    assertThat(drain(sql.getStream(info.getEndpoints().get(0).getTicket(), auth))).containsExactly(List.of(42));
  }

  @AfterAll
  static void stop() throws Exception {
    sql.close();
    server.close();
    allocator.close();
  }

  @Test
  void aCommandThatIsNoProtobufIsInvalid() {
    assertCode(() -> flight.getInfo(FlightDescriptor.command(GARBAGE), auth), FlightStatusCode.INVALID_ARGUMENT);
    assertCode(() -> flight.getSchema(FlightDescriptor.command(GARBAGE), auth), FlightStatusCode.INVALID_ARGUMENT);
    assertCode(() -> flight.pollInfo(FlightDescriptor.command(GARBAGE), auth), FlightStatusCode.INVALID_ARGUMENT);
  }

  @Test
  void anUnknownCommandIsInvalid() {
    byte[] unknown = Any.pack(StringValue.of("select 1")).toByteArray();
    assertCode(() -> flight.getInfo(FlightDescriptor.command(unknown), auth), FlightStatusCode.INVALID_ARGUMENT);
    assertCode(() -> flight.pollInfo(FlightDescriptor.command(unknown), auth), FlightStatusCode.INVALID_ARGUMENT);
    assertCode(() -> flight.getInfo(FlightDescriptor.path("some", "path"), auth), FlightStatusCode.INVALID_ARGUMENT);
  }

  @Test
  void unknownActionsAndMalformedActionBodiesAreInvalid() {
    List<String> listed = new java.util.ArrayList<>();
    flight.listActions(auth).forEach(action -> listed.add(action.getType()));
    assertThat(listed).contains("CancelFlightInfo", "CancelQuery", "RenewFlightEndpoint", "CreatePreparedStatement", "SetSessionOptions");
    assertCode(() -> results(new Action("DropEverything", new byte[0])), FlightStatusCode.INVALID_ARGUMENT);
    for (String action : List.of("CancelFlightInfo", "CancelQuery", "RenewFlightEndpoint", "CreatePreparedStatement", "BeginTransaction")) {
      assertCode(() -> results(new Action(action, GARBAGE)), FlightStatusCode.INVALID_ARGUMENT);
    }
  }

  @Test
  void aTicketThatIsNoProtobufOrOfAnUnknownKindIsInvalid() {
    assertCode(() -> drain(flight.getStream(new Ticket(GARBAGE), auth)), FlightStatusCode.INVALID_ARGUMENT);
    Ticket unknown = new Ticket(Any.pack(StringValue.of("x")).toByteArray());
    assertCode(() -> drain(flight.getStream(unknown, auth)), FlightStatusCode.INVALID_ARGUMENT);
  }

  @Test
  void aStaleTicketIsNotFound() {
    Ticket stale = new Ticket(Any.pack(
        TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFromUtf8("00000000-0000-0000-0000-000000000000")).build())
        .toByteArray());
    assertCode(() -> drain(flight.getStream(stale, auth)), FlightStatusCode.NOT_FOUND);
  }

  @Test
  void aMadeUpPreparedStatementHandleIsNotFoundAndAClosedOneIsPlannedAgain() throws Exception {
    byte[] madeUp = preparedQuery(ByteString.copyFromUtf8("made-up"));
    assertCode(() -> flight.getInfo(FlightDescriptor.command(madeUp), auth), FlightStatusCode.NOT_FOUND);
    assertCode(() -> drain(flight.getStream(new Ticket(madeUp), auth)), FlightStatusCode.NOT_FOUND);

    ByteString handle = prepare(flight, auth, "select 1");
    byte[] close = Any.pack(ActionClosePreparedStatementRequest.newBuilder().setPreparedStatementHandle(handle).build()).toByteArray();
    results(new Action("ClosePreparedStatement", close));
    // Closing frees what the server kept; the handle carries its statement, as for any server
    // that never kept it, until it expires.
    byte[] command = preparedQuery(handle);
    flight.getInfo(FlightDescriptor.command(command), auth);
    drain(flight.getStream(new Ticket(command), auth));
    // Closing a statement twice is harmless.
    results(new Action("ClosePreparedStatement", close));
  }

  @Test
  void anotherUsersTicketAndPreparedStatementAreRefused() throws Exception {
    FlightClient other = FlightClient.builder(allocator, server.server().location()).build();
    try (FlightSqlClient otherSql = new FlightSqlClient(other)) {
      CallOption otherAuth = other.authenticateBasicToken(OTHER, PASSWORD).orElseThrow();
      FlightInfo info = sql.execute("select 1", auth);
      assertCode(() -> drain(other.getStream(info.getEndpoints().get(0).getTicket(), otherAuth)), FlightStatusCode.UNAUTHORIZED);
      byte[] command = preparedQuery(prepare(flight, auth, "select 2"));
      assertCode(() -> other.getInfo(FlightDescriptor.command(command), otherAuth), FlightStatusCode.UNAUTHORIZED);
      assertCode(() -> drain(other.getStream(new Ticket(command), otherAuth)), FlightStatusCode.UNAUTHORIZED);
      // The owner still reads its ticket.
      assertThat(drain(sql.getStream(info.getEndpoints().get(0).getTicket(), auth))).containsExactly(List.of(1));
    }
  }

  @Test
  void aPutOfAnUnknownCommandIsInvalid() throws Exception {
    byte[] unknown = Any.pack(StringValue.of("insert")).toByteArray();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of()), allocator)) {
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener put = flight.startPut(FlightDescriptor.command(unknown), root, listener, auth);
      put.completed();
      assertCode(put::getResult, FlightStatusCode.INVALID_ARGUMENT);
      listener.close();
    }
  }

  private static void results(Action action) {
    Iterator<Result> results = flight.doAction(action, auth);
    while (results.hasNext()) {
      results.next();
    }
  }

  /** Prepares a statement through the raw action and returns its handle. */
  private static ByteString prepare(FlightClient client, CallOption as, String query) throws Exception {
    byte[] body = Any.pack(ActionCreatePreparedStatementRequest.newBuilder().setQuery(query).build()).toByteArray();
    Iterator<Result> results = client.doAction(new Action("CreatePreparedStatement", body), as);
    ActionCreatePreparedStatementResult result =
        Any.parseFrom(results.next().getBody()).unpack(ActionCreatePreparedStatementResult.class);
    while (results.hasNext()) {
      results.next();
    }
    return result.getPreparedStatementHandle();
  }

  private static byte[] preparedQuery(ByteString handle) {
    return Any.pack(CommandPreparedStatementQuery.newBuilder().setPreparedStatementHandle(handle).build()).toByteArray();
  }
}
