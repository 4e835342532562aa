package io.sqe.flight.testing;

import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A real S3-compatible server for tests: s3proxy (from Maven Central, copied to {@code
 * target/s3proxy} by the build) in its own JVM on 127.0.0.1, storing buckets as directories on the
 * local disk, with static credentials and the short-lived ones {@link #mint} hands out. The bucket {@value #BUCKET} exists from the start.
 */
public final class S3Fixture implements AutoCloseable {
  public static final String BUCKET = "warehouse";
  public static final String ACCESS_KEY = "sqe-test-access";
  public static final String SECRET_KEY = "sqe-test-secret-key";
  public static final String REGION = "us-east-1";

  private final Process process;
  private final Path root;
  private final int port;

  private final String mintingSecret;

  private S3Fixture(Process process, Path root, int port, String mintingSecret) {
    this.process = process;
    this.root = root;
    this.port = port;
    this.mintingSecret = mintingSecret;
  }

  /**
   * New temporary credentials that this server accepts until {@code expiresAt} and refuses (403)
   * from then on, as an S3 service does with the short-lived credentials a catalog vends. The
   * session token is carried along but not checked: the key itself is what expires.
   */
  public VendedKey mint(Instant expiresAt) {
    String accessKey = S3ProxyWithVendedKeys.VENDED_PREFIX + expiresAt.toEpochMilli() + "-" + UUID.randomUUID().toString().replace("-", "");
    return new VendedKey(
        accessKey, S3ProxyWithVendedKeys.secretOf(accessKey, mintingSecret), "token-" + UUID.randomUUID(), expiresAt);
  }

  /** Temporary S3 credentials. */
  public record VendedKey(String accessKeyId, String secretAccessKey, String sessionToken, Instant expiresAt) {
    /** As Iceberg's S3FileIO properties (and a REST catalog's storage credential config). */
    public Map<String, String> properties() {
      return Map.of(
          "s3.access-key-id", accessKeyId,
          "s3.secret-access-key", secretAccessKey,
          "s3.session-token", sessionToken,
          "s3.session-token-expires-at-ms", Long.toString(expiresAt.toEpochMilli()));
    }
  }

  public static S3Fixture start(Path dir) throws IOException, InterruptedException {
    Path jar = Path.of("target", "s3proxy", "s3proxy.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("No s3proxy at " + jar + "; the build copies it there (mvn process-test-resources)");
    }
    Path root = Files.createDirectories(dir.resolve("buckets"));
    String mintingSecret = UUID.randomUUID().toString();
    Files.createDirectories(root.resolve(BUCKET));
    int port = freePort();
    Path properties = dir.resolve("s3proxy.conf");
    Files.writeString(properties, String.join("\n",
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=aws-v2-or-v4",
        S3ProxyWithVendedKeys.STATIC_IDENTITY + "=" + ACCESS_KEY,
        S3ProxyWithVendedKeys.STATIC_CREDENTIAL + "=" + SECRET_KEY,
        S3ProxyWithVendedKeys.MINTING_SECRET + "=" + mintingSecret,
        // Temporary credentials come with x-amz-security-token, which s3proxy does not know.
        "s3proxy.ignore-unknown-headers=true",
        "jclouds.provider=filesystem-nio2",
        "jclouds.filesystem.basedir=" + root,
        ""));
    Path log = dir.resolve("s3proxy.log");
    Process process =
        new ProcessBuilder(List.of(
                javaBinary(), "-Xmx512m", "-cp", jar + File.pathSeparator + ownClassPath(),
                S3ProxyWithVendedKeys.class.getName(), properties.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    S3Fixture fixture = new S3Fixture(process, root, port, mintingSecret);
    fixture.awaitReady(log);
    return fixture;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Where an {@code s3://bucket/key} object lies on the local disk (for DuckDB, which reads files). */
  public Path localPath(String location) {
    URI uri = URI.create(location.replaceFirst("^s3a?://", "s3://"));
    return root.resolve(uri.getHost()).resolve(uri.getPath().substring(1));
  }

  /** Iceberg catalog properties for S3FileIO against this server with static keys. */
  public Map<String, String> fileIoProperties() {
    Map<String, String> properties = new HashMap<>();
    properties.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    properties.put("s3.endpoint", endpoint());
    properties.put("s3.path-style-access", "true");
    properties.put("s3.access-key-id", ACCESS_KEY);
    properties.put("s3.secret-access-key", SECRET_KEY);
    properties.put("client.region", REGION);
    return properties;
  }

  /** Properties for a REST catalog's backend whose warehouse is {@code s3://warehouse/<path>}. */
  public Map<String, String> catalogBackend(String path) {
    Map<String, String> backend = new HashMap<>(fileIoProperties());
    backend.put("warehouse", "s3://" + BUCKET + "/" + path);
    return backend;
  }

  /** Server settings for SQE over {@code rest}, reading and writing this server with {@code fileIo}. */
  public static Map<String, String> sqeSettings(RestCatalogFixture rest, Map<String, String> fileIo) {
    Map<String, String> settings = new HashMap<>(rest.sqeSettings());
    fileIo.forEach((key, value) -> settings.put("catalog.properties." + key, value));
    return settings;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private void awaitReady(Path log) throws IOException, InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("s3proxy exited: " + Files.readString(log));
      }
      try {
        HttpURLConnection connection = (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
        connection.setConnectTimeout(500);
        connection.setReadTimeout(2000);
        connection.getResponseCode(); // any answer (403 without a signature) means it is serving
        connection.disconnect();
        return;
      } catch (IOException notYet) {
        Thread.sleep(200);
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException("s3proxy did not start within 60 s: " + Files.readString(log));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Where the test classes are, for s3proxy's launcher {@link S3ProxyWithVendedKeys}. */
  private static String ownClassPath() {
    try {
      return Path.of(S3ProxyWithVendedKeys.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
