package io.sqe.engine.plan;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.prepare.Prepare;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.sql.validate.SqlNameMatchers;

/**
 * Resolves names as {@code catalog.schema.table}: a bare table in the session's schema, a
 * {@code schema.table} in the session's catalog, and a fully qualified name from the root.
 */
final class SessionCatalogReader extends CalciteCatalogReader {
  /** Catalog, schema, table: no table sits deeper in the schema tree. */
  private static final int TABLE_DEPTH = 3;

  private final List<List<String>> paths;

  SessionCatalogReader(
      CalciteSchema root, String catalog, String schema, RelDataTypeFactory typeFactory, CalciteConnectionConfig config) {
    this(root, SqlNameMatchers.withCaseSensitive(config.caseSensitive()), paths(catalog, schema), typeFactory, config);
  }

  private SessionCatalogReader(
      CalciteSchema root,
      SqlNameMatcher matcher,
      List<List<String>> paths,
      RelDataTypeFactory typeFactory,
      CalciteConnectionConfig config) {
    super(root, matcher, paths, typeFactory, config);
    this.paths = paths;
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

  /**
   * Looks the table up only below the paths where a name of its length can be: trying a qualified
   * name below the session's schema or catalog would ask the catalog for a schema named like the
   * catalog, and list every schema when there is none.
   */
  @Override
  public Prepare.PreparingTable getTable(List<String> names) {
    List<List<String>> usable = paths.stream().filter(path -> path.size() + names.size() <= TABLE_DEPTH).toList();
    if (usable.size() == paths.size()) {
      return super.getTable(names);
    }
    return usable.isEmpty()
        ? null
        : new SessionCatalogReader(rootSchema, nameMatcher, usable, typeFactory, config).getTable(names);
  }
}
