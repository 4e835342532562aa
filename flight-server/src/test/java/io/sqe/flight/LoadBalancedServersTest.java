package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three SQE servers behind a real HAProxy with no stickiness, as deploy/haproxy/haproxy.cfg sets
 * them up (with catalog.cache-ttl 0s): JDBC clients read, prepare, bind and insert through it with
 * no error and no lost or duplicated row, and each reads its own writes through any server. In TCP
 * mode HAProxy spreads connections over the servers; in HTTP/2 mode it spreads every call, so a
 * statement's GetFlightInfo, parameter binding and DoGet land on different servers. Skipped when
 * HAProxy is not installed ({@code apt-get install -y haproxy}); clients/load-balanced-tests does
 * the same with ADBC and dbt.
 */
class LoadBalancedServersTest {
  private static final int SERVERS = 3;
  private static final int CLIENTS = 4;
  private static final int ROUNDS = 6;

  @TempDir static Path dir;
  private static RestCatalogFixture rest;
  private static final List<TestServer> servers = new ArrayList<>();

  @BeforeAll
  static void startServers() throws Exception {
    Assumptions.assumeTrue(haproxy() != null, "HAProxy is not installed (apt-get install -y haproxy): skipping the load balancer test");
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    Map<String, String> settings = new HashMap<>(rest.sqeSettings());
    settings.put("http.port", "0");
    // As deploy/haproxy/haproxy.cfg asks: every statement reads the tables' current snapshots.
    settings.put("catalog.cache-ttl", "0s");
    TestServer first = TestServer.start(dir.resolve("sqe-1"), settings);
    servers.add(first);
    for (int i = 2; i <= SERVERS; i++) {
      Path security = Files.createDirectories(dir.resolve("sqe-" + i).resolve("security"));
      for (String file : List.of("users.json", "signing-keys.jwks")) {
        Files.copy(dir.resolve("sqe-1/security").resolve(file), security.resolve(file));
      }
      servers.add(TestServer.start(dir.resolve("sqe-" + i), settings, first.adminPassword()));
    }
  }

  @AfterAll
  static void stopServers() throws Exception {
    for (TestServer server : servers) {
      server.close();
    }
    servers.clear();
    if (rest != null) {
      rest.close();
    }
  }

  @Test
  void connectionsSpreadOverThreeServersInTcpModeLoseNoWrite() throws Exception {
    spreadTraffic("tcp");
  }

  @Test
  void callsSpreadOverThreeServersInHttp2ModeLoseNoWrite() throws Exception {
    spreadTraffic("http2");
  }

  private void spreadTraffic(String mode) throws Exception {
    String table = "lb_" + mode + ".events";
    try (Connection direct = connect(servers.get(0).port()); Statement statement = direct.createStatement()) {
      statement.executeUpdate("CREATE SCHEMA lb_" + mode);
      statement.executeUpdate("CREATE TABLE " + table + " (id BIGINT, client INT)");
    }
    long plannedFromHandles = misses("tickets") + misses("prepared_statements");
    int port = freePort();
    Process proxy = startHaproxy(mode, port);
    try {
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      AtomicLong inserted = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int client = c;
        clients.add(pool.submit(() -> {
          try (Connection connection = connect(port);
              Statement statement = connection.createStatement();
              PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)");
              PreparedStatement mine = connection.prepareStatement("SELECT count(*) FROM " + table + " WHERE client = ?")) {
            for (int round = 0; round < ROUNDS; round++) {
              long id = client * 1_000L + round * 10L;
              statement.executeUpdate("INSERT INTO " + table + " VALUES (" + id + ", " + client + ")");
              insert.setLong(1, id + 1);
              insert.setInt(2, client);
              assertThat(insert.executeUpdate()).isEqualTo(1);
              inserted.addAndGet(2);
              mine.setInt(1, client);
              try (ResultSet rows = mine.executeQuery()) {
                assertThat(rows.next()).isTrue();
                // Whichever server answers sees every row this client wrote, through whichever servers.
                assertThat(rows.getLong(1)).isEqualTo(2L * (round + 1));
              }
              try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
                assertThat(rows.next()).isTrue();
              }
            }
          } catch (Throwable e) {
            problems.add("client " + client + ": " + e);
          }
          return null;
        }));
      }
      for (Future<?> client : clients) {
        client.get(5, TimeUnit.MINUTES);
      }
      pool.shutdown();
      assertThat(problems).isEmpty();
      assertThat(inserted.get()).isEqualTo(2L * CLIENTS * ROUNDS);
      if (mode.equals("http2")) {
        // Calls of one statement landed on servers that had not issued its handle, which planned it again.
        assertThat(misses("tickets") + misses("prepared_statements")).isGreaterThan(plannedFromHandles);
      }
      // Every write landed once, as every server sees.
      for (TestServer server : servers) {
        try (Connection direct = connect(server.port());
            Statement statement = direct.createStatement();
            ResultSet rows = statement.executeQuery("SELECT count(*), count(DISTINCT id) FROM " + table)) {
          assertThat(rows.next()).isTrue();
          assertThat(rows.getLong(1)).isEqualTo(inserted.get());
          assertThat(rows.getLong(2)).isEqualTo(inserted.get());
        }
      }
    } finally {
      proxy.destroy();
      proxy.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Lookups of a handle a server did not keep, on all servers: {@code cache}'s misses in their metrics. */
  private static long misses(String cache) throws IOException {
    long misses = 0;
    for (TestServer server : servers) {
      java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
      server.server().metrics().writeTo(text);
      for (String line : text.toString(StandardCharsets.UTF_8).split("\n")) {
        if (line.startsWith("sqe_cache_misses_total{cache=\"" + cache + "\"} ")) {
          misses += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    }
    return misses;
  }

  private static Connection connect(int port) throws Exception {
    return DriverManager.getConnection(
        "jdbc:arrow-flight-sql://127.0.0.1:" + port + "/?useEncryption=false&user=" + TestServer.ADMIN + "&password="
            + servers.get(0).adminPassword());
  }

  /**
   * HAProxy as deploy/haproxy/haproxy.cfg runs it, on {@code port}, health-checking each server's
   * /health; in http2 mode it balances every gRPC call (HTTP/2 stream) rather than each connection.
   */
  private static Process startHaproxy(String mode, int port) throws Exception {
    StringBuilder config = new StringBuilder()
        .append("global\n  maxconn 256\n")
        .append("defaults\n  timeout connect 5s\n  timeout client 10m\n  timeout server 10m\n")
        .append("  mode ").append(mode.equals("tcp") ? "tcp" : "http").append("\n")
        .append("frontend flight\n  bind 127.0.0.1:").append(port).append(mode.equals("tcp") ? "" : " proto h2").append("\n")
        .append("  default_backend sqe\n")
        .append("backend sqe\n  balance roundrobin\n  option httpchk GET /health\n");
    for (int i = 0; i < servers.size(); i++) {
      SqeServer server = servers.get(i).server();
      config.append("  server sqe").append(i + 1).append(" 127.0.0.1:").append(server.port())
          // The checks speak HTTP/1.1 to the operations port, whatever the traffic speaks.
          .append(mode.equals("tcp") ? "" : " proto h2 check-proto h1")
          .append(" check port ").append(server.httpPort().orElseThrow()).append(" inter 1s\n");
    }
    Path file = dir.resolve("haproxy-" + mode + ".cfg");
    Files.writeString(file, config.toString(), StandardCharsets.UTF_8);
    Process process = new ProcessBuilder(haproxy(), "-db", "-f", file.toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("haproxy-" + mode + ".log").toFile())
        .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!accepts(port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroy();
        throw new AssertionError("HAProxy did not start: " + Files.readString(dir.resolve("haproxy-" + mode + ".log")));
      }
      Thread.sleep(100);
    }
    // Until its first health checks pass, HAProxy takes every server for up.
    Thread.sleep(1_500);
    return process;
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** The haproxy executable on the PATH (or in /usr/sbin, where Debian puts it), or null. */
  private static String haproxy() {
    List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)));
    directories.add("/usr/sbin");
    for (String directory : directories) {
      Path candidate = Path.of(directory.isEmpty() ? "." : directory, "haproxy");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
