package io.sqe.flight.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two SQE servers for a test class, for behaviour that must hold in both catalog modes: one over
 * the embedded catalog, one over a real Iceberg REST catalog server; each with schema {@code app}.
 * Register it as a static {@code @RegisterExtension} field; it starts before the class's tests and
 * stops, deleting its files, after them. Its allocator is for the tests' clients; closing it after
 * them fails on any buffer they leaked.
 */
public final class BothCatalogs implements BeforeAllCallback, AfterAllCallback {
  private Path dir;
  private RootAllocator allocator;
  private TestServer embedded;
  private RestCatalogFixture rest;
  private TestServer overRest;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("sqe-both-catalogs");
    allocator = new RootAllocator();
    embedded = TestServer.start(dir.resolve("embedded"), Map.of());
    rest = RestCatalogFixture.start(dir.resolve("rest"));
    overRest = TestServer.start(dir.resolve("sqe-rest"), rest.sqeSettings());
    for (TestServer server : both().toList()) {
      try (TestServer.Client client = server.client(allocator)) {
        client.sql().executeUpdate("create schema app", client.auth());
      }
    }
  }

  public RootAllocator allocator() {
    return allocator;
  }

  public TestServer embedded() {
    return embedded;
  }

  public TestServer overRest() {
    return overRest;
  }

  /** The REST catalog behind {@link #overRest()}, which counts the requests it serves. */
  public RestCatalogFixture rest() {
    return rest;
  }

  /** Both servers, as arguments of a parameterized test (which must not close them). */
  public Stream<TestServer> both() {
    return Stream.of(embedded, overRest);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    try {
      overRest.close();
      rest.close();
      embedded.close();
      allocator.close();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(BothCatalogs::delete);
      }
    }
  }

  private static void delete(Path path) {
    try {
      Files.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
