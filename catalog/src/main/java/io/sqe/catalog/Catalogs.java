package io.sqe.catalog;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The catalogs one server serves, by name; names are case-insensitive as SQL identifiers are. */
public final class Catalogs implements Closeable {
  private final Map<String, LakehouseCatalog> byName = new LinkedHashMap<>();
  private final String defaultCatalog;

  public Catalogs(Collection<LakehouseCatalog> catalogs, String defaultCatalog) {
    requireNonNull(catalogs, "catalogs is null");
    for (LakehouseCatalog catalog : catalogs) {
      if (byName.put(key(catalog.name()), catalog) != null) {
        throw new IllegalArgumentException("Duplicate catalog name: " + catalog.name());
      }
    }
    this.defaultCatalog = requireNonNull(defaultCatalog, "defaultCatalog is null");
    if (!byName.containsKey(key(defaultCatalog))) {
      throw new IllegalArgumentException("Default catalog is not configured: " + defaultCatalog);
    }
  }

  public String defaultCatalog() {
    return defaultCatalog;
  }

  public Collection<LakehouseCatalog> all() {
    return byName.values();
  }

  public Optional<LakehouseCatalog> find(String name) {
    return Optional.ofNullable(byName.get(key(name)));
  }

  private static String key(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (LakehouseCatalog catalog : byName.values()) {
      try {
        catalog.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
