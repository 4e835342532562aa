package io.sqe.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built archive, used as an operator would: {@code bin/sqe start} in the background on the
 * default configuration, {@code status}, a query through {@code bin/sqe shell}, {@code stop}.
 */
class DistributionIT {
  private static final Path HOME = Path.of(System.getProperty("sqe.distribution"));

  @TempDir Path dir;

  record Result(int exit, String output) {}

  @Test
  void startStatusShellStop() throws Exception {
    assertThat(HOME.resolve("bin/sqe")).isExecutable();
    assertThat(HOME.resolve("conf/sqe.yaml")).isRegularFile();
    assertThat(Files.list(HOME.resolve("lib")).map(p -> p.getFileName().toString()))
        .anyMatch(name -> name.startsWith("sqe-flight-server-"))
        .noneMatch(name -> name.startsWith("sqlline") || name.startsWith("flight-sql-jdbc-driver"));
    // Janino's jars without signatures, so that class data sharing can archive their classes.
    for (String prefix : List.of("janino-", "commons-compiler-")) {
      Path jar;
      try (var files = Files.list(HOME.resolve("lib"))) {
        jar = files.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst().orElseThrow();
      }
      try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
        assertThat(file.stream().map(java.util.jar.JarEntry::getName))
            .as(jar.toString())
            .anyMatch(name -> name.endsWith(".class"))
            .noneMatch(name -> name.startsWith("META-INF/") && name.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)"));
      }
    }

    int port = freePort();
    int httpPort = freePort();
    Map<String, String> environment = Map.of(
        "SQE_PORT", Integer.toString(port),
        "SQE_HTTP_PORT", Integer.toString(httpPort),
        "SQE_DATA__DIR", dir.resolve("data").toString(),
        "SQE_RUN_DIR", dir.resolve("run").toString(),
        "SQE_JAVA_OPTS", "-Xmx512m",
        // The class data archive has a test of its own (below).
        "SQE_CDS", "off");
    try {
      assertThat(sqe(environment, "status").exit()).isEqualTo(3);
      Result start = sqe(environment, "start");
      assertThat(start.exit()).as(start.output()).isZero();
      assertThat(start.output()).contains("SQE is listening on grpc://127.0.0.1:" + port);
      Matcher password = Pattern.compile("Created user 'admin' with password: (\\S+)").matcher(start.output());
      assertThat(password.find()).as(start.output()).isTrue();

      assertThat(start.output()).contains("Health and metrics: http://127.0.0.1:" + httpPort + "/health");
      HttpResponse<String> health = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);

      Result status = sqe(environment, "status");
      assertThat(status.exit()).isZero();
      assertThat(status.output()).contains("SQE is running");
      assertThat(sqe(environment, "start").exit()).as("a second start").isEqualTo(1);

      Path script = Files.writeString(dir.resolve("query.sql"), "SELECT 40 + 2 AS answer;\n");
      Result shell = sqe(environment, "shell", "-n", "admin", "-p", password.group(1), "--run=" + script);
      assertThat(shell.exit()).as(shell.output()).isZero();
      assertThat(shell.output()).containsPattern("\\|\\s*answer\\s*\\|").containsPattern("\\|\\s*42\\s*\\|");
      Result stop = sqe(environment, "stop");
      assertThat(stop.output()).contains("SQE stopped");
    } finally {
      sqe(environment, "stop"); // never leave a server behind
    }
    assertThat(sqe(environment, "status").exit()).isEqualTo(3);
    assertThat(dir.resolve("run/sqe.log")).content().doesNotContain("Exception");
  }

  /**
   * {@code sqe user} next to a running server: a user it adds logs in through the shell, a new
   * password replaces the old one, and a removed user is refused; the password goes in on
   * standard input only.
   */
  @Test
  void userCommandManagesTheUsersOfTheRunningServer() throws Exception {
    Map<String, String> environment = Map.of(
        "SQE_PORT", Integer.toString(freePort()),
        "SQE_HTTP_PORT", "off",
        "SQE_DATA__DIR", dir.resolve("data").toString(),
        "SQE_RUN_DIR", dir.resolve("run").toString(),
        "SQE_JAVA_OPTS", "-Xmx512m",
        "SQE_CDS", "off");
    Path script = Files.writeString(dir.resolve("who.sql"), "SELECT current_user AS who;\n");
    try {
      Result start = sqe(environment, "start");
      assertThat(start.exit()).as(start.output()).isZero();

      Result add = sqeWithInput(environment, "bob-pw-1\n", "user", "add", "bob", "--roles", "analyst");
      assertThat(add.exit()).as(add.output()).isZero();
      assertThat(add.output()).contains("Added user 'bob' with roles analyst").doesNotContain("bob-pw-1");
      Result bob = sqe(environment, "shell", "-n", "bob", "-p", "bob-pw-1", "--run=" + script);
      assertThat(bob.exit()).as(bob.output()).isZero();
      assertThat(bob.output()).containsPattern("\\|\\s*bob\\s*\\|");

      Result passwd = sqeWithInput(environment, "bob-pw-2\n", "user", "passwd", "bob");
      assertThat(passwd.exit()).as(passwd.output()).isZero();
      assertThat(sqe(environment, "shell", "-n", "bob", "-p", "bob-pw-1", "--run=" + script).output())
          .contains("UNAUTHENTICATED").doesNotContainPattern("\\|\\s*bob\\s*\\|");
      assertThat(sqe(environment, "shell", "-n", "bob", "-p", "bob-pw-2", "--run=" + script).output())
          .containsPattern("\\|\\s*bob\\s*\\|");

      assertThat(sqe(environment, "user", "list").output()).contains("admin\tadmin").contains("bob\tanalyst");
      Result remove = sqe(environment, "user", "remove", "bob");
      assertThat(remove.exit()).as(remove.output()).isZero();
      assertThat(sqe(environment, "shell", "-n", "bob", "-p", "bob-pw-2", "--run=" + script).output())
          .contains("UNAUTHENTICATED");
      assertThat(sqe(environment, "user", "remove", "bob").exit()).isEqualTo(1);
    } finally {
      sqe(environment, "stop"); // never leave a server behind
    }
  }

  /**
   * Class data sharing as an operator gets it: the first background start makes the archive after
   * it listens, the next start maps it and answers; an archive that does not fit (corrupt here)
   * and {@code sqe cds --if-missing} never stop a start.
   */
  @Test
  void firstStartMakesTheClassDataArchiveAndLaterStartsUseIt() throws Exception {
    Path cds = dir.resolve("cds");
    Path log = dir.resolve("run/sqe.log");
    Map<String, String> environment = Map.of(
        "SQE_PORT", Integer.toString(freePort()),
        "SQE_HTTP_PORT", "off",
        "SQE_DATA__DIR", dir.resolve("data").toString(),
        "SQE_RUN_DIR", dir.resolve("run").toString(),
        "SQE_CDS_DIR", cds.toString(),
        "SQE_JAVA_OPTS", "-Xmx512m");
    try {
      Result first = sqe(environment, "start");
      assertThat(first.exit()).as(first.output()).isZero();
      assertThat(first.output()).contains("Making the class data archive");
      assertThat(serverCommandLine(environment)).doesNotContain("-XX:SharedArchiveFile");
      String password = matching(first.output(), "Created user 'admin' with password: (\\S+)");
      Path archive = awaitArchive(cds, log);
      assertThat(sqe(environment, "stop").output()).contains("SQE stopped");

      Result second = sqe(environment, "start");
      assertThat(second.exit()).as(second.output()).isZero();
      assertThat(second.output()).doesNotContain("Making the class data archive");
      assertThat(serverCommandLine(environment)).contains("-XX:SharedArchiveFile=" + archive);
      assertAnswers(environment, password);
      assertThat(sqe(environment, "stop").output()).contains("SQE stopped");

      // An archive the JVM cannot use: the server starts without it.
      Files.delete(archive); // the JVM writes it read-only
      Files.write(archive, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
      Result third = sqe(environment, "start");
      assertThat(third.exit()).as(third.output()).isZero();
      assertThat(serverCommandLine(environment)).contains("-XX:SharedArchiveFile=" + archive);
      assertAnswers(environment, password);
      assertThat(sqe(environment, "stop").output()).contains("SQE stopped");

      // `sqe cds --if-missing` keeps an archive that is there; `sqe cds` makes a new one.
      Result kept = sqe(environment, "cds", "--if-missing");
      assertThat(kept.exit()).as(kept.output()).isZero();
      assertThat(Files.size(archive)).isEqualTo(8);
      Result made = sqe(environment, "cds");
      assertThat(made.exit()).as(made.output()).isZero();
      assertThat(made.output()).contains("Class data archive: " + archive);
      assertThat(Files.size(archive)).isGreaterThan(1_000_000);
      try (var files = Files.list(cds)) {
        assertThat(files.map(p -> p.getFileName().toString())).containsExactly(archive.getFileName().toString());
      }
    } finally {
      sqe(environment, "stop"); // never leave a server behind
    }
    assertThat(log).content().doesNotContain("Exception");
  }

  /** The archive the background `sqe cds` made, once it says so in the server's log. */
  private static Path awaitArchive(Path cds, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    Pattern made = Pattern.compile("Class data archive: (\\S+\\.jsa)");
    while (System.nanoTime() < deadline) {
      Matcher matcher = made.matcher(Files.readString(log));
      if (matcher.find()) {
        Path archive = Path.of(matcher.group(1));
        assertThat(archive.getParent()).isEqualTo(cds);
        assertThat(archive).isRegularFile();
        return archive;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("No class data archive in " + cds + " within 5 minutes");
  }

  private static String serverCommandLine(Map<String, String> environment) throws Exception {
    Result status = sqe(environment, "status");
    assertThat(status.exit()).as(status.output()).isZero();
    String pid = matching(status.output(), "pid (\\d+)");
    return Files.readString(Path.of("/proc", pid, "cmdline")).replace('\0', ' ');
  }

  private void assertAnswers(Map<String, String> environment, String password) throws Exception {
    Path script = Files.writeString(dir.resolve("query.sql"), "SELECT 40 + 2 AS answer;\n");
    Result shell = sqe(environment, "shell", "-n", "admin", "-p", password, "--run=" + script);
    assertThat(shell.exit()).as(shell.output()).isZero();
    assertThat(shell.output()).containsPattern("\\|\\s*42\\s*\\|");
  }

  private static String matching(String text, String regex) {
    Matcher matcher = Pattern.compile(regex).matcher(text);
    assertThat(matcher.find()).as(text).isTrue();
    return matcher.group(1);
  }

  private static Result sqe(Map<String, String> environment, String... args) throws IOException, InterruptedException {
    return sqeWithInput(environment, "", args);
  }

  /** Runs bin/sqe with {@code stdin} on its standard input. */
  private static Result sqeWithInput(Map<String, String> environment, String stdin, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(HOME.resolve("bin/sqe").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();
    process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("bin/sqe " + String.join(" ", args) + " did not finish");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
