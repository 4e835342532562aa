package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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

/**
 * {@code sqe user} on the data directory of a running server: the server accepts the users it
 * adds, the passwords it sets and the removals at the next call, and changes made at the same time
 * by tool processes and by the server's own CREATE USER are all kept.
 */
class UserAdminTest {
  @TempDir Path dir;
  private Path data;
  private RootAllocator allocator;
  private TestServer server;
  private final List<FlightClient> clients = new ArrayList<>();

  @BeforeEach
  void setUp() {
    data = dir.resolve("data");
    allocator = new RootAllocator();
    server = TestServer.start(data, Map.of("auth.users-refresh-period", "1ms"));
  }

  @AfterEach
  void tearDown() throws Exception {
    for (FlightClient client : clients) {
      client.close();
    }
    server.close();
    allocator.close();
  }

  /** What a run printed, and its exit status. */
  private record Run(int exit, String out, String err) {}

  private Run tool(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> environment = Map.of(
        "SQE_DATA__DIR", data.toString(),
        "SQE_AUTH_PASSWORD__HASH__ITERATIONS", "10000");
    int exit = UserAdmin.run(args, environment, new ByteArrayInputStream(stdin.getBytes(UTF_8)), null,
        new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
    return new Run(exit, out.toString(UTF_8), err.toString(UTF_8));
  }

  @Test
  void usersAddedChangedAndRemovedOfflineApplyToTheRunningServer() throws Exception {
    Run add = tool("bob-pw-1\n", "add", "bob", "--roles", "analyst,writer");
    assertThat(add.exit()).as(add.err()).isZero();
    assertThat(add.out()).startsWith("Added user 'bob' with roles analyst, writer");
    TestServer.Client bob = login("bob", "bob-pw-1");
    assertThat(currentUser(bob)).isEqualTo("bob");
    assertThat(server.server().authentication().users().principal("bob").orElseThrow().roles())
        .isEqualTo(Set.of("analyst", "writer"));

    Run passwd = tool("bob-pw-2\r\n", "passwd", "bob");
    assertThat(passwd.exit()).as(passwd.err()).isZero();
    assertThatThrownBy(() -> login("bob", "bob-pw-1"))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    login("bob", "bob-pw-2");
    assertThat(currentUser(bob)).isEqualTo("bob");

    assertThat(tool("", "list").out()).isEqualTo("admin\tadmin\nbob\tanalyst,writer\n");

    Run remove = tool("", "remove", "bob");
    assertThat(remove.exit()).as(remove.err()).isZero();
    assertThatThrownBy(() -> currentUser(bob))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
  }

  @Test
  void refusalsAndUsageErrors() {
    assertThat(tool("pw\n", "add", "admin")).isEqualTo(new Run(1, "", "User 'admin' already exists\n"));
    assertThat(tool("pw\n", "passwd", "nobody")).isEqualTo(new Run(1, "", "User 'nobody' does not exist\n"));
    assertThat(tool("", "remove", "nobody")).isEqualTo(new Run(1, "", "User 'nobody' does not exist\n"));
    assertThat(tool("pw\n", "add", "a:b")).isEqualTo(new Run(1, "", "Invalid user name: a:b\n"));
    assertThat(tool("pw\n", "add", "carol", "--roles", "ok,not ok")).isEqualTo(new Run(1, "", "Invalid role name: not ok\n"));
    assertThat(tool("\n", "add", "carol")).isEqualTo(new Run(1, "", "The password is empty\n"));
    assertThat(tool("x".repeat(5000), "add", "carol").err()).startsWith("Could not read the password");
    // A password is never taken from the arguments.
    Run option = tool("", "add", "carol", "--password", "pw");
    assertThat(option.exit()).isEqualTo(2);
    assertThat(option.err()).startsWith("Unknown option: --password\nUsage: sqe user add NAME");
    assertThat(tool("", "add").exit()).isEqualTo(2);
    assertThat(tool("", "rename", "bob").exit()).isEqualTo(2);
    assertThat(tool("", "remove", "bob", "--roles", "x").exit()).isEqualTo(2);
    assertThat(server.server().authentication().users().userNames()).containsExactly("admin");
  }

  @Test
  void toolProcessesAndTheServerChangingUsersAtOnceLoseNothing() throws Exception {
    TestServer.Client admin = login(TestServer.ADMIN, server.adminPassword());
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String user = "tool" + i;
        work.add(threads.submit(() -> {
          Process process = toolProcess("add", user);
          process.getOutputStream().write((user + "-pw\n").getBytes(UTF_8));
          process.getOutputStream().close();
          String output = new String(process.getInputStream().readAllBytes(), UTF_8);
          assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
          assertThat(process.exitValue()).as(output).isZero();
          return null;
        }));
        String sqlUser = "sql" + i;
        work.add(threads.submit(() -> admin.sql().executeUpdate("CREATE USER " + sqlUser + " PASSWORD '" + sqlUser + "-pw'", admin.auth())));
      }
      for (Future<?> future : work) {
        future.get(3, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    for (int i = 0; i < 4; i++) {
      login("tool" + i, "tool" + i + "-pw");
      login("sql" + i, "sql" + i + "-pw");
    }
    assertThat(server.server().authentication().users().userNames()).hasSize(9);
  }

  /** {@code sqe user ...} in a JVM of its own, as bin/sqe runs it. */
  private Process toolProcess(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"),
        UserAdmin.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(name -> name.startsWith("SQE_"));
    builder.environment().put("SQE_DATA__DIR", data.toString());
    builder.environment().put("SQE_AUTH_PASSWORD__HASH__ITERATIONS", "10000");
    return builder.start();
  }

  private TestServer.Client login(String user, String password) {
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    clients.add(flight);
    CallOption auth = flight.authenticateBasicToken(user, password).orElseThrow();
    return new TestServer.Client(flight, new FlightSqlClient(flight), auth);
  }

  private static String currentUser(TestServer.Client client) throws Exception {
    return client.rows(client.sql().execute("SELECT current_user", client.auth())).get(0).get(0).toString();
  }
}
