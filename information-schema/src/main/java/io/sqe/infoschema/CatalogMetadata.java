package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schemas, tables, views and columns of a catalog that a principal may see: what
 * information_schema and the Flight SQL metadata commands both answer from.
 *
 * <p>The catalog is asked only what a request leaves open. Exact schema names are not listed but
 * used directly; exact table names are loaded one by one (through the catalog's table cache)
 * instead of listing their schema; a listed table is only loaded when its details are asked for.
 */
public final class CatalogMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogMetadata.class);

  private final ObjectVisibility visibility;

  public CatalogMetadata(ObjectVisibility visibility) {
    this.visibility = requireNonNull(visibility, "visibility is null");
  }

  public ObjectVisibility visibility() {
    return visibility;
  }

  /** The existing schemas the filter accepts, sorted by name; an exact name costs one existence check. */
  public List<SchemaRef> schemas(LakehouseCatalog catalog, Principal principal, NameFilter schemas) {
    List<SchemaRef> result = new ArrayList<>();
    for (SchemaRef schema : candidates(catalog, principal, schemas)) {
      if (schemas.exactNames().isEmpty() || catalog.namespaces().namespaceExists(schema.namespace())) {
        result.add(schema);
      }
    }
    return result;
  }

  /**
   * The tables and views of the types asked for whose schema and name the filters accept, sorted
   * by schema, name and type. Listed relations are not loaded until their details are asked for;
   * a relation asked for by exact name is loaded to learn whether it exists.
   */
  public List<Relation> relations(
      LakehouseCatalog catalog, Principal principal, NameFilter schemas, NameFilter names, Set<RelationType> types) {
    List<Relation> result = new ArrayList<>();
    for (SchemaRef schema : candidates(catalog, principal, schemas)) {
      Optional<Set<String>> exact = names.exactNames();
      if (exact.isPresent()) {
        for (String name : exact.get()) {
          lookUp(schema, name, types).ifPresent(result::add);
        }
      } else {
        list(schema, names, types, result);
      }
    }
    result.removeIf(r -> !visibility.canSeeTable(principal, catalog.name(), r.schema().name(), r.name()));
    result.sort(Relation.ORDER);
    return result;
  }

  /**
   * The columns of a relation the principal may see, in order; empty when the relation cannot be
   * loaded or has a column of a type SQE cannot read (it is then left out of column metadata). A
   * view's column is left out, too, where a table the view reads hides a column of that name from
   * the principal: a {@code SELECT *} view would show the hidden column's name.
   */
  public Optional<List<ColumnInfo>> columns(Principal principal, Relation relation) {
    Optional<RelationDetails> details = relation.details();
    if (details.isEmpty()) {
      return Optional.empty();
    }
    List<ColumnInfo> visible = new ArrayList<>();
    try {
      for (ColumnInfo column : details.get().columns()) {
        column.dataType();
        if (canSeeColumn(principal, relation, column.name()) && !hiddenInViewReads(principal, details.get(), column.name())) {
          visible.add(column);
        }
      }
    } catch (UnsupportedTypeException e) {
      LOG.warn("Leaving the columns of {} out of the metadata: {}", relation, e.getMessage());
      return Optional.empty();
    }
    return Optional.of(visible);
  }

  /** Whether a table the view reads, which the principal sees, hides a column named {@code column} from them. */
  private boolean hiddenInViewReads(Principal principal, RelationDetails details, String column) {
    for (List<String> table : details.viewReads()) {
      if (visibility.canSeeTable(principal, table.get(0), table.get(1), table.get(2))
          && !visibility.canSeeColumn(principal, table.get(0), table.get(1), table.get(2), column)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A view's SQL as the principal may see it: null when a table the view reads hides columns from
   * them, since the SQL may name one.
   */
  public Optional<String> viewDefinition(Principal principal, Relation view) {
    Optional<RelationDetails> details = view.details();
    if (details.isEmpty() || details.get().viewDefinition() == null) {
      return Optional.empty();
    }
    for (List<String> table : details.get().viewReads()) {
      if (visibility.hidesColumns(principal, table.get(0), table.get(1), table.get(2))) {
        return Optional.empty();
      }
    }
    return Optional.of(details.get().viewDefinition());
  }

  /** Whether the principal may see a column of a relation. */
  public boolean canSeeColumn(Principal principal, Relation relation, String column) {
    return visibility.canSeeColumn(
        principal, relation.schema().catalogName(), relation.schema().name(), relation.name(), column);
  }

  /** The visible schemas the filter may accept, sorted; exact names are taken as given, unchecked. */
  private List<SchemaRef> candidates(LakehouseCatalog catalog, Principal principal, NameFilter filter) {
    List<SchemaRef> schemas = new ArrayList<>();
    Optional<Set<String>> exact = filter.exactNames();
    if (exact.isPresent()) {
      for (String name : exact.get()) {
        schemas.add(SchemaRef.named(catalog, name));
      }
    } else {
      for (Namespace namespace : catalog.listSchemas()) {
        SchemaRef schema = SchemaRef.of(catalog, namespace);
        if (filter.accepts(schema.name())) {
          schemas.add(schema);
        }
      }
    }
    schemas.removeIf(s -> !visibility.canSeeSchema(principal, catalog.name(), s.name()));
    schemas.sort(Comparator.comparing(SchemaRef::name));
    return schemas;
  }

  private void list(SchemaRef schema, NameFilter names, Set<RelationType> types, List<Relation> out) {
    LakehouseCatalog catalog = schema.catalog();
    if (types.contains(RelationType.TABLE)) {
      for (TableIdentifier id : listOrEmpty(() -> catalog.iceberg().listTables(schema.namespace()))) {
        if (names.accepts(id.name())) {
          out.add(new Relation(schema, id.name(), RelationType.TABLE, () -> loadTable(schema, id).details()));
        }
      }
    }
    Optional<ViewCatalog> views = catalog.views();
    if (types.contains(RelationType.VIEW) && views.isPresent()) {
      for (TableIdentifier id : listOrEmpty(() -> views.get().listViews(schema.namespace()))) {
        if (names.accepts(id.name())) {
          out.add(new Relation(schema, id.name(), RelationType.VIEW, () -> loadView(views.get(), schema, id).details()));
        }
      }
    }
  }

  /**
   * The table, else the view, of that name, loaded; empty when there is none. One that exists but
   * cannot be loaded is there without details, as a listing would show it.
   */
  private Optional<Relation> lookUp(SchemaRef schema, String name, Set<RelationType> types) {
    TableIdentifier id = TableIdentifier.of(schema.namespace(), name);
    if (types.contains(RelationType.TABLE)) {
      Loaded table = loadTable(schema, id);
      if (table.exists()) {
        return Optional.of(new Relation(schema, name, RelationType.TABLE, table::details));
      }
    }
    Optional<ViewCatalog> views = schema.catalog().views();
    if (types.contains(RelationType.VIEW) && views.isPresent()) {
      Loaded view = loadView(views.get(), schema, id);
      if (view.exists()) {
        return Optional.of(new Relation(schema, name, RelationType.VIEW, view::details));
      }
    }
    return Optional.empty();
  }

  /** What loading a relation found: whether it exists, and its details unless it cannot be read. */
  private record Loaded(boolean exists, Optional<RelationDetails> details) {
    static final Loaded ABSENT = new Loaded(false, Optional.empty());
    static final Loaded UNREADABLE = new Loaded(true, Optional.empty());

    static Loaded of(RelationDetails details) {
      return new Loaded(true, Optional.of(details));
    }
  }

  private static Loaded loadTable(SchemaRef schema, TableIdentifier id) {
    try {
      return schema.catalog().loadTable(id).map(table -> Loaded.of(RelationDetails.of(table))).orElse(Loaded.ABSENT);
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      return Loaded.ABSENT;
    } catch (RuntimeException e) {
      return unreadable("table", schema, id, e);
    }
  }

  private static Loaded loadView(ViewCatalog views, SchemaRef schema, TableIdentifier id) {
    try {
      return Loaded.of(RelationDetails.of(views.loadView(id), schema.catalogName(), schema.name()));
    } catch (NoSuchViewException | NoSuchNamespaceException e) {
      return Loaded.ABSENT;
    } catch (RuntimeException e) {
      return unreadable("view", schema, id, e);
    }
  }

  private static Loaded unreadable(String kind, SchemaRef schema, TableIdentifier id, RuntimeException e) {
    LOG.warn("Cannot load {} {}.{}.{}; its columns are left out of the metadata: {}",
        kind, schema.catalogName(), schema.name(), id.name(), e.toString());
    LOG.debug("Loading {} {} failed", kind, id, e);
    return Loaded.UNREADABLE;
  }

  /** A namespace listing, empty when the namespace does not exist (or was dropped since it was listed). */
  private static List<TableIdentifier> listOrEmpty(Supplier<List<TableIdentifier>> listing) {
    try {
      return listing.get();
    } catch (NoSuchNamespaceException e) {
      return List.of();
    }
  }
}
