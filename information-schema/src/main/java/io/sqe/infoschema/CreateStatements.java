package io.sqe.infoschema;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.sql.SqlDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.view.View;

/**
 * The DDL that creates a table, view or schema as it is now, in SQE's SQL, for SHOW CREATE: a
 * table's columns (type, NOT NULL, comment), comment, partitioning, sort order, format version,
 * location and properties; a view's columns and query; a schema's properties.
 */
final class CreateStatements {
  private static final Pattern ARGUMENT = Pattern.compile("(\\w+)\\[(\\d+)]");

  private CreateStatements() {}

  static String table(Relation relation, List<ColumnInfo> columns, Table table) {
    StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(name(relation)).append(" (\n");
    for (int i = 0; i < columns.size(); i++) {
      ColumnInfo column = columns.get(i);
      ddl.append("   ").append(identifier(column.name())).append(' ').append(column.dataType());
      if (!column.nullable()) {
        ddl.append(" NOT NULL");
      }
      if (column.comment() != null) {
        ddl.append(" COMMENT ").append(literal(column.comment()));
      }
      ddl.append(i + 1 < columns.size() ? ",\n" : "\n");
    }
    ddl.append(')');
    relation.details().map(RelationDetails::comment).ifPresent(comment -> ddl.append("\nCOMMENT ").append(literal(comment)));
    List<String> partitioning = new ArrayList<>();
    for (PartitionField field : table.spec().fields()) {
      String transform = transform(field.transform().toString(), table.schema().findColumnName(field.sourceId()));
      if (transform != null) {
        partitioning.add(transform);
      }
    }
    if (!partitioning.isEmpty()) {
      ddl.append("\nPARTITIONED BY (").append(String.join(", ", partitioning)).append(')');
    }
    List<String> sorting = new ArrayList<>();
    for (SortField field : table.sortOrder().fields()) {
      String term = transform(field.transform().toString(), table.schema().findColumnName(field.sourceId()));
      if (term != null) {
        sorting.add(term + (field.direction() == SortDirection.ASC ? " ASC" : " DESC")
            + (field.nullOrder() == NullOrder.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST"));
      }
    }
    if (!sorting.isEmpty()) {
      ddl.append("\nSORTED BY (").append(String.join(", ", sorting)).append(')');
    }
    List<String> properties = new ArrayList<>();
    if (table instanceof HasTableOperations) {
      properties.add("format_version = " + ((HasTableOperations) table).operations().current().formatVersion());
    }
    properties.add("location = " + literal(table.location()));
    for (Map.Entry<String, String> property : new TreeMap<>(table.properties()).entrySet()) {
      properties.add(literal(property.getKey()) + " = " + literal(property.getValue()));
    }
    ddl.append("\nWITH (\n   ").append(String.join(",\n   ", properties)).append("\n)");
    return ddl.toString();
  }

  static String view(Relation relation, List<ColumnInfo> columns) {
    RelationDetails details = relation.details().orElseThrow();
    StringBuilder ddl = new StringBuilder("CREATE VIEW ").append(name(relation));
    List<String> names = new ArrayList<>();
    for (ColumnInfo column : columns) {
      names.add(identifier(column.name()));
    }
    ddl.append(" (").append(String.join(", ", names)).append(')');
    if (details.comment() != null) {
      ddl.append(" COMMENT ").append(literal(details.comment()));
    }
    return ddl.append(" AS\n").append(details.viewDefinition()).toString();
  }

  /** Trino's form: the view's comment and max_staleness, then its SQL; the storage table is not the user's to name. */
  static String materializedView(Relation relation, View view) {
    RelationDetails details = relation.details().orElseThrow();
    StringBuilder ddl = new StringBuilder("CREATE MATERIALIZED VIEW ").append(name(relation));
    if (details.comment() != null) {
      ddl.append("\nCOMMENT ").append(literal(details.comment()));
    }
    String maxStaleness = view.properties().get(MaterializedViews.MAX_STALENESS);
    if (maxStaleness != null) {
      ddl.append("\nWITH (\n   ").append(MaterializedViews.MAX_STALENESS).append(" = ").append(literal(maxStaleness)).append("\n)");
    }
    return ddl.append(" AS\n").append(details.viewDefinition()).toString();
  }

  static String schema(LakehouseCatalog catalog, String schema) {
    StringBuilder ddl = new StringBuilder("CREATE SCHEMA ").append(identifier(catalog.name())).append('.').append(identifier(schema));
    Map<String, String> properties = new TreeMap<>(catalog.namespaces().loadNamespaceMetadata(Namespace.of(schema.split("\\."))));
    if (!properties.isEmpty()) {
      List<String> written = new ArrayList<>();
      properties.forEach((key, value) -> written.add(literal(key) + " = " + literal(value)));
      ddl.append("\nWITH (\n   ").append(String.join(",\n   ", written)).append("\n)");
    }
    return ddl.toString();
  }

  /** A partition or sort term in SQE's DDL, from Iceberg's transform name; null for a void field. */
  private static String transform(String transform, String column) {
    String name = path(column);
    if (transform.equals("identity")) {
      return name;
    }
    if (transform.equals("void")) {
      return null;
    }
    Matcher argument = ARGUMENT.matcher(transform);
    if (argument.matches()) {
      return argument.group(1) + "(" + argument.group(2) + ", " + name + ")";
    }
    return transform + "(" + name + ")";
  }

  private static String name(Relation relation) {
    return identifier(relation.schema().catalogName()) + "." + identifier(relation.schema().name()) + "." + identifier(relation.name());
  }

  private static String identifier(String name) {
    return SqlDialect.identifier(name);
  }

  /** A nested field's path (r.f), each segment written as a name. */
  private static String path(String path) {
    List<String> segments = new ArrayList<>();
    for (String segment : path.split("\\.")) {
      segments.add(identifier(segment));
    }
    return String.join(".", segments);
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }
}
