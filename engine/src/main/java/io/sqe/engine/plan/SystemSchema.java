package io.sqe.engine.plan;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Session;
import org.apache.calcite.schema.Schema;

/**
 * A schema the engine shows in every catalog next to the catalog's namespaces, such as
 * {@code information_schema}; it hides a namespace of the same name.
 */
public interface SystemSchema {
  /** The schema's name in SQL, in lower case; statements may spell it in any case. */
  String name();

  /** The schema's tables as the statements of {@code session} see them in {@code catalog}. */
  Schema schema(LakehouseCatalog catalog, Session session);
}
