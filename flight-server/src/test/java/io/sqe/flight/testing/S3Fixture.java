package io.sqe.flight.testing;

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

/**
 * A real S3-compatible server for tests: s3proxy (from Maven Central, copied to {@code
 * target/s3proxy} by the build) in its own JVM on 127.0.0.1, storing buckets as directories on the
 * local disk, with static credentials. The bucket {@value #BUCKET} exists from the start.
 */
public final class S3Fixture implements AutoCloseable {
  public static final String BUCKET = "warehouse";
  public static final String ACCESS_KEY = "sqe-test-access";
  public static final String SECRET_KEY = "sqe-test-secret-key";
  public static final String REGION = "us-east-1";

  private final Process process;
  private final Path root;
  private final int port;

  private S3Fixture(Process process, Path root, int port) {
    this.process = process;
    this.root = root;
    this.port = port;
  }

  public static S3Fixture start(Path dir) throws IOException, InterruptedException {
    Path jar = Path.of("target", "s3proxy", "s3proxy.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("No s3proxy at " + jar + "; the build copies it there (mvn process-test-resources)");
    }
    Path root = Files.createDirectories(dir.resolve("buckets"));
    Files.createDirectories(root.resolve(BUCKET));
    int port = freePort();
    Path properties = dir.resolve("s3proxy.conf");
    Files.writeString(properties, String.join("\n",
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=aws-v2-or-v4",
        "s3proxy.identity=" + ACCESS_KEY,
        "s3proxy.credential=" + SECRET_KEY,
        "jclouds.provider=filesystem-nio2",
        "jclouds.filesystem.basedir=" + root,
        ""));
    Path log = dir.resolve("s3proxy.log");
    Process process =
        new ProcessBuilder(List.of(javaBinary(), "-Xmx512m", "-jar", jar.toString(), "--properties", properties.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    S3Fixture fixture = new S3Fixture(process, root, port);
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

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
