package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short-lived storage credentials vended by the REST catalog, as Apache Polaris vends them: each
 * set works on the S3 server until its expiry and is refused from then on, so reads and writes
 * that go on across several expiries prove SQE gets new ones, through the catalog's credentials
 * endpoint or, where the catalog offers none, by loading the table again.
 */
class VendedCredentialsTest {
  /** Under Iceberg's five-minute prefetch window, so the FileIO renews before every use. */
  private static final Duration LIFETIME = Duration.ofSeconds(8);
  private static final int ROUNDS = 3;

  @TempDir Path dir;
  private BufferAllocator allocator;
  private S3Fixture s3;
  private RestCatalogFixture rest;
  private TestServer server;
  private TestServer.Client client;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    s3 = S3Fixture.start(dir.resolve("s3"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
    if (rest != null) {
      rest.close();
    }
    s3.close();
    allocator.close();
  }

  @Test
  void theStorageRefusesCredentialsOnceTheyExpire() throws Exception {
    String location = "s3://" + S3Fixture.BUCKET + "/probe/object";
    try (S3FileIO io = fileIo(s3.mint(Instant.now().plus(Duration.ofMinutes(5))).properties())) {
      write(io.newOutputFile(location));
      assertThat(io.newInputFile(location).exists()).isTrue();
    }
    try (S3FileIO io = fileIo(s3.mint(Instant.now().minusMillis(1)).properties())) {
      assertThatThrownBy(() -> io.newInputFile(location).exists()).hasMessageContaining("403");
    }
  }

  @Test
  void readsAndWritesGoOnAcrossExpiriesWithCredentialsFromTheRefreshEndpoint() throws Exception {
    startOverVendingCatalog(true);
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (round INT, x BIGINT)");
    long before = rest.credentialRequests();
    runRoundsAcrossExpiries();
    // Each round outlived the credentials of the one before, so each needed new ones.
    assertThat(rest.credentialRequests() - before).isGreaterThanOrEqualTo(ROUNDS);
  }

  @Test
  void withoutARefreshEndpointATableIsLoadedAgainBeforeItsCredentialsExpire() throws Exception {
    startOverVendingCatalog(false);
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (round INT, x BIGINT)");
    runRoundsAcrossExpiries();
    assertThat(rest.credentialRequests()).isZero();
  }

  @Test
  void aRefreshEndpointThatFailsIsAClearErrorNotAHang() throws Exception {
    startOverVendingCatalog(true);
    update("CREATE SCHEMA s");
    update("CREATE TABLE s.t (round INT, x BIGINT)");
    update("INSERT INTO s.t VALUES (1, 10)");
    rest.guard(request -> request.getRequestURI().endsWith("/credentials") ? 503 : 0);
    Thread.sleep(LIFETIME.plusSeconds(1).toMillis());
    Instant start = Instant.now();
    // The catalog's own client retries a 503 a few times with backoff before it gives up.
    assertThatThrownBy(() -> count("SELECT count(*) FROM s.t"))
        .isInstanceOfSatisfying(org.apache.arrow.flight.FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(org.apache.arrow.flight.FlightStatusCode.UNAVAILABLE);
          assertThat(e.getMessage()).containsIgnoringCase("catalog");
        });
    Duration took = Duration.between(start, Instant.now());
    System.out.println("A failing credentials endpoint was reported after " + took.toMillis() + " ms");
    assertThat(took).isLessThan(Duration.ofSeconds(60));
    rest.guard(null);
    assertThat(count("SELECT count(*) FROM s.t")).isEqualTo(1);
  }

  /** SQE holds no S3 keys and keeps loaded tables for an hour: only vended credentials can work. */
  private void startOverVendingCatalog(boolean offerRefresh) throws Exception {
    rest = RestCatalogFixture.startVendingShortLived(
        dir.resolve("rest"), s3.catalogBackend("vended"), () -> s3.mint(Instant.now().plus(LIFETIME)).properties(), offerRefresh);
    Map<String, String> noKeys = new HashMap<>(s3.fileIoProperties());
    noKeys.remove("s3.access-key-id");
    noKeys.remove("s3.secret-access-key");
    noKeys.put("header.X-Iceberg-Access-Delegation", "vended-credentials");
    Map<String, String> settings = S3Fixture.sqeSettings(rest, noKeys);
    settings.put("catalog.cache-ttl", "1h");
    server = TestServer.start(dir.resolve("sqe"), settings);
    client = server.client(allocator);
  }

  private void runRoundsAcrossExpiries() throws Exception {
    for (int round = 1; round <= ROUNDS; round++) {
      update("INSERT INTO s.t VALUES (" + round + ", " + round * 10 + ")");
      assertThat(count("SELECT count(*) FROM s.t")).isEqualTo(round);
      assertThat(count("SELECT sum(x) FROM s.t")).isEqualTo(10L * round * (round + 1) / 2);
      Thread.sleep(LIFETIME.plusSeconds(1).toMillis()); // every credential handed out so far has expired
    }
    update("UPDATE s.t SET x = x + 1 WHERE round = 1");
    assertThat(count("SELECT sum(x) FROM s.t")).isEqualTo(10L * ROUNDS * (ROUNDS + 1) / 2 + 1);
  }

  private S3FileIO fileIo(Map<String, String> credentials) {
    Map<String, String> properties = new HashMap<>(s3.fileIoProperties());
    properties.putAll(credentials);
    S3FileIO io = new S3FileIO();
    io.initialize(properties);
    return io;
  }

  private static void write(OutputFile file) throws Exception {
    try (PositionOutputStream out = file.createOrOverwrite()) {
      out.write(new byte[] {1, 2, 3});
    }
  }

  private void update(String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  private long count(String sql) throws Exception {
    FlightInfo info = client.sql().execute(sql, client.auth());
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth())) {
      assertThat(stream.next()).isTrue();
      return ((Number) stream.getRoot().getVector(0).getObject(0)).longValue();
    }
  }
}
