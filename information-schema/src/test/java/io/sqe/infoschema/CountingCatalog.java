package io.sqe.infoschema;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.view.View;

/**
 * Iceberg's JDBC catalog on SQLite that counts the calls made to it, by method: what a REST
 * catalog would see as requests.
 */
final class CountingCatalog extends JdbcCatalog {
  private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
  private final ThreadLocal<Boolean> inside = ThreadLocal.withInitial(() -> false);

  static CountingCatalog open(Path dir) throws IOException {
    Files.createDirectories(dir);
    CountingCatalog catalog = new CountingCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize(
        "lake",
        Map.of(
            CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"),
            CatalogProperties.WAREHOUSE_LOCATION, dir.toUri().toString(),
            "jdbc.schema-version", "V1",
            CatalogProperties.CLIENT_POOL_SIZE, "1"));
    return catalog;
  }

  long calls(String method) {
    AtomicLong count = calls.get(method);
    return count == null ? 0 : count.get();
  }

  long total() {
    return calls.values().stream().mapToLong(AtomicLong::get).sum();
  }

  void reset() {
    calls.clear();
  }

  @Override
  public String toString() {
    return calls.toString();
  }

  /** Counts a call made from outside; the catalog's own calls to itself (listTables checks the namespace) are not requests. */
  private <T> T counted(String method, Supplier<T> call) {
    if (inside.get()) {
      return call.get();
    }
    calls.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
    inside.set(true);
    try {
      return call.get();
    } finally {
      inside.set(false);
    }
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) {
    return counted("listNamespaces", () -> super.listNamespaces(namespace));
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return counted("namespaceExists", () -> super.namespaceExists(namespace));
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return counted("listTables", () -> super.listTables(namespace));
  }

  @Override
  public List<TableIdentifier> listViews(Namespace namespace) {
    return counted("listViews", () -> super.listViews(namespace));
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    return counted("loadTable", () -> super.loadTable(identifier));
  }

  @Override
  public View loadView(TableIdentifier identifier) {
    return counted("loadView", () -> super.loadView(identifier));
  }
}
