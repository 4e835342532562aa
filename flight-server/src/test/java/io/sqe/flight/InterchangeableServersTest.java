package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightClientMiddleware;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SyncPutListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SQE servers over one REST catalog, sharing their users and signing keys, are
 * interchangeable for a statement's calls: a ticket one issued is read on another at the
 * snapshots it was planned against, a prepared statement made on one is bound on a second and run
 * on a third, a poll started on one is answered by another, while an altered handle, another
 * user's, or one of a transaction is refused with a clear error.
 */
class InterchangeableServersTest {
  private static final int SERVERS = 3;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private RestCatalogFixture rest;
  private final List<TestServer> servers = new ArrayList<>();
  private final List<FlightClient> clients = new ArrayList<>();
  private CallOption admin;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    Map<String, String> settings = new HashMap<>(rest.sqeSettings());
    settings.put("catalog.cache-ttl", "1s");
    TestServer first = TestServer.start(dir.resolve("sqe-1"), settings);
    servers.add(first);
    for (int i = 2; i <= SERVERS; i++) {
      // The same users and signing keys on every server, as docs/deploy.md says.
      Path security = Files.createDirectories(dir.resolve("sqe-" + i).resolve("security"));
      for (String file : List.of("users.json", "signing-keys.jwks")) {
        Files.copy(dir.resolve("sqe-1/security").resolve(file), security.resolve(file));
      }
      servers.add(TestServer.start(dir.resolve("sqe-" + i), settings, first.adminPassword()));
    }
    for (TestServer server : servers) {
      clients.add(FlightClient.builder(allocator, server.server().location()).build());
    }
    admin = clients.get(0).authenticateBasicToken(TestServer.ADMIN, first.adminPassword()).orElseThrow();
    sql(0).executeUpdate("CREATE SCHEMA lake_test", admin);
    sql(0).executeUpdate("CREATE TABLE lake_test.numbers (id BIGINT, name VARCHAR)", admin);
    sql(0).executeUpdate("INSERT INTO lake_test.numbers VALUES (1, 'one'), (2, 'two'), (3, 'three')", admin);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (FlightClient client : clients) {
      client.close();
    }
    for (TestServer server : servers) {
      server.close();
    }
    rest.close();
    allocator.close();
  }

  private FlightSqlClient sql(int server) {
    return new FlightSqlClient(clients.get(server));
  }

  @Test
  void aTicketIssuedByOneServerIsReadOnAnotherAtThePlannedSnapshot() throws Exception {
    FlightInfo info = sql(0).execute("SELECT count(*), sum(id) FROM lake_test.numbers", admin);
    Ticket ticket = info.getEndpoints().get(0).getTicket();
    assertThat(rows(1, ticket)).containsExactly(List.of(3L, 6L));

    // A commit after the ticket was planned: every server still reads the snapshot it was planned
    // against, the issuing one too, as a load balancer may send the DoGet to either.
    sql(0).executeUpdate("INSERT INTO lake_test.numbers VALUES (10, 'ten')", admin);
    Thread.sleep(1_100); // past the table cache lifetime, so that every server sees the commit
    for (int server = 0; server < SERVERS; server++) {
      assertThat(rows(server, ticket)).as("server " + server).containsExactly(List.of(3L, 6L));
    }
    // A new statement reads the new snapshot.
    FlightInfo now = sql(2).execute("SELECT count(*), sum(id) FROM lake_test.numbers", admin);
    assertThat(rows(1, now.getEndpoints().get(0).getTicket())).containsExactly(List.of(4L, 16L));

    // A command sent as a query (ADBC, dbt) ran on its server; any server returns its count.
    FlightInfo insert = sql(1).execute("INSERT INTO lake_test.numbers VALUES (20, 'twenty'), (21, 'twenty-one')", admin);
    assertThat(rows(2, insert.getEndpoints().get(0).getTicket())).containsExactly(List.of(2L));
    Thread.sleep(1_100); // server 0's table cache may still hold the snapshot before server 1's commit
    assertThat(rows(0, sql(0).execute("SELECT count(*) FROM lake_test.numbers", admin).getEndpoints().get(0).getTicket()))
        .containsExactly(List.of(6L));
  }

  @Test
  void aTicketThatTravelsInTimeReadsEachSnapshotItNamedOnAnotherServer() throws Exception {
    long first = servers.get(0).server().catalogs().all().iterator().next()
        .loadTable(org.apache.iceberg.catalog.TableIdentifier.of("lake_test", "numbers")).orElseThrow().currentSnapshot().snapshotId();
    sql(0).executeUpdate("INSERT INTO lake_test.numbers VALUES (10, 'ten')", admin);
    Ticket ticket = sql(0).execute(
        "SELECT (SELECT count(*) FROM lake_test.numbers), (SELECT count(*) FROM lake_test.numbers FOR VERSION AS OF " + first + ")",
        admin).getEndpoints().get(0).getTicket();
    sql(0).executeUpdate("INSERT INTO lake_test.numbers VALUES (11, 'eleven')", admin);
    // The plain read stays at the snapshot it was planned against, the time travel at the one it names.
    assertThat(rows(1, ticket)).containsExactly(List.of(4L, 3L));
    assertThat(rows(0, ticket)).containsExactly(List.of(4L, 3L));
  }

  @Test
  void aPreparedStatementMadeOnOneServerIsBoundOnASecondAndRunOnAThird() throws Exception {
    ByteString handle = prepare(0, "SELECT name FROM lake_test.numbers WHERE id = ?");
    ByteString bound = bind(1, handle, 2L);
    FlightInfo info = clients.get(2).getInfo(preparedQuery(bound), admin);
    // Its ticket, read on the first server.
    assertThat(rows(0, info.getEndpoints().get(0).getTicket())).containsExactly(List.of("two"));
    // Bound again, elsewhere: the new rows count, not those of the first handle.
    ByteString rebound = bind(2, bound, 3L);
    assertThat(rows(1, clients.get(1).getInfo(preparedQuery(rebound), admin).getEndpoints().get(0).getTicket()))
        .containsExactly(List.of("three"));
    // A prepared statement without parameters, made on one server and run on another.
    ByteString count = prepare(2, "SELECT count(*) FROM lake_test.numbers");
    assertThat(rows(0, clients.get(0).getInfo(preparedQuery(count), admin).getEndpoints().get(0).getTicket()))
        .containsExactly(List.of(3L));
  }

  @Test
  void aPollStartedOnOneServerIsAnsweredByAnother() throws Exception {
    FlightDescriptor query = FlightDescriptor.command(Any.pack(
        org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery.newBuilder()
            .setQuery("SELECT sum(id) FROM lake_test.numbers").build()).toByteArray());
    org.apache.arrow.flight.PollInfo poll = clients.get(0).pollInfo(query, admin);
    while (poll.getFlightDescriptor().isPresent()) {
      poll = clients.get(0).pollInfo(poll.getFlightDescriptor().get(), admin);
    }
    Ticket ticket = poll.getFlightInfo().getEndpoints().get(0).getTicket();
    // A poll's retry descriptor is its ticket: another server, which started nothing, answers
    // with the final FlightInfo naming that ticket, which a third server reads.
    org.apache.arrow.flight.PollInfo elsewhere = clients.get(1).pollInfo(FlightDescriptor.command(ticket.getBytes()), admin);
    assertThat(elsewhere.getFlightDescriptor()).isEmpty();
    assertThat(elsewhere.getProgress()).hasValue(1.0);
    assertThat(rows(2, elsewhere.getFlightInfo().getEndpoints().get(0).getTicket())).containsExactly(List.of(6L));
  }

  @Test
  void anAlteredHandleIsRefused() throws Exception {
    Ticket ticket = sql(0).execute("SELECT count(*) FROM lake_test.numbers", admin).getEndpoints().get(0).getTicket();
    byte[] handle = TicketStatementQuery.parseFrom(Any.parseFrom(ticket.getBytes()).getValue()).getStatementHandle().toByteArray();
    String text = new String(handle, java.nio.charset.StandardCharsets.ISO_8859_1);
    int at = text.indexOf("numbers");
    handle[at] = 'N';
    Ticket altered = new Ticket(Any.pack(
        TicketStatementQuery.newBuilder().setStatementHandle(ByteString.copyFrom(handle)).build()).toByteArray());
    for (int server = 0; server < 2; server++) {
      int on = server;
      assertThatThrownBy(() -> rows(on, altered)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
        assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
        assertThat(e.getMessage()).contains("signature does not verify");
      });
    }
  }

  @Test
  void anotherUserCannotRedeemATicketOrPreparedStatement() throws Exception {
    servers.get(0).server().authentication().users().addUser("mallory", "a long enough password".toCharArray(), Set.of());
    // Each server has its copy of the users, as if shared: the others read it again within a second.
    for (int i = 2; i <= SERVERS; i++) {
      Files.copy(dir.resolve("sqe-1/security/users.json"), dir.resolve("sqe-" + i + "/security/users.json"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Thread.sleep(2_100);
    // A login on the first server: its token works on all.
    CallOption mallory = clients.get(0).authenticateBasicToken("mallory", "a long enough password").orElseThrow();
    Ticket ticket = sql(0).execute("SELECT name FROM lake_test.numbers", admin).getEndpoints().get(0).getTicket();
    ByteString handle = prepare(0, "SELECT name FROM lake_test.numbers");
    for (int server = 0; server < 2; server++) {
      int on = server;
      assertThatThrownBy(() -> drain(clients.get(on).getStream(ticket, mallory))).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
        assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
        assertThat(e.getMessage()).contains("belongs to another user");
      });
      assertThatThrownBy(() -> clients.get(on).getInfo(preparedQuery(handle), mallory)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
        assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
        assertThat(e.getMessage()).contains("belongs to another user");
      });
    }
  }

  @Test
  void aTicketOfATransactionIsReadOnlyOnItsServer() throws Exception {
    FlightSqlClient.Transaction transaction = sql(0).beginTransaction(admin);
    sql(0).executeUpdate("INSERT INTO lake_test.numbers VALUES (4, 'four')", transaction, admin);
    Ticket ticket = sql(0).execute("SELECT count(*) FROM lake_test.numbers", transaction, admin).getEndpoints().get(0).getTicket();
    assertThatThrownBy(() -> rows(1, ticket)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      // SQE's FAILED_PRECONDITION: Flight has no such code and says INVALID_ARGUMENT.
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains("belongs to a transaction").contains("SQE server ").contains("not on this one");
    });
    assertThat(rows(0, ticket)).containsExactly(List.of(4L));
    // A statement of the transaction sent to another server is refused, saying where transactions live.
    assertThatThrownBy(() -> sql(1).executeUpdate("INSERT INTO lake_test.numbers VALUES (5, 'five')", transaction, admin))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
          assertThat(e.getMessage()).contains("Unknown transaction").contains("lives only on the server that began it");
        });
    sql(0).rollback(transaction, admin);
    assertThat(rows(0, sql(0).execute("SELECT count(*) FROM lake_test.numbers", admin).getEndpoints().get(0).getTicket()))
        .containsExactly(List.of(3L));
  }

  @Test
  void aPreparedStatementOfASqlTransactionRunsOnlyOnItsServer() throws Exception {
    drain(clients.get(0).getStream(sql(0).execute("BEGIN", admin).getEndpoints().get(0).getTicket(), admin));
    ByteString handle = prepare(0, "SELECT count(*) FROM lake_test.numbers");
    // Once answered INTERNAL ("There was an error servicing your request"): the refusal escaped as SQE's own exception.
    assertThatThrownBy(() -> clients.get(1).getInfo(preparedQuery(handle), admin)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains("belongs to a transaction").contains("not on this one");
    });
    assertThatThrownBy(() -> clients.get(1).getSchema(preparedQuery(handle), admin)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains("belongs to a transaction");
    });
    drain(clients.get(0).getStream(sql(0).execute("ROLLBACK", admin).getEndpoints().get(0).getTicket(), admin));
  }

  @Test
  void aSqlTransactionBindsItsClientsTokenToItsServer() throws Exception {
    // A client that takes the token a server sends back, as ADBC's driver does.
    AtomicReference<String> token = new AtomicReference<>();
    List<FlightClient> adopting = new ArrayList<>();
    for (TestServer server : servers) {
      adopting.add(FlightClient.builder(allocator, server.server().location()).intercept(info -> new FlightClientMiddleware() {
        @Override
        public void onBeforeSendingHeaders(CallHeaders outgoing) {
          if (token.get() != null) {
            outgoing.insert("authorization", token.get());
          }
        }

        @Override
        public void onHeadersReceived(CallHeaders incoming) {
          String sent = incoming.get("authorization");
          if (sent != null) {
            token.set(sent);
          }
        }

        @Override
        public void onCallCompleted(CallStatus status) {}
      }).build());
    }
    try {
      // The login's answer carries the token, which the client keeps.
      adopting.get(0).authenticateBasicToken(TestServer.ADMIN, servers.get(0).adminPassword()).orElseThrow();
      String before = token.get();
      assertThat(before).startsWith("Bearer ");
      run(adopting.get(0), "BEGIN");
      String bound = token.get();
      assertThat(bound).isNotEqualTo(before);
      // Another server refuses the client's statements, naming the server that holds the transaction.
      for (String statement : List.of("INSERT INTO lake_test.numbers VALUES (9, 'nine')", "COMMIT", "SELECT 1")) {
        assertThatThrownBy(() -> run(adopting.get(1), statement)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("has a transaction open on SQE server").contains("not on this one");
        });
      }
      // Its own server keeps the client's session under the re-signed token: the insert joins the transaction.
      run(adopting.get(0), "INSERT INTO lake_test.numbers VALUES (9, 'nine')");
      assertThat(token.get()).isEqualTo(bound);
      run(adopting.get(0), "ROLLBACK");
      assertThat(token.get()).isNotEqualTo(bound);
      // Unbound again: any server takes the client's statements, and the rolled back row is not there.
      assertThat(run(adopting.get(2), "SELECT count(*) FROM lake_test.numbers WHERE id = 9")).containsExactly(List.of(0L));
      run(adopting.get(1), "BEGIN");
      run(adopting.get(1), "INSERT INTO lake_test.numbers VALUES (10, 'ten')");
      run(adopting.get(1), "COMMIT");
      // (Read where it committed: these servers keep loaded tables for a second, catalog.cache-ttl.)
      assertThat(run(adopting.get(1), "SELECT name FROM lake_test.numbers WHERE id = 10")).containsExactly(List.of("ten"));
    } finally {
      for (FlightClient client : adopting) {
        client.close();
      }
    }
  }

  /** Runs a statement as ADBC does (GetFlightInfo, then DoGet on the same server) and returns its rows. */
  private static List<List<Object>> run(FlightClient client, String statement) throws Exception {
    FlightSqlClient sql = new FlightSqlClient(client);
    return drain(client.getStream(sql.execute(statement).getEndpoints().get(0).getTicket()));
  }

  private List<List<Object>> rows(int server, Ticket ticket) throws Exception {
    return drain(clients.get(server).getStream(ticket, admin));
  }

  private static List<List<Object>> drain(FlightStream stream) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (stream) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private ByteString prepare(int server, String query) throws Exception {
    ActionCreatePreparedStatementRequest request = ActionCreatePreparedStatementRequest.newBuilder().setQuery(query).build();
    var results = clients.get(server).doAction(new Action("CreatePreparedStatement", Any.pack(request).toByteArray()), admin);
    Result first = results.next();
    while (results.hasNext()) {
      results.next();
    }
    return Any.parseFrom(first.getBody()).unpack(ActionCreatePreparedStatementResult.class).getPreparedStatementHandle();
  }

  private static FlightDescriptor preparedQuery(ByteString handle) {
    return FlightDescriptor.command(Any.pack(CommandPreparedStatementQuery.newBuilder().setPreparedStatementHandle(handle).build()).toByteArray());
  }

  /** Binds one BIGINT parameter on {@code server}, as a Flight SQL client does; returns the handle the server answers with. */
  private ByteString bind(int server, ByteString handle, long value) throws Exception {
    Schema schema = new Schema(List.of(Field.nullable("parameter_1", new ArrowType.Int(64, true))));
    try (VectorSchemaRoot parameters = VectorSchemaRoot.create(schema, allocator)) {
      ((BigIntVector) parameters.getVector(0)).setSafe(0, value);
      parameters.setRowCount(1);
      SyncPutListener listener = new SyncPutListener();
      FlightClient.ClientStreamListener put = clients.get(server).startPut(preparedQuery(handle), parameters, listener, admin);
      put.putNext();
      put.completed();
      try (PutResult result = listener.read()) {
        put.getResult();
        return DoPutPreparedStatementResult.parseFrom(result.getApplicationMetadata().nioBuffer()).getPreparedStatementHandle();
      }
    }
  }
}
