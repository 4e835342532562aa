package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.PreparedStatement;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What tickets keep is bounded per user and in total: GetFlightInfo after GetFlightInfo with large
 * statements never read evicts the oldest tickets (those already read first), which still work,
 * planned again from what they carry, as do evicted prepared statements; a statement larger
 * than a user's limit is refused with RESOURCE_EXHAUSTED, one user's tickets do not evict another's
 * below the total, and a command's count keeps none of its statement's text. Prepared statement
 * handles are bounded alike, apart from tickets: a user's new handles evict their oldest.
 */
class TicketLimitTest {
  /** About 0.4 MB of statement, some 0.8 MB as counted (UTF-16). */
  private static final int PADDING = 400_000;

  @TempDir Path dir;
  private TestServer server;
  private BufferAllocator allocator;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = TestServer.start(dir, Map.of("query.tickets.max-bytes-per-user", "2m", "query.tickets.max-bytes", "3m"));
    for (String user : List.of("alice", "bob", "carol")) {
      server.server().authentication().users().addUser(user, "a long enough password".toCharArray(), Set.of());
    }
    allocator = new RootAllocator();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable client : clients) {
      client.close();
    }
    server.close();
    allocator.close();
  }

  @Test
  void aUsersUnreadTicketsEvictTheirOldestReadOnesFirst() throws Exception {
    User alice = login("alice");
    FlightInfo first = alice.big(1);
    assertThat(alice.read(first)).containsExactly(List.of(1));
    FlightInfo second = alice.big(2);
    // 0.8 + 0.8 MB kept; the third needs room under 2 MB: the first, which was read, goes.
    FlightInfo third = alice.big(3);
    assertThat(alice.read(second)).containsExactly(List.of(2));
    assertThat(alice.read(third)).containsExactly(List.of(3));
    assertPlannedAgain("tickets", () -> assertThat(alice.read(first)).containsExactly(List.of(1)));

    // Unread ones go too, oldest first, when nothing read is left to evict.
    List<FlightInfo> unread = new ArrayList<>();
    for (int i = 10; i < 15; i++) {
      unread.add(alice.big(i));
    }
    for (int i = 0; i < 3; i++) {
      int index = i;
      assertPlannedAgain("tickets", () -> assertThat(alice.read(unread.get(index))).containsExactly(List.of(10 + index)));
    }
    assertThat(alice.read(unread.get(3))).containsExactly(List.of(13));
    assertThat(alice.read(unread.get(4))).containsExactly(List.of(14));
    assertThat(kept()).isLessThanOrEqualTo(3 << 20);
  }

  @Test
  void aStatementLargerThanAUsersLimitIsRefused() throws Exception {
    User alice = login("alice");
    String huge = "select 1 /* " + "x".repeat(1_100_000) + " */";
    assertThatThrownBy(() -> alice.sql.execute(huge, alice.auth)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
      assertThat(e.getMessage()).contains("query.tickets.max-bytes-per-user");
    });
    assertThat(alice.read(alice.big(1))).containsExactly(List.of(1));
  }

  @Test
  void oneUserEvictsOnlyTheirOwnUnderTheirLimitAndTheOldestOfAllOverTheTotal() throws Exception {
    User alice = login("alice");
    User bob = login("bob");
    FlightInfo bobs = bob.big(7);
    for (int i = 0; i < 10; i++) {
      alice.big(i);
    }
    assertThat(bob.read(bobs)).as("alice's tickets stay within her own limit").containsExactly(List.of(7));

    User carol = login("carol");
    FlightInfo bobsUnread = bob.big(8);
    // alice 1.6 MB + bob 0.8 MB (his read one made room) = 2.4 MB; carol's 0.8 MB passes the 3 MB total:
    // the oldest ticket of anyone goes, alice's.
    FlightInfo carols = carol.big(9);
    assertThat(carol.read(carols)).containsExactly(List.of(9));
    assertThat(bob.read(bobsUnread)).containsExactly(List.of(8));
    assertThat(kept()).isLessThanOrEqualTo(3 << 20);
  }

  @Test
  void aCommandsTicketKeepsNoneOfItsText() throws Exception {
    User alice = login("alice");
    alice.sql.executeUpdate("CREATE SCHEMA s", alice.auth);
    alice.sql.executeUpdate("CREATE TABLE s.t (x INT)", alice.auth);
    List<FlightInfo> counts = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      // Run as a query (as ADBC and dbt send statements): the FlightInfo's ticket returns the count.
      counts.add(alice.sql.execute("INSERT INTO s.t VALUES (" + i + ") /* " + "x".repeat(PADDING) + " */", alice.auth));
    }
    for (FlightInfo count : counts) {
      assertThat(alice.read(count)).containsExactly(List.of(1L));
    }
    assertThat(kept()).isLessThan(1 << 20);
  }

  @Test
  void aUsersNewPreparedStatementsEvictTheirOldestAndTheirTicketsDoNot() throws Exception {
    User alice = login("alice");
    User bob = login("bob");
    PreparedStatement bobs = bob.prepare(7);
    List<PreparedStatement> handles = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      handles.add(alice.prepare(i));
    }
    // 0.8 MB each as counted, 2 MB per user: the newest two of alice's are kept.
    for (int i = 0; i < 3; i++) {
      PreparedStatement evicted = handles.get(i);
      int n = i;
      assertPlannedAgain("prepared_statements", () -> assertThat(alice.read(evicted.execute(alice.auth))).containsExactly(List.of(n)));
    }
    // Executing a handle makes a ticket, counted apart: it evicts no handle.
    for (int round = 0; round < 3; round++) {
      assertThat(alice.read(handles.get(3).execute(alice.auth))).containsExactly(List.of(3));
      assertThat(alice.read(handles.get(4).execute(alice.auth))).containsExactly(List.of(4));
    }
    assertThat(bob.read(bobs.execute(bob.auth))).as("alice's handles stay within her own limit").containsExactly(List.of(7));
    assertThat(kept("sqe_prepared_statements_kept_bytes")).isBetween(3L << 20 >> 1, 3L << 20);

    handles.get(3).close(alice.auth);
    handles.get(4).close(alice.auth);
    bobs.close(bob.auth);
    assertThat(kept("sqe_prepared_statements_kept_bytes")).isZero();
  }

  @Test
  void aPreparedStatementLargerThanAUsersLimitIsRefused() throws Exception {
    User alice = login("alice");
    String huge = "select 1 /* " + "x".repeat(1_100_000) + " */";
    assertThatThrownBy(() -> alice.sql.prepare(huge, alice.auth)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).isEqualTo(FlightStatusCode.RESOURCE_EXHAUSTED);
      assertThat(e.getMessage()).contains("prepared statement").contains("query.tickets.max-bytes-per-user");
    });
    assertThat(alice.read(alice.prepare(1).execute(alice.auth))).containsExactly(List.of(1));
  }

  /** The server's gauge of what tickets keep, as /metrics shows it. */
  private long kept() throws Exception {
    return kept("sqe_tickets_kept_bytes");
  }

  private long kept(String gauge) throws Exception {
    java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    server.server().metrics().writeTo(text);
    for (String line : text.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith(gauge + " ")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("No " + gauge + " in the metrics");
  }

  /**
   * An evicted ticket or handle still works, planned again from what it carries: the server
   * looks for it in its cache ({@code cache}) and misses.
   */
  private void assertPlannedAgain(String cache, org.assertj.core.api.ThrowableAssert.ThrowingCallable read) throws Exception {
    long misses = kept("sqe_cache_misses_total{cache=\"" + cache + "\"}");
    try {
      read.call();
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
    assertThat(kept("sqe_cache_misses_total{cache=\"" + cache + "\"}")).isGreaterThan(misses);
  }

  private User login(String name) {
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    FlightSqlClient sql = new FlightSqlClient(flight);
    clients.add(sql);
    return new User(sql, flight.authenticateBasicToken(name, "a long enough password").orElseThrow());
  }

  /** A logged-in user's client. */
  private record User(FlightSqlClient sql, CallOption auth) {
    /** A query of about 0.4 MB of text, returning {@code n}, whose ticket is not read yet. */
    FlightInfo big(int n) {
      return sql.execute("select " + n + " /* " + "x".repeat(PADDING) + " */", auth);
    }

    /** A prepared query of about 0.4 MB of text, returning {@code n}. */
    PreparedStatement prepare(int n) {
      return sql.prepare("select " + n + " /* " + "x".repeat(PADDING) + " */", auth);
    }

    List<List<Object>> read(FlightInfo info) throws Exception {
      return drain(sql.getStream(info.getEndpoints().get(0).getTicket(), auth));
    }
  }
}
