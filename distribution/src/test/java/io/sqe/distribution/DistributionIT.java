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

    int port = freePort();
    int httpPort = freePort();
    Map<String, String> environment = Map.of(
        "SQE_PORT", Integer.toString(port),
        "SQE_HTTP_PORT", Integer.toString(httpPort),
        "SQE_DATA__DIR", dir.resolve("data").toString(),
        "SQE_RUN_DIR", dir.resolve("run").toString(),
        "SQE_JAVA_OPTS", "-Xmx512m");
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

  private static Result sqe(Map<String, String> environment, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(HOME.resolve("bin/sqe").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(environment);
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();
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
