package io.sqe.engine.plan;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Session;
import org.apache.calcite.schema.Schema;

/**
 * A schema the engine shows in every catalog next to the catalog's namespaces, such as
 * {@code information_schema}, where it hides a namespace of the same name; or one it shows only
 * in the {@code system} catalog next to the lakehouse catalogs, such as Trino's {@code
 * system.jdbc}, whose tables span every catalog.
 */
public interface SystemSchema {
  /** The name of the catalog that holds the schemas {@link #inSystemCatalog() in the system catalog}. */
  String SYSTEM_CATALOG = "system";

  /** The schema's name in SQL, in lower case; statements may spell it in any case. */
  String name();

  /**
   * The schema's tables as the statements of {@code session} see them in {@code catalog}; for a
   * schema {@link #inSystemCatalog() in the system catalog}, {@code catalog} is the session's.
   */
  Schema schema(LakehouseCatalog catalog, Session session);

  /** Whether the schema is in the {@code system} catalog only, rather than in every catalog. */
  default boolean inSystemCatalog() {
    return false;
  }
}
