package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.validate.SqlNameMatchers;

/**
 * Resolves names as {@code catalog.schema.table}: a bare table in the session's schema, a
 * {@code schema.table} in the session's catalog, and a fully qualified name from the root.
 */
final class SessionCatalogReader extends CalciteCatalogReader {
  SessionCatalogReader(
      CalciteSchema root, String catalog, String schema, RelDataTypeFactory typeFactory, CalciteConnectionConfig config) {
    super(root, SqlNameMatchers.withCaseSensitive(config.caseSensitive()), paths(catalog, schema), typeFactory, config);
  }

  private static List<List<String>> paths(String catalog, String schema) {
    List<List<String>> paths = new ArrayList<>();
    if (schema != null) {
      paths.add(List.of(catalog, schema));
    }
    paths.add(List.of(catalog));
    paths.add(List.of());
    return paths;
  }
}
