package io.sqe.infoschema;

import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Tables' primary keys: their Iceberg identifier fields, as information_schema and GetPrimaryKeys show them. */
public final class PrimaryKeys {
  /** Only tables have identifier fields. */
  public static final Set<RelationType> TABLES = EnumSet.of(RelationType.TABLE);

  private PrimaryKeys() {}

  /** One column of a primary key, numbered from 1 in column order. */
  public record KeyColumn(Relation table, String constraintName, String column, int position) {}

  /** The name SQE gives a table's primary key, as Iceberg does not name it: {@code <table>_pkey}. */
  public static String name(Relation table) {
    return table.name() + "_pkey";
  }

  /** The visible key columns of the relations that are tables, table by table. */
  public static List<KeyColumn> columns(CatalogMetadata metadata, Principal principal, List<Relation> relations) {
    List<KeyColumn> keys = new ArrayList<>();
    for (Relation table : relations) {
      Optional<RelationDetails> details = table.type() == RelationType.TABLE ? table.details() : Optional.empty();
      if (details.isEmpty()) {
        continue;
      }
      int position = 1;
      for (String column : details.get().primaryKey()) {
        if (metadata.canSeeColumn(principal, table, column)) {
          keys.add(new KeyColumn(table, name(table), column, position++));
        }
      }
    }
    return keys;
  }
}
