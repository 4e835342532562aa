package io.sqe.bench;

import io.sqe.flight.SqeServer;
import io.sqe.flight.config.ConfigLoader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow through Flight: the rows/s and MB/s at which one client reads a large result from SQE
 * (planning, scan, Arrow batches, gRPC on loopback), against a baseline in the same process: the
 * same record batches, held in memory, written as an Arrow IPC stream to /dev/null. The ratio says
 * how far the server path is from the cost of the Arrow format itself.
 *
 * <p>Usage: {@code bin/bench-flight [--rows 10000000] [--runs 3] [--work-dir bench/target/work]
 * [--output FILE.md]}. The table is made once per work directory through Flight SQL bulk ingest.
 */
public final class FlightThroughputBenchmark {
  static final String USAGE =
      "Usage: bin/bench-flight [--rows 10000000] [--runs 3] [--work-dir bench/target/work] [--output FILE.md]\n";
  private static final String SCHEMA = "bench";
  private static final int INGEST_ROWS = 1_000_000;

  private final long rows;
  private final int runs;
  private final Path dataDir;
  private final Path output;
  private final String commandLine;
  private final PrintStream out;

  private FlightThroughputBenchmark(long rows, int runs, Path workDir, Path output, String commandLine, PrintStream out) {
    if (rows <= 0 || runs <= 0) {
      throw new IllegalArgumentException("--rows and --runs must be positive");
    }
    this.rows = rows;
    this.runs = runs;
    this.dataDir = workDir.resolve("flight-throughput");
    this.output = output;
    this.commandLine = commandLine;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
      System.out.print(USAGE);
      return;
    }
    FlightThroughputBenchmark benchmark;
    try {
      benchmark = parse(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    benchmark.run();
  }

  static FlightThroughputBenchmark parse(String[] args, PrintStream out) {
    long rows = 10_000_000;
    int runs = 3;
    Path workDir = Path.of("bench/target/work");
    Path output = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Missing value for " + flag);
      }
      String value = args[++i];
      try {
        switch (flag) {
          case "--rows" -> rows = Long.parseLong(value.replace("_", ""));
          case "--runs" -> runs = Integer.parseInt(value);
          case "--work-dir" -> workDir = Path.of(value);
          case "--output" -> output = Path.of(value);
          default -> throw new IllegalArgumentException("Unknown option " + flag);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Not a number for " + flag + ": " + value);
      }
    }
    return new FlightThroughputBenchmark(rows, runs, workDir, output, "bin/bench-flight " + String.join(" ", args), out);
  }

  /** One timed pass: rows and Arrow buffer bytes moved, and the wall-clock nanoseconds taken. */
  record Pass(long rows, long bytes, long nanos, long queryCpuNanos, long scanCpuNanos) {
    Pass(long rows, long bytes, long nanos) {
      this(rows, bytes, nanos, 0, 0);
    }

    double rowsPerSecond() {
      return rows / (nanos / 1e9);
    }

    double megabytesPerSecond() {
      return bytes / 1e6 / (nanos / 1e9);
    }
  }

  public void run() throws Exception {
    RunEnvironment environment = RunEnvironment.detect();
    environment.describe().forEach(out::println);
    String table = SCHEMA + ".flight_rows_" + rows;
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("host", "127.0.0.1");
    settings.put("port", "0");
    settings.put("data-dir", dataDir.toString());
    settings.put("auth.token-lifetime", "7d");
    try (BufferAllocator allocator = new RootAllocator();
        SqeServer server = SqeServer.start(ConfigLoader.fromSettings(settings))) {
      String password = BenchUser.password(server.authentication().users());
      FlightClient flight = FlightClient.builder(allocator, server.location()).build();
      try (FlightSqlClient client = new FlightSqlClient(flight)) {
        CallOption auth = flight.authenticateBasicToken(BenchUser.NAME, password).orElseThrow();
        String sql = "SELECT n, x, s FROM " + table;
        if (!tableExists(client, auth, table)) {
          out.printf(Locale.ROOT, "Creating %s with %,d rows through bulk ingest%n", table, rows);
          client.executeUpdate("CREATE SCHEMA IF NOT EXISTS " + SCHEMA, auth);
          ingest(client, auth, allocator, table);
        }
        // An untimed read first: it warms the JIT and keeps the batches for the baseline.
        List<ArrowRecordBatch> batches = new ArrayList<>();
        Schema schema;
        try {
          schema = read(client, auth, sql, batches);
          List<Pass> flightPasses = new ArrayList<>();
          List<Pass> ipcPasses = new ArrayList<>();
          double loadBefore = RunEnvironment.loadAverage();
          for (int run = 0; run < runs; run++) {
            Pass ipc = writeToDevNull(allocator, schema, batches);
            Pass viaFlight = timedRead(client, auth, sql);
            if (viaFlight.rows() != rows || ipc.rows() != rows) {
              throw new IllegalStateException("Expected " + rows + " rows, read " + viaFlight.rows() + " through Flight and wrote " + ipc.rows());
            }
            flightPasses.add(viaFlight);
            ipcPasses.add(ipc);
            out.printf(
                Locale.ROOT,
                "Run %d: Flight %.0f ms (%.1f MB/s; server CPU: result threads %.0f ms, scan threads %.0f ms), IPC to /dev/null %.0f ms (%.1f MB/s)%n",
                run + 1, viaFlight.nanos() / 1e6, viaFlight.megabytesPerSecond(), viaFlight.queryCpuNanos() / 1e6,
                viaFlight.scanCpuNanos() / 1e6, ipc.nanos() / 1e6, ipc.megabytesPerSecond());
          }
          String report = report(environment, sql, flightPasses, ipcPasses, loadBefore);
          out.println();
          out.print(report);
          if (output != null) {
            Path file = output.toAbsolutePath();
            Files.createDirectories(file.getParent());
            Files.writeString(file, report, StandardCharsets.UTF_8);
            out.println("Wrote " + file);
          }
        } finally {
          AutoCloseables.close(batches);
        }
      }
    }
  }

  private static boolean tableExists(FlightSqlClient client, CallOption auth, String table) {
    try {
      FlightInfo info = client.execute("SELECT count(*) FROM " + table, auth);
      try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
        while (stream.next()) {
          // drained
        }
      }
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** Ingests n = 0..rows-1, x = n / 7.0 and s = 'row-' || n in commits of a million rows. */
  private void ingest(FlightSqlClient client, CallOption auth, BufferAllocator allocator, String table) {
    String[] name = table.split("\\.");
    TableDefinitionOptions create =
        TableDefinitionOptions.newBuilder()
            .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
            .build();
    ExecuteIngestOptions options = new ExecuteIngestOptions(name[1], create, null, name[0], Map.of());
    for (long start = 0; start < rows; start += INGEST_ROWS) {
      int count = (int) Math.min(INGEST_ROWS, rows - start);
      try (BigIntVector n = new BigIntVector("n", allocator);
          Float8Vector x = new Float8Vector("x", allocator);
          VarCharVector s = new VarCharVector("s", allocator);
          VectorSchemaRoot root = new VectorSchemaRoot(List.<FieldVector>of(n, x, s))) {
        n.allocateNew(count);
        x.allocateNew(count);
        s.allocateNew(count * 12L, count);
        for (int i = 0; i < count; i++) {
          long value = start + i;
          n.set(i, value);
          x.set(i, value / 7.0);
          s.setSafe(i, ("row-" + value).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(count);
        client.executeIngest(root, options, auth);
      }
    }
  }

  private static Schema read(FlightSqlClient client, CallOption auth, String sql, List<ArrowRecordBatch> keep) {
    FlightInfo info = client.execute(sql, auth);
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      VectorUnloader unloader = new VectorUnloader(stream.getRoot());
      while (stream.next()) {
        keep.add(unloader.getRecordBatch());
      }
      return stream.getRoot().getSchema();
    } catch (Exception e) {
      throw new IllegalStateException("Reading " + sql + " failed", e);
    }
  }

  /** From the query's submission to its last batch, counting the Arrow buffer bytes received. */
  private static Pass timedRead(FlightSqlClient client, CallOption auth, String sql) throws Exception {
    Map<Long, Long> cpuBefore = serverThreadCpu();
    long start = System.nanoTime();
    long rows = 0;
    long bytes = 0;
    FlightInfo info = client.execute(sql, auth);
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        rows += root.getRowCount();
        for (FieldVector vector : root.getFieldVectors()) {
          bytes += vector.getBufferSize();
        }
      }
    }
    long nanos = System.nanoTime() - start;
    return new Pass(rows, bytes, nanos, cpuSince(cpuBefore, QUERY_THREADS), cpuSince(cpuBefore, SCAN_THREADS));
  }

  private static final String QUERY_THREADS = "sqe-query-";
  private static final String SCAN_THREADS = "sqe-scan-reader-";
  private static final Map<Long, String> THREAD_NAMES = new HashMap<>();

  /**
   * CPU nanoseconds so far of the server's result threads ({@code sqe-query-*}: result batches and
   * Flight) and scan threads ({@code sqe-scan-reader-*}), by thread id. CPU time, unlike wall time,
   * barely depends on what else the machine runs, so it shows a change to either path under load.
   */
  private static Map<Long, Long> serverThreadCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && (info.getThreadName().startsWith(QUERY_THREADS) || info.getThreadName().startsWith(SCAN_THREADS))) {
        long nanos = threads.getThreadCpuTime(info.getThreadId());
        if (nanos >= 0) {
          cpu.put(info.getThreadId(), nanos);
          THREAD_NAMES.put(info.getThreadId(), info.getThreadName());
        }
      }
    }
    return cpu;
  }

  /** CPU time spent since {@code before} by the live threads whose name starts with {@code prefix}. */
  private static long cpuSince(Map<Long, Long> before, String prefix) {
    long total = 0;
    for (Map.Entry<Long, Long> now : serverThreadCpu().entrySet()) {
      if (THREAD_NAMES.get(now.getKey()).startsWith(prefix)) {
        total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
      }
    }
    return total;
  }

  /** The kept batches as one Arrow IPC stream into /dev/null; bytes are counted as in {@link #timedRead}. */
  private static Pass writeToDevNull(BufferAllocator allocator, Schema schema, List<ArrowRecordBatch> batches) throws IOException {
    long start = System.nanoTime();
    long rows = 0;
    long bytes = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileOutputStream devNull = new FileOutputStream("/dev/null");
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(devNull))) {
      VectorLoader loader = new VectorLoader(root);
      writer.start();
      for (ArrowRecordBatch batch : batches) {
        loader.load(batch);
        rows += root.getRowCount();
        for (FieldVector vector : root.getFieldVectors()) {
          bytes += vector.getBufferSize();
        }
        writer.writeBatch();
      }
      writer.end();
    }
    return new Pass(rows, bytes, System.nanoTime() - start);
  }

  private String report(RunEnvironment environment, String sql, List<Pass> flight, List<Pass> ipc, double loadBefore) {
    Pass bestFlight = flight.stream().min((a, b) -> Long.compare(a.nanos(), b.nanos())).orElseThrow();
    Pass bestIpc = ipc.stream().min((a, b) -> Long.compare(a.nanos(), b.nanos())).orElseThrow();
    StringBuilder s = new StringBuilder("## Flight throughput: a large result through Flight vs Arrow IPC to /dev/null\n\n");
    environment.describe().forEach(line -> s.append("- ").append(line).append('\n'));
    s.append(String.format(
        Locale.ROOT,
        "- Result: `%s`, %,d rows, %.1f MB of Arrow buffers (BIGINT, DOUBLE, VARCHAR), %d runs, best run shown%n",
        sql, rows, bestFlight.bytes() / 1e6, flight.size()));
    s.append(String.format(
        Locale.ROOT, "- System load average (1 min): %.2f before the runs, %.2f after%n", loadBefore, RunEnvironment.loadAverage()));
    s.append("- Command: `").append(commandLine).append("`\n\n");
    s.append("| Path | ms | rows/s | MB/s |\n|---|---:|---:|---:|\n");
    s.append(String.format(
        Locale.ROOT, "| SQE through Flight SQL (loopback, one stream) | %.0f | %,.0f | %.1f |%n",
        bestFlight.nanos() / 1e6, bestFlight.rowsPerSecond(), bestFlight.megabytesPerSecond()));
    s.append(String.format(
        Locale.ROOT, "| Same batches as Arrow IPC to /dev/null | %.0f | %,.0f | %.1f |%n",
        bestIpc.nanos() / 1e6, bestIpc.rowsPerSecond(), bestIpc.megabytesPerSecond()));
    s.append(String.format(
        Locale.ROOT,
        "%nServer CPU per Flight read (median of the runs): result threads (`sqe-query-*`) %.0f ms, scan threads (`sqe-scan-reader-*`) %.0f ms.%n",
        median(flight, Pass::queryCpuNanos) / 1e6, median(flight, Pass::scanCpuNanos) / 1e6));
    s.append(String.format(
        Locale.ROOT,
        "%nFlight / IPC baseline throughput: **%.3f** (the baseline is %.0fx faster).%n",
        bestFlight.megabytesPerSecond() / bestIpc.megabytesPerSecond(),
        bestIpc.megabytesPerSecond() / bestFlight.megabytesPerSecond()));
    return s.toString();
  }

  private static double median(List<Pass> passes, java.util.function.ToLongFunction<Pass> value) {
    long[] values = passes.stream().mapToLong(value).sorted().toArray();
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
  }
}
