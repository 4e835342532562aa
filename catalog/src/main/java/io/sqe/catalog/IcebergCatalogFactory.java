package io.sqe.catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.RESTSessionCatalog;
import org.apache.iceberg.rest.auth.AuthProperties;
import org.apache.iceberg.rest.auth.OAuth2Properties;

/** Creates the Iceberg catalogs SQE can serve: the embedded default and REST catalogs. */
public final class IcebergCatalogFactory {
  private IcebergCatalogFactory() {}

  /**
   * The zero-setup catalog: Iceberg's JDBC catalog on a SQLite file inside the warehouse
   * directory, with data and metadata files on the local disk. Tables survive a restart, and
   * views are supported.
   */
  public static LakehouseCatalog embedded(String name, Path warehouse, Duration cacheTtl) {
    Path dir = warehouse.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create warehouse directory " + dir, e);
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, dir.toUri().toString());
    props.put("jdbc.schema-version", "V1");
    // SQLite allows one writer at a time; one pooled connection avoids "database is locked".
    props.put(CatalogProperties.CLIENT_POOL_SIZE, "1");
    // Without it the JDBC catalog creates a table in a schema that a concurrent DROP SCHEMA just removed.
    props.put("jdbc.strict-mode", "true");
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize(name, props);
    return new LakehouseCatalog(name, catalog, cacheTtl, false, CatalogStorage.embedded(dir));
  }

  /**
   * An Iceberg REST catalog (Polaris, Nessie, Lakekeeper, ...). The properties go to Iceberg's
   * REST client unchanged: {@code uri}, {@code warehouse}, {@code credential}, {@code token},
   * {@code oauth2-server-uri}, {@code scope}, {@code io-impl}, {@code s3.*} and so on.
   */
  public static LakehouseCatalog rest(String name, Map<String, String> properties, Duration cacheTtl) {
    return rest(name, properties, cacheTtl, false);
  }

  /**
   * As above; with {@code passThroughToken}, each call carries the token of the {@linkplain
   * CatalogCredentials current caller} (Iceberg's session context), so the catalog's own access
   * control applies to that user, and loaded tables are cached per caller. Iceberg then sends the
   * token as it is ({@code rest.auth.type=oauth2}) and does not try to refresh it at the catalog
   * (SQE's client refreshes its own token at the identity provider), unless the properties say
   * otherwise.
   */
  public static LakehouseCatalog rest(String name, Map<String, String> properties, Duration cacheTtl, boolean passThroughToken) {
    if (!properties.containsKey(CatalogProperties.URI)) {
      throw new IllegalArgumentException("REST catalog " + name + " needs the property 'uri'");
    }
    if (passThroughToken) {
      Map<String, String> sessionProperties = new HashMap<>(properties);
      sessionProperties.putIfAbsent(AuthProperties.AUTH_TYPE, AuthProperties.AUTH_TYPE_OAUTH2);
      sessionProperties.putIfAbsent(OAuth2Properties.TOKEN_REFRESH_ENABLED, "false");
      RESTSessionCatalog sessions = new RESTSessionCatalog();
      sessions.setConf(new Configuration());
      sessions.initialize(name, sessionProperties);
      return new LakehouseCatalog(
          name, PassThroughRestCatalog.create(sessions), cacheTtl, true, CatalogStorage.rest(sessions.properties()));
    }
    RESTCatalog catalog = new RenewingRestCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize(name, new HashMap<>(properties));
    return new LakehouseCatalog(name, (Catalog) catalog, cacheTtl, false, CatalogStorage.rest(catalog.properties()));
  }
}
