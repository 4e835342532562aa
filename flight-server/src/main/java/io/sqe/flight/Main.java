package io.sqe.flight;

import io.sqe.flight.config.ConfigException;
import io.sqe.flight.config.ConfigLoader;
import io.sqe.flight.config.ServerConfig;
import io.sqe.flight.ops.LogSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Starts SQE from the command line. */
public final class Main {
  private static final String USAGE =
      "Usage: sqe-server [--config FILE] [--load-tpch SCALE]\n"
          + "  --config FILE      YAML configuration (default: $SQE_CONFIG); SQE_* variables override it\n"
          + "  --load-tpch SCALE  load TPC-H at this scale factor (e.g. 0.01) into the tpch schema\n";

  private Main() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> environment = new HashMap<>(System.getenv());
    Path configFile = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--config":
          configFile = Path.of(value(args, ++i));
          break;
        case "--load-tpch":
          environment.put("SQE_SAMPLE__DATA_TPCH__SCALE", value(args, ++i));
          break;
        case "-h":
        case "--help":
          System.out.print(USAGE);
          return;
        default:
          fail("Unknown argument: " + args[i]);
      }
    }
    ServerConfig config;
    try {
      String fromEnvironment = environment.get(ConfigLoader.CONFIG_FILE_VARIABLE);
      if (configFile == null && fromEnvironment != null && !fromEnvironment.isBlank()) {
        configFile = Path.of(fromEnvironment);
      }
      config = ConfigLoader.load(configFile, environment);
    } catch (ConfigException e) {
      fail("Invalid configuration: " + e.getMessage());
      return;
    }
    LogSettings.apply(config.operations().logFormat(), config.operations().logLevel());
    SqeServer server = SqeServer.start(config);
    // SIGTERM: refuse new calls, let running statements finish within the grace period, cancel the rest.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        System.err.println("Error while stopping SQE: " + e.getMessage());
      }
    }, "sqe-shutdown"));
    server.initialAdminPassword().ifPresent(password -> {
      System.out.println("Created user 'admin' with password: " + password);
      System.out.println("This password is shown only once; only its salted hash is stored.");
    });
    // Before "SQE is listening", which bin/sqe start waits for.
    server.httpPort().ifPresent(port ->
        System.out.println("Health and metrics: http://" + config.host() + ":" + port + "/health and /metrics"));
    server.trinoPort().ifPresent(port -> System.out.println("Trino clients: " + (config.tls() == null ? "http" : "https") + "://"
        + (config.trino().host() == null ? config.host() : config.trino().host()) + ":" + port));
    System.out.println(
        "SQE is listening on grpc://" + config.host() + ":" + server.port()
            + " (catalog '" + config.catalog().name() + "', " + config.catalog().type().name().toLowerCase() + ")");
    System.out.println(
        "JDBC: jdbc:arrow-flight-sql://" + config.host() + ":" + server.port() + "/?useEncryption=false&user=admin&password=...");
    server.awaitTermination();
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      fail("Missing value for " + args[i - 1]);
    }
    return args[i];
  }

  private static void fail(String message) {
    System.err.println(message);
    System.err.print(USAGE);
    System.exit(2);
  }
}
