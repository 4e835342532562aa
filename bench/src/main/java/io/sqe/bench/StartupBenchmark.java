package io.sqe.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Startup to first query: starts {@code io.sqe.flight.Main} as a process of its own on the
 * embedded default (an empty data directory, so the catalog, the users and the signing key are
 * made from nothing) and measures the time from starting the process to the first answer of a
 * Flight SQL client (login, {@code SELECT 1}, its row read). The client tries to connect as soon
 * as the server prints the admin password, right after it listens. Also reported: when the server
 * said it listens, and how long SIGTERM took to stop it.
 *
 * <p>Two ways to start it ({@code --launcher}): {@code dist} (the default) runs the built
 * distribution's {@code bin/sqe start --foreground} with its {@code conf/sqe.yaml}, as a user or
 * the container does, with its class data archive unless {@code --cds off} (made first, untimed,
 * by {@code bin/sqe cds --if-missing}); {@code classpath} runs {@code io.sqe.flight.Main} on this
 * module's class path with the given Java options and nothing else.
 *
 * <p>Usage: {@code bin/bench-startup [--runs 5] [--work-dir bench/target/startup] [--launcher dist|classpath]
 * [--cds on|off] [--java-opts "-Xmx1g"]}.
 */
public final class StartupBenchmark {
  static final String USAGE =
      "Usage: bin/bench-startup [--runs 5] [--work-dir bench/target/startup] [--launcher dist|classpath]\n"
          + "                         [--cds on|off] [--java-opts \"-Xmx1g\"] [--distribution DIR]\n"
          + "  --launcher dist       (default) the built distribution's bin/sqe start --foreground, as a user starts it\n"
          + "  --launcher classpath  java io.sqe.flight.Main on the bench module's class path\n"
          + "  --cds on|off          dist only: with the distribution's class data archive (default on; made first if missing)\n";
  private static final String PASSWORD_LINE = "Created user 'admin' with password: ";
  private static final long WAIT_SECONDS = 120;
  /** USER_HZ, which Linux fixes at 100 for /proc. */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

  private StartupBenchmark() {}

  /**
   * One start: milliseconds from starting the process, and the CPU time the server process had
   * used (all its threads: JIT compilers and GC too) when the first answer arrived, which depends
   * less than wall time on what else the machine runs.
   */
  record Run(long listeningMillis, long firstAnswerMillis, long cpuMillisAtFirstAnswer, long stopMillis) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options;
    try {
      options = CommandLineArguments.parse(Set.of(), args);
      CommandLineArguments.rejectUnknown(
          options, Set.of("--runs", "--work-dir", "--java-opts", "--launcher", "--cds", "--distribution"));
      if (!Set.of("dist", "classpath").contains(options.getOrDefault("--launcher", "dist"))
          || !Set.of("on", "off").contains(options.getOrDefault("--cds", "on"))) {
        throw new IllegalArgumentException("--launcher is dist or classpath, --cds on or off");
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    int runs = Integer.parseInt(options.getOrDefault("--runs", "5"));
    Path work = Path.of(options.getOrDefault("--work-dir", "bench/target/startup")).toAbsolutePath();
    String javaOptions = options.getOrDefault("--java-opts", "-Xmx1g").trim();
    Launcher launcher;
    if (options.getOrDefault("--launcher", "dist").equals("dist")) {
      Path home = options.containsKey("--distribution")
          ? Path.of(options.get("--distribution")).toAbsolutePath()
          : builtDistribution();
      launcher = new Launcher(home, options.getOrDefault("--cds", "on").equals("on"), javaOptions, work.resolve("run"));
      launcher.prepare();
    } else {
      launcher = new Launcher(null, false, javaOptions, null);
    }
    System.out.println("Launcher: " + launcher.describe());
    List<Run> results = new ArrayList<>();
    for (int i = 1; i <= runs; i++) {
      Path data = work.resolve("run-" + i);
      deleteRecursively(data);
      Run run = startOnce(data, launcher);
      System.out.printf(Locale.ROOT,
          "run %d: listening %d ms, first answer %d ms (server CPU %d ms), stopped by SIGTERM in %d ms%n",
          i, run.listeningMillis(), run.firstAnswerMillis(), run.cpuMillisAtFirstAnswer(), run.stopMillis());
      results.add(run);
      deleteRecursively(data);
    }
    System.out.println();
    System.out.println("| | median | min | max |");
    System.out.println("|---|---:|---:|---:|");
    row("process start to listening (ms)", results, Run::listeningMillis);
    row("process start to first query answered (ms)", results, Run::firstAnswerMillis);
    row("server CPU time at the first answer (ms)", results, Run::cpuMillisAtFirstAnswer);
    row("SIGTERM to exit (ms)", results, Run::stopMillis);
    System.out.printf(Locale.ROOT, "%n%d runs; %s; %d cores; load average %s%n",
        runs, System.getProperty("java.vm.name") + " " + Runtime.version(), Runtime.getRuntime().availableProcessors(),
        loadAverage());
  }

  /** How the server is started: the distribution's bin/sqe ({@code home} set) or java on this class path. */
  record Launcher(Path home, boolean cds, String javaOptions, Path runDir) {
    Path cdsDir() {
      return runDir.resolveSibling("cds");
    }

    /** Makes the distribution's class data archive when it is missing (not timed), as its install would. */
    void prepare() throws Exception {
      if (home == null || !cds) {
        return;
      }
      ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/sqe").toString(), "cds", "--if-missing");
      environment(builder, null, 0);
      builder.inheritIO();
      Process process = builder.start();
      if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException("bin/sqe cds failed");
      }
    }

    String describe() {
      return home == null
          ? "java " + javaOptions + " io.sqe.flight.Main on the bench module's class path (--launcher classpath)"
          : home.resolve("bin/sqe") + " start --foreground, its conf/sqe.yaml, SQE_JAVA_OPTS=\"" + javaOptions
              + "\", class data archive " + (cds ? "on (" + cdsDir() + ")" : "off");
    }

    List<String> command() {
      if (home != null) {
        return List.of(home.resolve("bin/sqe").toString(), "start", "--foreground");
      }
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(List.of(javaOptions.split("\\s+")));
      command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
      command.add("-Darrow.enable_unsafe_memory_access=true");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add("io.sqe.flight.Main");
      return command;
    }

    void environment(ProcessBuilder builder, Path data, int port) throws IOException {
      Map<String, String> environment = builder.environment();
      environment.keySet().removeIf(name -> name.startsWith("SQE_"));
      if (data != null) {
        environment.put("SQE_HOST", "127.0.0.1");
        environment.put("SQE_PORT", Integer.toString(port));
        environment.put("SQE_DATA__DIR", data.toString());
      }
      if (home != null) {
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.put("SQE_JAVA_OPTS", javaOptions);
        environment.put("SQE_RUN_DIR", runDir.toString());
        environment.put("SQE_CDS", cds ? "auto" : "off");
        environment.put("SQE_CDS_DIR", cdsDir().toString());
        // The distribution's configuration turns the HTTP endpoint on (8081); a free port, so runs never clash.
        environment.put("SQE_HTTP_PORT", Integer.toString(freePort()));
      }
    }
  }

  /** The distribution directory Maven builds (distribution/target/sqe-VERSION/sqe-VERSION). */
  private static Path builtDistribution() throws IOException {
    Path target = Path.of("distribution", "target").toAbsolutePath();
    try (Stream<Path> found = Files.exists(target) ? Files.walk(target, 4) : Stream.empty()) {
      return found
          .filter(p -> p.endsWith(Path.of("bin", "sqe")) && Files.isExecutable(p))
          .map(p -> p.getParent().getParent())
          .findFirst()
          .orElseThrow(() -> new IllegalStateException(
              "No built distribution under " + target + ": mvn -pl distribution -am package -DskipTests"));
    }
  }

  private static Run startOnce(Path data, Launcher launcher) throws Exception {
    int port = freePort();
    ProcessBuilder builder = new ProcessBuilder(launcher.command());
    launcher.environment(builder, data, port);
    builder.redirectErrorStream(true);
    long start = System.nanoTime();
    Process process = builder.start();
    try {
      BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
      CompletableFuture<String> password = CompletableFuture.supplyAsync(() -> {
        try {
          String line;
          while ((line = lines.readLine()) != null) {
            if (line.startsWith(PASSWORD_LINE)) {
              String found = line.substring(PASSWORD_LINE.length()).trim();
              // Keep reading, so that the server never blocks on a full pipe.
              CompletableFuture.runAsync(() -> drain(lines));
              return found;
            }
          }
          throw new IllegalStateException("The server ended before it printed the admin password");
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      });
      String admin = password.get(WAIT_SECONDS, TimeUnit.SECONDS);
      long listening = millisSince(start);
      firstQuery(port, admin);
      long answered = millisSince(start);
      long cpu = cpuMillis(process.pid());
      long stopStart = System.nanoTime();
      process.destroy();
      if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("The server did not stop within " + WAIT_SECONDS + " s of SIGTERM");
      }
      return new Run(listening, answered, cpu, millisSince(stopStart));
    } finally {
      process.destroyForcibly();
    }
  }

  /** Logs in and reads the answer of {@code SELECT 1}, as a client that just connected would. */
  private static void firstQuery(int port, String password) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        FlightClient flight = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port)).build();
        FlightSqlClient sql = new FlightSqlClient(flight)) {
      CallOption auth = flight.authenticateBasicToken("admin", password).orElseThrow();
      FlightInfo info = sql.execute("SELECT 1", auth);
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
        if (!stream.next() || stream.getRoot().getRowCount() != 1) {
          throw new IllegalStateException("SELECT 1 did not answer one row");
        }
        while (stream.next()) {
          // Read to the end of the stream.
        }
      }
    }
  }

  private static void drain(BufferedReader lines) {
    try {
      while (lines.readLine() != null) {
        // The server's log is not part of the measurement.
      }
    } catch (IOException e) {
      // The process ended.
    }
  }

  /** User and system CPU time of a process, from /proc (-1 where there is none). */
  private static long cpuMillis(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The fields after the command name, which is in parentheses and may hold spaces.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      return ticks * 1000 / CLOCK_TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static void row(String name, List<Run> runs, java.util.function.ToLongFunction<Run> value) {
    long[] values = runs.stream().mapToLong(value).sorted().toArray();
    long median = values.length % 2 == 1
        ? values[values.length / 2]
        : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    System.out.printf(Locale.ROOT, "| %s | %d | %d | %d |%n", name, median, values[0], values[values.length - 1]);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
