package io.sqe.flight.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * CREATE, ALTER and DROP USER through Flight SQL on two servers that share one users file (the
 * second server's security directory is the first one's): a user made on one logs in on the
 * other, a changed password and a dropped user apply on both without a restart, and no password
 * reaches the audit log, the server log or the users file.
 */
class UserManagementTest {
  private static final String SECRET = "Pa55-never-logged";

  @TempDir Path dir;
  private RootAllocator allocator;
  private TestServer first;
  private TestServer second;
  private Path auditFile;
  private final List<FlightClient> clients = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    auditFile = dir.resolve("audit.jsonl");
    Map<String, String> settings = new HashMap<>();
    // Each lookup sees the other server's changes (the default checks the file once a second).
    settings.put("auth.users-refresh-period", "1ms");
    settings.put("audit.file", auditFile.toString());
    first = TestServer.start(dir.resolve("first"), settings);
    Files.createDirectories(dir.resolve("second"));
    Files.createSymbolicLink(dir.resolve("second/security"), dir.resolve("first/security"));
    settings.put("audit.file", dir.resolve("audit-second.jsonl").toString());
    second = TestServer.start(dir.resolve("second"), settings, first.adminPassword());
  }

  @AfterEach
  void tearDown() throws Exception {
    for (FlightClient client : clients) {
      client.close();
    }
    if (second != null) {
      second.close();
    }
    if (first != null) {
      first.close();
    }
    allocator.close();
  }

  @Test
  void usersManagedOnOneServerApplyOnTheOtherAtTheNextCall() throws Exception {
    Session admin = login(first, TestServer.ADMIN, first.adminPassword());
    assertThat(admin.update("CREATE USER carol PASSWORD 'carol-pw-1' ROLES (analyst)")).isZero();

    Session carol = login(second, "carol", "carol-pw-1");
    assertThat(carol.currentUser()).isEqualTo("carol");
    carol.update("ALTER USER CURRENT_USER SET PASSWORD 'carol-pw-2'");
    assertThatThrownBy(() -> login(first, "carol", "carol-pw-1"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    Session carolOnFirst = login(first, "carol", "carol-pw-2");
    // Her token from before the change still works.
    assertThat(carol.currentUser()).isEqualTo("carol");

    assertDenied(carol, "CREATE USER dave PASSWORD 'pw'");
    assertDenied(carol, "ALTER USER admin SET PASSWORD 'pw'");
    assertDenied(carol, "ALTER USER carol SET ROLES (admin)");
    assertDenied(carol, "DROP USER admin");

    // Statements that commit at once are refused inside a transaction.
    admin.update("BEGIN");
    assertThatThrownBy(() -> admin.update("CREATE USER dave PASSWORD 'pw'"))
        .isInstanceOf(FlightRuntimeException.class)
        .hasMessageContaining("cannot run inside a transaction");
    admin.update("ROLLBACK");

    admin.update("DROP USER carol");
    for (Session session : List.of(carol, carolOnFirst)) {
      assertThatThrownBy(session::currentUser)
          .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
    // A new carol gets nothing of the old one's tokens.
    admin.update("CREATE USER carol PASSWORD 'carol-pw-3'");
    assertThatThrownBy(carol::currentUser).isInstanceOf(FlightRuntimeException.class);
    assertThat(login(second, "carol", "carol-pw-3").currentUser()).isEqualTo("carol");
  }

  @Test
  void noPasswordReachesTheAuditLogTheServerLogOrTheUsersFile() throws Exception {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger sqe = (Logger) LoggerFactory.getLogger("io.sqe");
    Level level = sqe.getLevel();
    log.start();
    root.addAppender(log);
    sqe.setLevel(Level.DEBUG);
    try {
      Session admin = login(first, TestServer.ADMIN, first.adminPassword());
      admin.update("CREATE USER erin PASSWORD '" + SECRET + "-1' ROLES (analyst)");
      admin.update("ALTER USER erin SET PASSWORD '" + SECRET + "-2'");
      assertThatThrownBy(() -> admin.update("ALTER USER nobody SET PASSWORD '" + SECRET + "-3'"))
          .hasMessageContaining("User 'nobody' does not exist");
      assertThatThrownBy(() -> admin.update("CREATE USER erin PASSWORD '" + SECRET + "-4'"))
          .hasMessageContaining("User 'erin' already exists");
      assertThatThrownBy(() -> admin.update("CREATE USER frank PASSWORD '" + SECRET + "-5' ROLE (x)"))
          .hasMessageContaining("Syntax error");
      Session erin = login(first, "erin", SECRET + "-2");
      erin.update("ALTER USER CURRENT_USER SET PASSWORD '" + SECRET + "-6'");
      assertThatThrownBy(() -> erin.update("ALTER USER admin SET PASSWORD '" + SECRET + "-7'"))
          .hasMessageContaining("Access denied");
      admin.update("DROP USER erin");
      // A refused login is logged (at debug), without the password it tried.
      assertThatThrownBy(() -> login(first, "erin", SECRET + "-6")).isInstanceOf(FlightRuntimeException.class);
      // An orderly shutdown writes every audit line recorded.
      first.close();
      first = null;
    } finally {
      root.detachAppender(log);
      sqe.setLevel(level);
    }

    List<JsonNode> lines = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(auditFile)) {
      lines.add(json.readTree(line));
    }
    assertThat(lines).filteredOn(l -> "statement".equals(l.path("event").asText()))
        .extracting(l -> l.path("kind").asText(null) + " " + l.path("outcome").asText())
        .contains("CREATE USER ok", "ALTER USER ok", "ALTER USER NOT_FOUND", "CREATE USER ALREADY_EXISTS",
            "null INVALID_ARGUMENT", "ALTER USER PERMISSION_DENIED", "DROP USER ok");
    assertThat(Files.readString(auditFile)).doesNotContain(SECRET);
    assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage).anyMatch(m -> m.startsWith("Rejected call"));
    assertThat(log.list).allSatisfy(event -> {
      assertThat(event.getFormattedMessage()).doesNotContain(SECRET);
      for (var cause = event.getThrowableProxy(); cause != null; cause = cause.getCause()) {
        assertThat(cause.getMessage()).doesNotContain(SECRET);
      }
    });
    assertThat(Files.readString(dir.resolve("first/security/users.json"))).doesNotContain(SECRET);
  }

  private static void assertDenied(Session session, String sql) {
    assertThatThrownBy(() -> session.update(sql))
        .as(sql)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHORIZED);
          assertThat(e.getMessage()).contains("Access denied: only administrators");
        });
  }

  private Session login(TestServer server, String user, String password) {
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    clients.add(flight);
    CallOption auth = flight.authenticateBasicToken(user, password).orElseThrow();
    return new Session(new TestServer.Client(flight, new FlightSqlClient(flight), auth));
  }

  /** A logged-in client of one server, its bearer token kept for every call. */
  private record Session(TestServer.Client client) {
    long update(String sql) {
      return client.sql().executeUpdate(sql, client.auth());
    }

    String currentUser() throws Exception {
      return client.rows(client.sql().execute("SELECT current_user", client.auth())).get(0).get(0).toString();
    }
  }
}
