package io.sqe.engine.plan;

import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.sql.SqeParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.ViewRepresentation;
import org.apache.iceberg.view.ViewVersion;

/** Which of an Iceberg view's SQL texts SQE reads: its own dialect's, else another engine's. */
public final class ViewDefinitions {
  /** The dialect name of SQE's SQL in a view's representations. */
  public static final String DIALECT = "sqe";

  private ViewDefinitions() {}

  /** SQE's SQL if the view has it, else the first SQL representation another engine stored. */
  public static Optional<SQLViewRepresentation> sql(ViewVersion version) {
    SQLViewRepresentation first = null;
    for (ViewRepresentation representation : version.representations()) {
      if (representation instanceof SQLViewRepresentation) {
        SQLViewRepresentation sql = (SQLViewRepresentation) representation;
        if (sql.dialect().toLowerCase(Locale.ROOT).equals(DIALECT)) {
          return Optional.of(sql);
        }
        first = first == null ? sql : first;
      }
    }
    return Optional.ofNullable(first);
  }

  /**
   * The tables and views the view's SQL names, each as catalog, schema and name, its unqualified
   * names resolved in the view's default catalog and namespace (else {@code catalog} and {@code
   * schema}, the view's own); empty when the view has no SQL SQE parses.
   */
  public static List<List<String>> tablesRead(ViewVersion version, String catalog, String schema) {
    Optional<SQLViewRepresentation> sql = sql(version);
    if (sql.isEmpty()) {
      return List.of();
    }
    SqlNode query;
    try {
      query = SqeParser.parse(sql.get().sql());
    } catch (RuntimeException e) {
      return List.of();
    }
    String namespace = String.join(".", version.defaultNamespace().levels());
    StatementFacts facts = StatementFacts.of(
        version.defaultCatalog() == null ? catalog : version.defaultCatalog(), namespace.isEmpty() ? schema : namespace, query);
    List<List<String>> tables = new ArrayList<>();
    for (String name : facts.read()) {
      // catalog.schema.table: a catalog name has no dot; a table name is taken to have none either.
      int first = name.indexOf('.');
      int last = name.lastIndexOf('.');
      if (first > 0 && last > first) {
        tables.add(List.of(name.substring(0, first), name.substring(first + 1, last), name.substring(last + 1)));
      }
    }
    return tables;
  }
}
