package io.sqe.catalog;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sqe.engine.trace.Spans;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * One named Iceberg catalog as SQL sees it: {@code <name>.<schema>.<table>}, where a schema is a
 * single-level Iceberg namespace.
 *
 * <p>Loaded tables are cached for a short time because planning a query loads every table it
 * names, often several times. Writes made through this server invalidate the cache entry so a
 * session reads its own writes; changes made by other engines appear within the cache lifetime.
 * A catalog that passes each user's token through caches tables per caller, so a table one user
 * loaded never spares another user the catalog's check. A table whose vended storage credentials
 * expire and cannot be renewed by its FileIO leaves the cache before they do.
 */
public final class LakehouseCatalog implements Closeable {
  private final String name;
  private final Catalog catalog;
  private final SupportsNamespaces namespaces;
  private final ViewCatalog views;
  private final Cache<CacheKey, Table> tables;
  private final boolean perCaller;
  private final CatalogStorage storage;

  public LakehouseCatalog(String name, Catalog catalog, Duration tableCacheTtl) {
    this(name, catalog, tableCacheTtl, false);
  }

  /**
   * @param perCaller whether loaded tables are cached per {@linkplain CatalogCredentials caller}
   *     rather than shared
   */
  public LakehouseCatalog(String name, Catalog catalog, Duration tableCacheTtl, boolean perCaller) {
    this(name, catalog, tableCacheTtl, perCaller, CatalogStorage.UNKNOWN);
  }

  /** @param storage what SQE knows of the storage the catalog's tables live in */
  public LakehouseCatalog(String name, Catalog catalog, Duration tableCacheTtl, boolean perCaller, CatalogStorage storage) {
    this.storage = requireNonNull(storage, "storage is null");
    this.perCaller = perCaller;
    this.name = requireNonNull(name, "name is null");
    this.catalog = requireNonNull(catalog, "catalog is null");
    if (!(catalog instanceof SupportsNamespaces)) {
      throw new IllegalArgumentException(
          "Catalog " + name + " (" + catalog.getClass().getName() + ") does not support namespaces");
    }
    this.namespaces = (SupportsNamespaces) catalog;
    this.views = catalog instanceof ViewCatalog ? (ViewCatalog) catalog : null;
    requireNonNull(tableCacheTtl, "tableCacheTtl is null");
    this.tables =
        Caffeine.newBuilder().expireAfter(new TableLifetime(tableCacheTtl)).maximumSize(10_000).recordStats().build();
  }

  public String name() {
    return name;
  }

  /** The storage the catalog's tables live in: which locations a table may be given. */
  public CatalogStorage storage() {
    return storage;
  }

  /** The underlying Iceberg catalog, for operations this class does not wrap. */
  public Catalog iceberg() {
    return catalog;
  }

  public SupportsNamespaces namespaces() {
    return namespaces;
  }

  public Optional<ViewCatalog> views() {
    return Optional.ofNullable(views);
  }

  public List<Namespace> listSchemas() {
    return namespaces.listNamespaces(Namespace.empty());
  }

  public boolean schemaExists(String schema) {
    return namespaces.namespaceExists(Namespace.of(schema));
  }

  public List<TableIdentifier> listTables(String schema) {
    return catalog.listTables(Namespace.of(schema));
  }

  public List<TableIdentifier> listViews(String schema) {
    return views == null ? List.of() : views.listViews(Namespace.of(schema));
  }

  /** Loads a table, from the cache when it was loaded recently (by the same caller, for a per-caller catalog). */
  public Optional<Table> loadTable(TableIdentifier id) {
    CacheKey key = new CacheKey(caller(), id);
    Table cached = tables.getIfPresent(key);
    if (cached != null) {
      return Optional.of(cached);
    }
    try (Spans.Scoped span = Spans.open("sqe.catalog.load_table")) {
      span.span().setAttribute("sqe.table", name + "." + id);
      Table table = catalog.loadTable(id);
      tables.put(key, table);
      return Optional.of(table);
    } catch (NoSuchTableException e) {
      return Optional.empty();
    }
  }

  /** The cache of loaded tables, for metrics (it records hits and misses). */
  public Cache<?, Table> tableCache() {
    return tables;
  }

  /** Forgets a cached table, after this server changed it. */
  public void invalidate(TableIdentifier id) {
    if (perCaller) {
      tables.asMap().keySet().removeIf(key -> key.id().equals(id));
    } else {
      tables.invalidate(new CacheKey("", id));
    }
  }

  /** Whether each call carries its caller's own credentials. */
  public boolean passesCallerCredentials() {
    return perCaller;
  }

  private String caller() {
    if (!perCaller) {
      return "";
    }
    var context = CatalogCredentials.current();
    return context == null ? "" : context.sessionId();
  }

  private record CacheKey(String caller, TableIdentifier id) {}

  /** How long a loaded table is kept: see {@link VendedCredentials#keepFor}. */
  private record TableLifetime(Duration ttl) implements Expiry<CacheKey, Table> {
    @Override
    public long expireAfterCreate(CacheKey key, Table table, long currentTime) {
      return VendedCredentials.keepFor(table, ttl).toNanos();
    }

    @Override
    public long expireAfterUpdate(CacheKey key, Table table, long currentTime, long currentDuration) {
      return expireAfterCreate(key, table, currentTime);
    }

    @Override
    public long expireAfterRead(CacheKey key, Table table, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  public void invalidateAll() {
    tables.invalidateAll();
  }

  @Override
  public void close() throws IOException {
    tables.invalidateAll();
    if (catalog instanceof Closeable) {
      ((Closeable) catalog).close();
    }
  }
}
