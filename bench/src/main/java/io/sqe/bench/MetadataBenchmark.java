package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.SqeServer;
import io.sqe.flight.config.ConfigLoader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A dbt-like metadata burst through Flight SQL: list the schemas, list the relations of each
 * schema, then read the columns of one relation after another, from several clients at once. The
 * same burst runs on two SQE servers over one embedded catalog: one with its catalog caches, one
 * with {@code catalog.cache-ttl: 0s}, alternating, and both must return the same rows.
 */
public final class MetadataBenchmark {
  private static final String CATALOG = "iceberg";
  private static final Type[] COLUMN_TYPES = {
    Types.LongType.get(), Types.StringType.get(), Types.DecimalType.of(18, 2), Types.TimestampType.withZone(),
    Types.DateType.get(), Types.DoubleType.get(), Types.BooleanType.get()
  };

  private final MetadataBenchmarkOptions options;
  private final PrintStream out;

  public MetadataBenchmark(MetadataBenchmarkOptions options, PrintStream out) {
    this.options = requireNonNull(options, "options is null");
    this.out = requireNonNull(out, "out is null");
  }

  public static void main(String[] args) throws Exception {
    Optional<MetadataBenchmarkOptions> options =
        CommandLineArguments.optionsOrExit(args, MetadataBenchmarkOptions.USAGE, MetadataBenchmarkOptions::parse);
    if (options.isPresent()) {
      Result result = new MetadataBenchmark(options.get(), System.out).run();
      System.exit(result.mismatches() > 0 ? 3 : 0);
    }
  }

  /**
   * The burst's wall-clock times on each server.
   *
   * @param cachedNanos the cached server's bursts, the cold first one first
   * @param uncachedNanos the same for the server without caches
   * @param mismatches statements whose rows differed between the servers
   * @param report the Markdown report
   */
  public record Result(List<Long> cachedNanos, List<Long> uncachedNanos, int mismatches, String report) {
    /** The uncached server's fastest warm burst over the cached one's. */
    public double ratio() {
      return min(uncachedNanos) / min(cachedNanos);
    }

    private static double min(List<Long> nanos) {
      return nanos.subList(1, nanos.size()).stream().mapToLong(Long::longValue).min().orElseThrow();
    }
  }

  public Result run() throws Exception {
    RunEnvironment environment = RunEnvironment.detect();
    environment.describe().forEach(out::println);
    Path warehouse = options.dataDir().resolve("warehouse");
    List<List<String>> layout = layout();
    if (!Files.exists(warehouse.resolve("catalog.db"))) {
      out.printf("Creating %d tables in %d schemas in %s%n", options.tables(), options.schemas(), warehouse);
      createCatalog(warehouse, layout);
    }
    List<String> burst = burst(layout);
    try (BufferAllocator allocator = new RootAllocator();
        Server cached = Server.start(options.dataDir().resolve("sqe-cached"), warehouse, options.cacheTtl(), options.threads(), allocator);
        Server uncached = Server.start(options.dataDir().resolve("sqe-uncached"), warehouse, Duration.ZERO, options.threads(), allocator)) {
      // The servers share one JVM: an untimed burst first compiles the code both run, so that the
      // cached server's first burst measures an empty cache rather than the JIT.
      uncached.burst(burst, new ArrayList<>());
      List<Long> cachedNanos = new ArrayList<>();
      List<Long> uncachedNanos = new ArrayList<>();
      double loadBefore = RunEnvironment.loadAverage();
      int mismatches = 0;
      for (int run = 0; run <= options.runs(); run++) {
        // Alternating which server goes first spreads drift in the machine's load over both.
        boolean cachedFirst = run % 2 == 0;
        Server first = cachedFirst ? cached : uncached;
        Server second = cachedFirst ? uncached : cached;
        List<List<List<Object>>> firstRows = new ArrayList<>();
        List<List<List<Object>>> secondRows = new ArrayList<>();
        long firstNanos = first.burst(burst, firstRows);
        long secondNanos = second.burst(burst, secondRows);
        (cachedFirst ? cachedNanos : uncachedNanos).add(firstNanos);
        (cachedFirst ? uncachedNanos : cachedNanos).add(secondNanos);
        for (int i = 0; i < burst.size(); i++) {
          if (!firstRows.get(i).equals(secondRows.get(i))) {
            mismatches++;
            out.println("MISMATCH in: " + burst.get(i));
          }
        }
        out.printf(Locale.ROOT, "Burst %d: cached %.0f ms, uncached %.0f ms%n", run, cachedNanos.get(run) / 1e6, uncachedNanos.get(run) / 1e6);
      }
      String report = report(environment, burst, cachedNanos, uncachedNanos, mismatches, loadBefore);
      out.println();
      out.print(report);
      if (options.output().isPresent()) {
        Path file = options.output().get().toAbsolutePath();
        Files.createDirectories(file.getParent());
        Files.writeString(file, report, StandardCharsets.UTF_8);
        out.println("Wrote " + file);
      }
      return new Result(cachedNanos, uncachedNanos, mismatches, report);
    }
  }

  /** Table names by schema: schema {@code dbt_NN} holds {@code model_NNNN}, spread evenly. */
  private List<List<String>> layout() {
    List<List<String>> layout = new ArrayList<>();
    for (int s = 0; s < options.schemas(); s++) {
      layout.add(new ArrayList<>());
    }
    for (int t = 0; t < options.tables(); t++) {
      layout.get(t % options.schemas()).add(String.format("model_%04d", t));
    }
    return layout;
  }

  private static String schemaName(int index) {
    return String.format("dbt_%02d", index);
  }

  /** Creates the tables through Iceberg's API: 4 to 12 columns of mixed types, some documented. */
  private void createCatalog(Path warehouse, List<List<String>> layout) throws Exception {
    try (LakehouseCatalog catalog = IcebergCatalogFactory.embedded(CATALOG, warehouse, Duration.ZERO)) {
      for (int s = 0; s < layout.size(); s++) {
        catalog.namespaces().createNamespace(Namespace.of(schemaName(s)));
        for (String table : layout.get(s)) {
          int number = Integer.parseInt(table.substring("model_".length()));
          List<Types.NestedField> columns = new ArrayList<>();
          for (int c = 1; c <= 4 + number % 9; c++) {
            columns.add(Types.NestedField.optional(c, "col_" + c, COLUMN_TYPES[(number + c) % COLUMN_TYPES.length], c % 3 == 0 ? "column " + c : null));
          }
          catalog.iceberg().createTable(TableIdentifier.of(schemaName(s), table), new Schema(columns));
        }
      }
    }
  }

  /**
   * The statements dbt sends: its schemas, the relations of each schema (its
   * list_relations_without_caching), then the columns of relations spread over the whole catalog
   * (its get_columns_in_relation), until the burst has its number of statements.
   */
  private List<String> burst(List<List<String>> layout) {
    List<String> statements = new ArrayList<>();
    statements.add("select schema_name from information_schema.schemata where catalog_name = '" + CATALOG + "'");
    for (int s = 0; s < layout.size(); s++) {
      statements.add(
          "select table_catalog as \"database\", table_name as name, table_schema as \"schema\","
              + " case when table_type = 'BASE TABLE' then 'table' when table_type = 'VIEW' then 'view' end as type"
              + " from information_schema.tables where table_schema ilike '" + schemaName(s) + "'");
    }
    int columnStatements = options.statements() - statements.size();
    for (int i = 0; i < columnStatements; i++) {
      int table = (int) ((long) i * options.tables() / columnStatements);
      statements.add(
          "select column_name, data_type, character_maximum_length, numeric_precision, numeric_scale"
              + " from information_schema.columns where table_schema = '" + schemaName(table % options.schemas()) + "'"
              + " and table_name = '" + String.format("model_%04d", table) + "' order by ordinal_position");
    }
    return statements;
  }

  private String report(
      RunEnvironment environment, List<String> burst, List<Long> cached, List<Long> uncached, int mismatches, double loadBefore) {
    StringBuilder s = new StringBuilder("## Metadata burst: caches on and off\n\n");
    s.append("The cold burst is each server's first, after one untimed burst on the uncached server; warm bursts follow.\n\n");
    environment.describe().forEach(line -> s.append("- ").append(line).append('\n'));
    s.append(String.format(
        Locale.ROOT,
        "- Catalog: embedded, %d tables in %d schemas; burst of %d statements (1 schemata, %d tables, %d columns) from %d clients%n",
        options.tables(), options.schemas(), burst.size(), options.schemas(), burst.size() - 1 - options.schemas(), options.threads()));
    s.append(String.format(
        Locale.ROOT, "- System load average (1 min): %.2f before the bursts, %.2f after%n", loadBefore, RunEnvironment.loadAverage()));
    s.append("- Command: `").append(options.commandLine()).append("`\n\n");
    s.append("| Server | cold burst ms | warm min ms | warm median ms | statements/s (warm min) |\n|---|---:|---:|---:|---:|\n");
    row(s, "catalog.cache-ttl " + options.cacheTtlLabel(), cached, burst.size());
    row(s, "catalog.cache-ttl 0 (no caches)", uncached, burst.size());
    Result result = new Result(cached, uncached, mismatches, "");
    s.append(String.format(
        Locale.ROOT,
        "%nUncached / cached (warm min): **%.2fx**. Rows differing between the servers: %d of %d statements per burst.%n",
        result.ratio(), mismatches, burst.size()));
    return s.toString();
  }

  private static void row(StringBuilder s, String name, List<Long> nanos, int statements) {
    List<Long> warm = new ArrayList<>(nanos.subList(1, nanos.size()));
    warm.sort(null);
    double min = warm.get(0) / 1e6;
    double median = warm.size() % 2 == 1
        ? warm.get(warm.size() / 2) / 1e6
        : (warm.get(warm.size() / 2 - 1) + warm.get(warm.size() / 2)) / 2e6;
    s.append(String.format(
        Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.0f |%n", name, nanos.get(0) / 1e6, min, median, statements / (min / 1000)));
  }

  /** One SQE server over the shared warehouse, with one logged-in client per thread. */
  private static final class Server implements AutoCloseable {
    private final SqeServer server;
    private final List<SqeFlightEngine> clients;
    private final ExecutorService threads;

    private Server(SqeServer server, List<SqeFlightEngine> clients, ExecutorService threads) {
      this.server = server;
      this.clients = clients;
      this.threads = threads;
    }

    static Server start(Path dataDir, Path warehouse, Duration cacheTtl, int threads, BufferAllocator allocator) throws Exception {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("host", "127.0.0.1");
      settings.put("port", "0");
      settings.put("data-dir", dataDir.toString());
      settings.put("catalog.name", CATALOG);
      settings.put("catalog.warehouse", warehouse.toString());
      settings.put("catalog.cache-ttl", cacheTtl.toMillis() + "ms");
      settings.put("auth.token-lifetime", "7d");
      SqeServer server = SqeServer.start(ConfigLoader.fromSettings(settings));
      List<SqeFlightEngine> clients = new ArrayList<>();
      try {
        String password = BenchUser.password(server.authentication().users());
        for (int i = 0; i < threads; i++) {
          clients.add(SqeFlightEngine.connect(allocator, server.location(), BenchUser.NAME, password, schemaName(0)));
        }
      } catch (Exception | Error e) {
        for (SqeFlightEngine client : clients) {
          client.close();
        }
        server.close();
        throw e;
      }
      return new Server(server, clients, Executors.newFixedThreadPool(threads));
    }

    /** Runs the burst, statement {@code i} on client {@code i % threads}, and returns its wall-clock time. */
    long burst(List<String> statements, List<List<List<Object>>> rows) throws Exception {
      List<List<List<Object>>> results = new ArrayList<>();
      statements.forEach(sql -> results.add(null));
      long start = System.nanoTime();
      List<Future<?>> work = new ArrayList<>();
      for (int c = 0; c < clients.size(); c++) {
        int client = c;
        work.add(threads.submit(() -> {
          for (int i = client; i < statements.size(); i += clients.size()) {
            List<List<Object>> result = clients.get(client).execute(statements.get(i), new Cancellation()).rows();
            synchronized (results) {
              results.set(i, result);
            }
          }
          return null;
        }));
      }
      for (Future<?> future : work) {
        future.get();
      }
      long nanos = System.nanoTime() - start;
      rows.addAll(results);
      return nanos;
    }

    @Override
    public void close() throws Exception {
      threads.shutdownNow();
      for (SqeFlightEngine client : clients) {
        client.close();
      }
      server.close();
    }
  }
}
