package io.sqe.bench;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.SqeServer;
import io.sqe.flight.config.ConfigLoader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.apache.arrow.adbc.core.AdbcConnection;
import org.apache.arrow.adbc.core.AdbcDatabase;
import org.apache.arrow.adbc.core.AdbcDriver;
import org.apache.arrow.adbc.core.AdbcStatement;
import org.apache.arrow.adbc.driver.flightsql.FlightSqlDriver;
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
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Arrow through Flight: the rows/s and MB/s at which one client reads a large result from SQE
 * through Flight SQL (ADBC's Java driver: planning, scan, Arrow batches, gRPC on loopback), next
 * to three references measured in the same run: a plain Arrow Flight server serving the very same
 * record batches from memory (what Flight itself carries here), DuckDB reading the same Parquet
 * files into Arrow, and the same batches written as an Arrow IPC stream to /dev/null (the cost of
 * the format alone).
 *
 * <p>Usage: {@code bin/bench-flight [--table lineitem|synthetic] [--scale 1] [--rows 10000000]
 * [--warmups 2] [--runs 3] [--work-dir bench/target/work] [--output FILE.md]}. {@code lineitem} reads {@code
 * SELECT * FROM tpch.lineitem} from the TPC-H data {@code bin/bench-tpch} keeps in {@code
 * WORK_DIR/sf<scale>} (generated there when missing); {@code synthetic} reads a three-column table
 * made once per work directory through Flight SQL bulk ingest.
 */
public final class FlightThroughputBenchmark {
  static final String USAGE =
      "Usage: bin/bench-flight [--table lineitem|synthetic] [--scale 1] [--rows 10000000] [--warmups 2] [--runs 3]\n"
          + "                        [--work-dir bench/target/work] [--output FILE.md] [--settings K=V,...]\n"
          + "  --warmups N        untimed reads per path first, at least 1: SQE's first keeps the batches the others serve\n"
          + "  --table lineitem   SELECT * FROM tpch.lineitem at --scale (default), data shared with bin/bench-tpch\n"
          + "  --table synthetic  SELECT n, x, s FROM a table of --rows rows made by bulk ingest\n"
          + "  --settings K=V,... sqe.yaml settings for SQE, e.g. planner.columnar=false to compare\n"
          + "  --order-by COLUMNS ORDER BY the result on every path (SQE and DuckDB sort, e.g. l_shipdate,l_orderkey)\n"
          + "  --select LIST      lineitem's select list instead of *, one row per lineitem row on every path\n"
          + "                     (e.g. window functions: 'l_orderkey, row_number() over (partition by l_suppkey order by l_shipdate)')\n";
  /** What issue 27 asks of SQE for {@code SELECT * FROM tpch.lineitem} at scale 1. */
  static final double TARGET_ROWS_PER_SECOND = 4_000_000;
  private static final String SYNTHETIC_SCHEMA = "bench";
  private static final int INGEST_ROWS = 1_000_000;

  /** The result the benchmark reads. */
  enum Table {
    LINEITEM,
    SYNTHETIC
  }

  private final Table table;
  private final double scale;
  private final long rows;
  private final int warmups;
  private final int runs;
  private final Path workDir;
  private final Path output;
  private final String commandLine;
  private final PrintStream out;
  /** sqe.yaml settings for the server on top of the benchmark's own. */
  private final Map<String, String> serverSettings;
  /** The result's ORDER BY list, or null to read it in the table's order. */
  private final String orderBy;
  /** lineitem's select list, {@code *} unless given. */
  private final String select;

  private FlightThroughputBenchmark(
      Table table,
      double scale,
      long rows,
      int warmups,
      int runs,
      Path workDir,
      Path output,
      String commandLine,
      PrintStream out,
      Map<String, String> serverSettings,
      String orderBy,
      String select) {
    if (orderBy != null && !orderBy.matches("[A-Za-z_][A-Za-z0-9_]*( (?i:asc|desc))?(, ?[A-Za-z_][A-Za-z0-9_]*( (?i:asc|desc))?)*")) {
      throw new IllegalArgumentException("--order-by takes column names, each optionally ASC or DESC, not " + orderBy);
    }
    if (rows <= 0 || warmups <= 0 || runs <= 0) {
      throw new IllegalArgumentException("--rows, --warmups and --runs must be positive");
    }
    if (!(scale > 0) || scale > 100) {
      throw new IllegalArgumentException("Invalid scale: " + scale + " (must be above 0 and at most 100)");
    }
    this.table = table;
    this.scale = scale;
    this.rows = rows;
    this.warmups = warmups;
    this.runs = runs;
    this.workDir = workDir;
    this.output = output;
    this.commandLine = commandLine;
    this.out = out;
    this.serverSettings = Map.copyOf(serverSettings);
    this.orderBy = orderBy == null ? null : orderBy.replaceAll(", ?", ", ");
    this.select = select;
  }

  public static void main(String[] args) throws Exception {
    Optional<FlightThroughputBenchmark> benchmark = CommandLineArguments.optionsOrExit(args, USAGE, a -> parse(a, System.out));
    if (benchmark.isPresent()) {
      benchmark.get().run();
    }
  }

  static FlightThroughputBenchmark parse(String[] args, PrintStream out) {
    Table table = Table.LINEITEM;
    Double scale = null;
    Long rows = null;
    int warmups = 2;
    int runs = 3;
    Path workDir = BenchmarkOptions.DEFAULT_WORK_DIR;
    Path output = null;
    Map<String, String> serverSettings = new LinkedHashMap<>();
    String orderBy = null;
    String select = "*";
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("Missing value for " + flag);
      }
      String value = args[++i];
      try {
        switch (flag) {
          case "--table" -> table = switch (value) {
            case "lineitem" -> Table.LINEITEM;
            case "synthetic" -> Table.SYNTHETIC;
            default -> throw new IllegalArgumentException("--table must be lineitem or synthetic, not " + value);
          };
          case "--scale" -> scale = Double.parseDouble(value);
          case "--rows" -> rows = Long.parseLong(value.replace("_", ""));
          case "--warmups" -> warmups = Integer.parseInt(value);
          case "--runs" -> runs = Integer.parseInt(value);
          case "--work-dir" -> workDir = Path.of(value);
          case "--output" -> output = Path.of(value);
          case "--settings" -> serverSettings.putAll(BenchmarkOptions.settings(value));
          case "--order-by" -> orderBy = value;
          case "--select" -> select = value;
          default -> throw new IllegalArgumentException("Unknown option " + flag);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("Not a number for " + flag + ": " + value);
      }
    }
    if (table == Table.LINEITEM && rows != null) {
      throw new IllegalArgumentException("--rows applies to --table synthetic; lineitem's size is --scale");
    }
    if (table == Table.SYNTHETIC && !select.equals("*")) {
      throw new IllegalArgumentException("--select applies to --table lineitem");
    }
    if (table == Table.SYNTHETIC && scale != null) {
      throw new IllegalArgumentException("--scale applies to --table lineitem; the synthetic table's size is --rows");
    }
    return new FlightThroughputBenchmark(
        table, scale == null ? 1 : scale, rows == null ? 10_000_000 : rows, warmups, runs, workDir, output,
        "bin/bench-flight " + String.join(" ", args), out, serverSettings, orderBy, select);
  }

  /**
   * The best run of each path, and the report.
   *
   * @param rows the result's rows, the same on every path
   * @param sqe SQE through Flight SQL, read with ADBC
   * @param plainFlight the same batches from a plain Flight server
   * @param duckdb DuckDB reading the same Parquet files into Arrow
   * @param ipc the same batches as Arrow IPC to /dev/null
   * @param markdown the report
   */
  record Result(
      long rows, ThroughputPass sqe, ThroughputPass plainFlight, ThroughputPass duckdb, ThroughputPass ipc, String markdown) {}

  /** What one run reads: SQE's statement, the Iceberg table behind it, DuckDB's column list and ORDER BY suffix. */
  private record Query(String sql, TableIdentifier table, String columns, String orderBy) {}

  private String scaleLabel() {
    return BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
  }

  private Query query() {
    String order = orderBy == null ? "" : " ORDER BY " + orderBy;
    if (table == Table.LINEITEM) {
      return new Query(
          "SELECT " + select + " FROM " + TpchBenchmark.SCHEMA + ".lineitem" + order,
          TableIdentifier.of(TpchBenchmark.SCHEMA, "lineitem"),
          select,
          order);
    }
    String name = "flight_rows_" + rows;
    return new Query(
        "SELECT n, x, s FROM " + SYNTHETIC_SCHEMA + "." + name + order, TableIdentifier.of(SYNTHETIC_SCHEMA, name), "n, x, s", order);
  }

  /** The SQE data directory: the TPC-H benchmark's for lineitem, so the data is generated once. */
  private Path dataDir() {
    Path dir = table == Table.LINEITEM ? workDir.resolve("sf" + scaleLabel()) : workDir.resolve("flight-throughput");
    return dir.toAbsolutePath().normalize();
  }

  public Result run() throws Exception {
    RunEnvironment environment = RunEnvironment.detect();
    environment.describe().forEach(out::println);
    Query query = query();
    Path dataDir = dataDir();
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("host", "127.0.0.1");
    settings.put("port", "0");
    settings.put("data-dir", dataDir.toString());
    settings.put("auth.token-lifetime", "7d");
    // Every read executes the statement: a cached result would skip the path being measured.
    settings.putAll(BenchmarkOptions.DEFAULT_SERVER_SETTINGS);
    settings.putAll(serverSettings);
    if (table == Table.LINEITEM) {
      settings.put("sample-data.tpch-scale", scaleLabel());
      boolean existed = Files.isDirectory(dataDir.resolve("warehouse"));
      out.println((existed ? "Starting SQE over " : "Starting SQE and generating TPC-H scale " + scaleLabel() + " into ") + dataDir);
    }
    try (BufferAllocator allocator = new RootAllocator();
        SqeServer server = SqeServer.start(ConfigLoader.fromSettings(settings))) {
      String password = BenchUser.password(server.authentication().users());
      if (table == Table.SYNTHETIC) {
        createSyntheticTable(server, allocator, password, query.table());
      }
      LakehouseCatalog catalog = server.catalogs().find("iceberg").orElseThrow();
      TableFiles files = TableFiles.current(catalog, query.table());
      try (AdbcDatabase database = new FlightSqlDriver(allocator).open(Map.of(
              AdbcDriver.PARAM_URI.getKey(), server.location().getUri().toString(),
              AdbcDriver.PARAM_USERNAME.getKey(), BenchUser.NAME,
              AdbcDriver.PARAM_PASSWORD.getKey(), password));
          AdbcConnection sqe = database.connect()) {
        // An untimed read first: it warms the JIT and keeps the batches the other paths serve.
        List<ArrowRecordBatch> batches = new ArrayList<>();
        try {
          Schema schema = readThroughAdbc(sqe, query.sql(), batches);
          long resultRows = batches.stream().mapToLong(ArrowRecordBatch::getLength).sum();
          if (resultRows != files.rows()) {
            throw new IllegalStateException(query.sql() + " returned " + resultRows + " rows; the table's files hold " + files.rows());
          }
          int batchRows = batches.stream().mapToInt(ArrowRecordBatch::getLength).max().orElse(1);
          try (InMemoryFlightServer plainFlight = InMemoryFlightServer.start(allocator, schema, batches);
              DuckDbArrowExport duckdb = DuckDbArrowExport.open(files, query.columns(), query.orderBy())) {
            return measure(environment, query, files, schema, batches, batchRows, sqe, plainFlight, duckdb, allocator);
          }
        } finally {
          // Before the ADBC connection closes: its allocator accounts for the kept buffers.
          AutoCloseables.close(batches);
        }
      }
    }
  }

  private Result measure(
      RunEnvironment environment,
      Query query,
      TableFiles files,
      Schema schema,
      List<ArrowRecordBatch> batches,
      int batchRows,
      AdbcConnection sqe,
      InMemoryFlightServer plainFlight,
      DuckDbArrowExport duckdb,
      BufferAllocator allocator) throws Exception {
    // As many untimed reads on every path; SQE's first was the one that kept the batches. At scale 1
    // SQE's first timed read after a single warm-up took twice as long as the next ones (JIT).
    for (int warmup = 0; warmup < warmups; warmup++) {
      plainFlight.read();
      duckdb.read(allocator, batchRows);
      if (warmup > 0) {
        timedRead(sqe, query.sql());
      }
    }
    List<ThroughputPass> sqePasses = new ArrayList<>();
    List<ThroughputPass> flightPasses = new ArrayList<>();
    List<ThroughputPass> duckdbPasses = new ArrayList<>();
    List<ThroughputPass> ipcPasses = new ArrayList<>();
    long expected = files.rows();
    double loadBefore = RunEnvironment.loadAverage();
    for (int run = 0; run < runs; run++) {
      // Garbage from one path must not be collected on the next one's time.
      System.gc();
      ThroughputPass ipc = writeToDevNull(allocator, schema, batches);
      System.gc();
      ThroughputPass flight = plainFlight.read();
      System.gc();
      ThroughputPass lake = duckdb.read(allocator, batchRows);
      System.gc();
      ThroughputPass viaSqe = timedRead(sqe, query.sql());
      for (ThroughputPass pass : List.of(ipc, flight, lake, viaSqe)) {
        if (pass.rows() != expected) {
          throw new IllegalStateException("Expected " + expected + " rows on every path, one read " + pass.rows());
        }
      }
      sqePasses.add(viaSqe);
      flightPasses.add(flight);
      duckdbPasses.add(lake);
      ipcPasses.add(ipc);
      out.printf(
          Locale.ROOT,
          "Run %d: SQE %.0f ms (%,.0f rows/s; server CPU: result threads %.0f ms, scan threads %.0f ms), plain Flight %.0f ms, "
              + "DuckDB %.0f ms, IPC to /dev/null %.0f ms%n",
          run + 1, viaSqe.nanos() / 1e6, viaSqe.rowsPerSecond(), viaSqe.queryCpuNanos() / 1e6, viaSqe.scanCpuNanos() / 1e6,
          flight.nanos() / 1e6, lake.nanos() / 1e6, ipc.nanos() / 1e6);
    }
    double loadAfter = RunEnvironment.loadAverage();
    ThroughputPass bestSqe = best(sqePasses);
    ThroughputPass bestFlight = best(flightPasses);
    ThroughputPass bestDuckdb = best(duckdbPasses);
    ThroughputPass bestIpc = best(ipcPasses);
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "## Flight throughput: `%s`%s through SQE, a plain Flight server and DuckDB%n%n",
        query.sql(), table == Table.LINEITEM ? " at scale " + scaleLabel() : ""));
    environment.describe().forEach(line -> s.append("- ").append(line).append('\n'));
    s.append(String.format(
        Locale.ROOT,
        "- Result: %,d rows, %d columns, %.1f MB of Arrow buffers as SQE sends them, in %d batches of up to %,d rows; "
            + "the table's %d Parquet files hold %.0f MB%n",
        expected, schema.getFields().size(), bestSqe.bytes() / 1e6, batches.size(), batchRows, files.paths().size(), files.bytes() / 1e6));
    s.append("- SQE: in process on loopback, read with ADBC's Java Flight SQL driver ")
        .append(adbcVersion())
        .append(" (GetFlightInfo, then DoGet to the last batch); server CPU from `ThreadMXBean`\n");
    s.append("- Plain Flight: Arrow Java's `FlightServer` on 127.0.0.1 serving the batches of SQE's untimed first read from memory, "
        + "read with `FlightClient` (GetFlightInfo, then DoGet)\n");
    s.append("- ").append(duckdb.describe()).append(String.format(
        Locale.ROOT, ": `SELECT %s FROM read_parquet([...])%s` of the same files, to Arrow through `arrowExportStream` in batches of %,d rows%n",
        query.columns(), query.orderBy(), batchRows));
    s.append(String.format(
        Locale.ROOT, "- System load average (1 min, %d cores): %.2f before the runs, %.2f after; %d untimed reads per path, then %d runs, "
            + "best run of each path shown%n",
        environment.cores(), loadBefore, loadAfter, warmups, runs));
    s.append("- Command: `").append(commandLine).append("`\n\n");
    s.append("| Path | best ms | rows/s | MB/s |\n|---|---:|---:|---:|\n");
    row(s, "SQE through Flight SQL (ADBC, loopback, one stream)", bestSqe);
    row(s, "Plain Arrow Flight server, the same batches from memory (loopback)", bestFlight);
    row(s, "DuckDB, the same Parquet files to Arrow", bestDuckdb);
    row(s, "The same batches as Arrow IPC to /dev/null", bestIpc);
    s.append(String.format(
        Locale.ROOT,
        "%nSQE / plain Flight: **%.2f**; SQE / DuckDB: **%.2f** (rows/s of the best runs).%n",
        bestSqe.rowsPerSecond() / bestFlight.rowsPerSecond(), bestSqe.rowsPerSecond() / bestDuckdb.rowsPerSecond()));
    if (table == Table.LINEITEM && orderBy == null && select.equals("*")) {
      s.append(String.format(
          Locale.ROOT, "Issue 27 asks for at least %,.0f rows/s through Flight SQL at scale 1: %s.%n",
          TARGET_ROWS_PER_SECOND, bestSqe.rowsPerSecond() >= TARGET_ROWS_PER_SECOND ? "**met**" : "**not met**"));
    }
    s.append(String.format(
        Locale.ROOT,
        "%nServer CPU per SQE read (median of the runs): result threads (`sqe-query-*`) %.0f ms, scan threads (`sqe-scan-reader-*`) %.0f ms.%n",
        median(sqePasses, ThroughputPass::queryCpuNanos) / 1e6, median(sqePasses, ThroughputPass::scanCpuNanos) / 1e6));
    String report = s.toString();
    out.println();
    out.print(report);
    if (output != null) {
      Path file = output.toAbsolutePath();
      Files.createDirectories(file.getParent());
      Files.writeString(file, report, StandardCharsets.UTF_8);
      out.println("Wrote " + file);
    }
    return new Result(expected, bestSqe, bestFlight, bestDuckdb, bestIpc, report);
  }

  private static void row(StringBuilder s, String path, ThroughputPass pass) {
    s.append(String.format(
        Locale.ROOT, "| %s | %,.0f | %,.0f | %,.1f |%n", path, pass.nanos() / 1e6, pass.rowsPerSecond(), pass.megabytesPerSecond()));
  }

  private static String adbcVersion() {
    String version = FlightSqlDriver.class.getPackage().getImplementationVersion();
    return version == null ? "(version unknown)" : version;
  }

  /** Makes the synthetic table through Flight SQL bulk ingest unless it exists. */
  private void createSyntheticTable(SqeServer server, BufferAllocator allocator, String password, TableIdentifier id) throws Exception {
    FlightClient flight = FlightClient.builder(allocator, server.location()).build();
    try (FlightSqlClient client = new FlightSqlClient(flight)) {
      CallOption auth = flight.authenticateBasicToken(BenchUser.NAME, password).orElseThrow();
      if (!tableExists(client, auth, id.toString())) {
        out.printf(Locale.ROOT, "Creating %s with %,d rows through bulk ingest%n", id, rows);
        client.executeUpdate("CREATE SCHEMA IF NOT EXISTS " + id.namespace(), auth);
        ingest(client, auth, allocator, id);
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
  private void ingest(FlightSqlClient client, CallOption auth, BufferAllocator allocator, TableIdentifier id) {
    TableDefinitionOptions create =
        TableDefinitionOptions.newBuilder()
            .setIfNotExist(TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE)
            .setIfExists(TableExistsOption.TABLE_EXISTS_OPTION_APPEND)
            .build();
    ExecuteIngestOptions options = new ExecuteIngestOptions(id.name(), create, null, id.namespace().toString(), Map.of());
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

  /** Reads the whole result through ADBC, keeping each batch (its buffers retained) in {@code keep}. */
  private static Schema readThroughAdbc(AdbcConnection connection, String sql, List<ArrowRecordBatch> keep) throws Exception {
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery(sql);
      try (AdbcStatement.QueryResult result = statement.executeQuery()) {
        ArrowReader reader = result.getReader();
        while (reader.loadNextBatch()) {
          keep.add(new VectorUnloader(reader.getVectorSchemaRoot()).getRecordBatch());
        }
        return reader.getVectorSchemaRoot().getSchema();
      }
    }
  }

  /** From the statement's execution (GetFlightInfo) to its last batch, counting the Arrow buffer bytes received. */
  private static ThroughputPass timedRead(AdbcConnection connection, String sql) throws Exception {
    Map<Long, Long> cpuBefore = serverThreadCpu();
    long start = System.nanoTime();
    long rows = 0;
    long bytes = 0;
    try (AdbcStatement statement = connection.createStatement()) {
      statement.setSqlQuery(sql);
      try (AdbcStatement.QueryResult result = statement.executeQuery()) {
        ArrowReader reader = result.getReader();
        while (reader.loadNextBatch()) {
          rows += reader.getVectorSchemaRoot().getRowCount();
          bytes += ThroughputPass.bufferBytes(reader.getVectorSchemaRoot());
        }
      }
    }
    long nanos = System.nanoTime() - start;
    return new ThroughputPass(rows, bytes, nanos, cpuSince(cpuBefore, QUERY_THREADS), cpuSince(cpuBefore, SCAN_THREADS));
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

  /** The kept batches as one Arrow IPC stream into /dev/null; bytes are counted as on the other paths. */
  private static ThroughputPass writeToDevNull(BufferAllocator allocator, Schema schema, List<ArrowRecordBatch> batches) throws IOException {
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
        bytes += ThroughputPass.bufferBytes(root);
        writer.writeBatch();
      }
      writer.end();
    }
    return new ThroughputPass(rows, bytes, System.nanoTime() - start);
  }

  private static ThroughputPass best(List<ThroughputPass> passes) {
    return passes.stream().min((a, b) -> Long.compare(a.nanos(), b.nanos())).orElseThrow();
  }

  private static double median(List<ThroughputPass> passes, ToLongFunction<ThroughputPass> value) {
    long[] values = passes.stream().mapToLong(value).sorted().toArray();
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
  }
}
