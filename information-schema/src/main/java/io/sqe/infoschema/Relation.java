package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table or view as a metadata listing or lookup found it. Its {@linkplain #details() details} are
 * loaded from the catalog the first time they are asked for, unless the lookup already loaded them.
 */
public final class Relation {
  static final Comparator<Relation> ORDER =
      Comparator.<Relation, String>comparing(r -> r.schema().catalogName())
          .thenComparing(r -> r.schema().name())
          .thenComparing(Relation::name)
          .thenComparing(Relation::type);

  private final SchemaRef schema;
  private final String name;
  private final RelationType type;
  private Supplier<Optional<RelationDetails>> loader;
  private Optional<RelationDetails> details;

  Relation(SchemaRef schema, String name, RelationType type, Supplier<Optional<RelationDetails>> loader) {
    this.schema = requireNonNull(schema, "schema is null");
    this.name = requireNonNull(name, "name is null");
    this.type = requireNonNull(type, "type is null");
    this.loader = requireNonNull(loader, "loader is null");
  }

  public SchemaRef schema() {
    return schema;
  }

  public String name() {
    return name;
  }

  public RelationType type() {
    return type;
  }

  public TableIdentifier id() {
    return TableIdentifier.of(schema.namespace(), name);
  }

  public String qualifiedName() {
    return schema.catalogName() + "." + schema.name() + "." + name;
  }

  /** Columns, comment, times and more; empty when it was dropped meanwhile or cannot be loaded. */
  public Optional<RelationDetails> details() {
    if (details == null) {
      details = loader.get();
      loader = null;
    }
    return details;
  }

  @Override
  public String toString() {
    return type + " " + qualifiedName();
  }
}
