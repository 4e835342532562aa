package io.sqe.engine;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An embedded Iceberg catalog named {@code lake}, in a directory of its own, and the allocator
 * queries take their memory from: made fresh before each test and closed after it (the allocator
 * checks that no query leaked memory). Register it with {@code @RegisterExtension}.
 */
public final class EmbeddedLake implements BeforeEachCallback, AfterEachCallback {
  private final String schema;
  private Path dir;
  private RootAllocator allocator;
  private LakehouseCatalog catalog;

  private EmbeddedLake(String schema) {
    this.schema = schema;
  }

  /** A lake with the namespace {@code s}, the schema of {@link #session(String)}. */
  public static EmbeddedLake withSchemaS() {
    return new EmbeddedLake("s");
  }

  /** A lake without namespaces. */
  public static EmbeddedLake empty() {
    return new EmbeddedLake(null);
  }

  /**
   * The query services an engine over this lake hands its commands, as the write path's commands
   * get them: captured by a command executor that takes a statement {@code session} prepares.
   */
  public io.sqe.engine.command.QueryServices queryServices(Session session) {
    io.sqe.engine.command.QueryServices[] captured = new io.sqe.engine.command.QueryServices[1];
    io.sqe.engine.command.CommandExecutor capture = (context, statement) -> {
      captured[0] = context.queries();
      return java.util.Optional.empty();
    };
    QueryEngine engine = new QueryEngine(catalogs(), allocator(), EngineConfig.DEFAULT, List.of(capture));
    try {
      engine.prepare(session, "delete from captured");
    } catch (SqeException e) {
      // No executor prepares it: the capture has seen the services by then.
    }
    return java.util.Objects.requireNonNull(captured[0], "no command executor saw the statement");
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory("sqe-lake");
    allocator = new RootAllocator();
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofSeconds(5));
    if (schema != null) {
      catalog.namespaces().createNamespace(Namespace.of(schema));
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      catalog.close();
      allocator.close();
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(path);
        }
      }
    }
  }

  public LakehouseCatalog catalog() {
    return catalog;
  }

  public RootAllocator allocator() {
    return allocator;
  }

  /** An engine over this lake alone, with the default settings. */
  public QueryEngine engine() {
    return engine(EngineConfig.DEFAULT);
  }

  public QueryEngine engine(EngineConfig config) {
    return new QueryEngine(catalogs(), allocator, config);
  }

  public Catalogs catalogs() {
    return new Catalogs(List.of(catalog), "lake");
  }

  /** A session of {@code user} in {@code lake.s}, in UTC. */
  public static Session session(String user) {
    return new Session(Principal.of(user), "lake", "s", ZoneOffset.UTC);
  }
}
