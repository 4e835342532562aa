package io.sqe.flight.testing;

import io.sqe.flight.SqeServer;
import io.sqe.flight.config.ConfigLoader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Starts a real SQE server on a random loopback port over a temporary data directory. */
public final class TestServer implements AutoCloseable {
  public static final String ADMIN = "admin";

  private final SqeServer server;
  private final String adminPassword;

  private TestServer(SqeServer server, String adminPassword) {
    this.server = server;
    this.adminPassword = adminPassword;
  }

  /** A server with the embedded catalog in {@code dataDir}; {@code settings} override defaults. */
  public static TestServer start(Path dataDir, Map<String, String> settings) {
    return start(dataDir, settings, null);
  }

  /**
   * Starts a server; pass the admin password of an earlier start on the same directory, since the
   * password is only generated on the first start.
   */
  public static TestServer start(Path dataDir, Map<String, String> settings, String knownAdminPassword) {
    Map<String, String> values = new HashMap<>();
    values.put("port", "0");
    values.put("data-dir", dataDir.toString());
    // Fewer PBKDF2 rounds keep the many handshakes of a test run fast; production uses 210,000.
    values.put("auth.password-hash-iterations", "10000");
    values.putAll(settings);
    SqeServer server = SqeServer.start(ConfigLoader.fromSettings(values));
    String password = server.initialAdminPassword().orElse(knownAdminPassword);
    return new TestServer(server, password);
  }

  /** The value of the sample {@code name} (with its labels) on /metrics; 0 when it has none yet. */
  public double metric(String name) throws IOException {
    ByteArrayOutputStream scraped = new ByteArrayOutputStream();
    server.metrics().writeTo(scraped);
    for (String line : scraped.toString(StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    return 0;
  }

  public SqeServer server() {
    return server;
  }

  public int port() {
    return server.port();
  }

  public String adminPassword() {
    return adminPassword;
  }

  public String jdbcUrl() {
    return "jdbc:arrow-flight-sql://127.0.0.1:" + port() + "/?useEncryption=false";
  }

  /** A Flight SQL client logged in as admin, with the call option that carries its bearer token. */
  public Client client(BufferAllocator allocator) {
    FlightClient flight = FlightClient.builder(allocator, server.location()).build();
    CallOption auth = flight.authenticateBasicToken(ADMIN, adminPassword).orElseThrow();
    return new Client(flight, new FlightSqlClient(flight), auth);
  }

  @Override
  public void close() throws Exception {
    server.close();
  }

  /** A logged-in client. */
  public record Client(FlightClient flight, FlightSqlClient sql, CallOption auth) implements AutoCloseable {
    /** Every row of a result's first endpoint, as the vectors' Java objects. */
    public List<List<Object>> rows(FlightInfo info) throws Exception {
      List<List<Object>> rows = new ArrayList<>();
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket(), auth)) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          for (int r = 0; r < root.getRowCount(); r++) {
            List<Object> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
              row.add(v.getObject(r));
            }
            rows.add(row);
          }
        }
      }
      return rows;
    }

    @Override
    public void close() throws Exception {
      sql.close();
    }
  }
}
