package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Session;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractSchema;

/** The {@code system} catalog: the system schemas that span every catalog, such as Trino's system.jdbc. */
final class SystemCatalog extends AbstractSchema {
  private final List<SystemSchema> schemas;
  private final LakehouseCatalog sessionCatalog;
  private final Session session;
  private final PlanReads reads;

  SystemCatalog(List<SystemSchema> schemas, LakehouseCatalog sessionCatalog, Session session, PlanReads reads) {
    this.schemas = List.copyOf(schemas);
    this.sessionCatalog = requireNonNull(sessionCatalog, "sessionCatalog is null");
    this.session = requireNonNull(session, "session is null");
    this.reads = requireNonNull(reads, "reads is null");
  }

  @Override
  protected Map<String, Schema> getSubSchemaMap() {
    // What they show changes with the catalogs: no plan that reads them is cached.
    reads.unversioned("a system table");
    Map<String, Schema> map = new LinkedHashMap<>();
    for (SystemSchema schema : schemas) {
      map.put(schema.name(), schema.schema(sessionCatalog, session));
    }
    return map;
  }
}
