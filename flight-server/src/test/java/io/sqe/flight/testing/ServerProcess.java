package io.sqe.flight.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code io.sqe.flight.Main} in a JVM of its own, on a data directory and a free port, with the
 * JVM options and settings a test gives: for what a test's own JVM cannot do (be killed, run out of
 * heap). Its output is kept, line by line, for the test to read.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Pattern PASSWORD = Pattern.compile("Created user 'admin' with password: (\\S+)");
  private static final Pattern PORT = Pattern.compile("SQE is listening on grpc://127\\.0\\.0\\.1:(\\d+)");
  private static final Duration STARTUP = Duration.ofMinutes(2);

  private final Process process;
  private final List<String> output;
  private final int port;
  private final String password;

  private ServerProcess(Process process, List<String> output, int port, String password) {
    this.process = process;
    this.output = output;
    this.port = port;
    this.password = password;
  }

  /**
   * Starts a server on an empty data directory and waits until it listens.
   *
   * @param jvmOptions options before the main class, such as {@code -Xmx256m}
   * @param settings SQE settings, as {@code SQE_*} environment variables ({@code SQE_HTTP_PORT})
   */
  public static ServerProcess start(Path data, List<String> jvmOptions, Map<String, String> settings) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of(
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-Darrow.enable_unsafe_memory_access=true",
        "-cp",
        System.getProperty("java.class.path"),
        "io.sqe.flight.Main"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(name -> name.startsWith("SQE_"));
    builder.environment().put("SQE_PORT", "0");
    builder.environment().put("SQE_DATA__DIR", data.toString());
    builder.environment().put("SQE_AUTH_PASSWORD__HASH__ITERATIONS", "10000");
    builder.environment().putAll(settings);
    builder.redirectErrorStream(true);
    Process process = builder.start();
    List<String> output = new CopyOnWriteArrayList<>();
    CompletableFuture<Integer> listening = new CompletableFuture<>();
    String[] password = new String[1];
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.add(line);
          Matcher p = PASSWORD.matcher(line);
          if (p.find()) {
            password[0] = p.group(1);
          }
          Matcher port = PORT.matcher(line);
          if (port.find()) {
            listening.complete(Integer.parseInt(port.group(1)));
          }
        }
      } catch (IOException e) {
        // The process was killed.
      }
      listening.completeExceptionally(
          new IllegalStateException("The server process ended before it listened:\n" + String.join("\n", output)));
    }, "sqe-process-output");
    reader.setDaemon(true);
    reader.start();
    int port;
    try {
      port = listening.get(STARTUP.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw e;
    }
    assertThat(password[0]).as("the first start prints the admin password").isNotNull();
    return new ServerProcess(process, output, port, password[0]);
  }

  public int port() {
    return port;
  }

  /** The admin password the first start printed. */
  public String password() {
    return password;
  }

  public Process process() {
    return process;
  }

  /** Every line the process has written so far (standard output and error). */
  public List<String> output() {
    return List.copyOf(output);
  }

  /** Kills the process (SIGKILL) if it still runs, and waits for it. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(1, TimeUnit.MINUTES);
  }
}
