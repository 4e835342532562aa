package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.iceberg.IcebergMetadataTable;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.Privilege;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Principal;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.lookup.LikePattern;
import org.apache.calcite.schema.lookup.Lookup;
import org.apache.calcite.schema.lookup.Named;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.view.View;

/** One Iceberg namespace as a Calcite schema; tables and views are loaded when a statement names them. */
final class NamespaceSchema extends AbstractSchema {
  private final LakehouseCatalog catalog;
  private final String name;
  private final AccessControl access;
  private final Principal principal;
  private final PlanReads reads;

  NamespaceSchema(LakehouseCatalog catalog, String name, AccessControl access, Principal principal, PlanReads reads) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.name = requireNonNull(name, "name is null");
    this.access = requireNonNull(access, "access is null");
    this.principal = requireNonNull(principal, "principal is null");
    this.reads = requireNonNull(reads, "reads is null");
  }

  /**
   * The table as the principal may read it; null (as if there were none) when the principal has
   * no privilege on it at all.
   */
  Table guarded(String tableName, Table table) {
    if (table == null) {
      return null;
    }
    TableAccess tableAccess = access.tableAccess(principal, catalog.name(), name, tableName);
    reads.access(catalog.name(), name, tableName, tableAccess);
    if (!tableAccess.visible()) {
      return null;
    }
    return new PolicyTable(table, List.of(catalog.name(), name, tableName), tableAccess, principal.user());
  }

  @Override
  public Lookup<? extends Schema> subSchemas() {
    return Lookup.empty();
  }

  @Override
  public Lookup<Table> tables() {
    return new Lookup<Table>() {
      @Override
      public Table get(String tableName) {
        // A metadata table's name is looked up as one first: asking the catalog for a table
        // named "t$snapshots" (and then a view) would cost two requests each time.
        boolean metadataName = IcebergMetadataTable.Name.parse(tableName).flatMap(IcebergMetadataTable.Name::kind).isPresent();
        Table metadata = metadataName ? metadataTable(tableName) : null;
        if (metadata != null) {
          return metadata;
        }
        TableIdentifier id = TableIdentifier.of(Namespace.of(name), tableName);
        Table table = catalog.loadTable(id).map(t -> {
          reads.table(catalog.name(), id, t);
          return (Table) new IcebergTable(catalog, id, t);
        }).orElseGet(() -> view(id));
        return table != null || metadataName ? guarded(tableName, table) : metadataTable(tableName);
      }

      @Override
      public Named<Table> getIgnoreCase(String tableName) {
        Table exact = get(tableName);
        if (exact != null) {
          return new Named<>(tableName, exact);
        }
        String lower = CatalogSchema.lower(tableName);
        if (!lower.equals(tableName)) {
          Table folded = get(lower);
          if (folded != null) {
            return new Named<>(lower, folded);
          }
        }
        for (String candidate : names()) {
          if (candidate.equalsIgnoreCase(tableName)) {
            Table table = get(candidate);
            return table == null ? null : new Named<>(candidate, table);
          }
        }
        return null;
      }

      @Override
      public Set<String> getNames(LikePattern pattern) {
        Set<String> result = new LinkedHashSet<>();
        for (String candidate : names()) {
          if (pattern.matcher().apply(candidate) && access.canSeeTable(principal, catalog.name(), name, candidate)) {
            result.add(candidate);
          }
        }
        return result;
      }
    };
  }

  /**
   * The metadata table that {@code tableName} names ({@code orders$snapshots}), or null when it
   * names none. Reading it needs SELECT on the base table; the tables that show column values
   * ($files, $manifests, $partitions) are denied to a principal whose policy hides, masks or
   * filters anything in the base table, since those values would get around it, and such a
   * principal reads $snapshots without its summaries, whose record counts would too.
   */
  private Table metadataTable(String tableName) {
    Optional<IcebergMetadataTable.Name> parsed = IcebergMetadataTable.Name.parse(tableName);
    if (parsed.isEmpty()) {
      return null;
    }
    String baseName = parsed.get().table();
    TableAccess tableAccess = access.tableAccess(principal, catalog.name(), name, baseName);
    if (!tableAccess.visible()) {
      return null;
    }
    TableIdentifier baseId = TableIdentifier.of(Namespace.of(name), baseName);
    Optional<org.apache.iceberg.Table> base = catalog.loadTable(baseId);
    if (base.isEmpty()) {
      return null;
    }
    reads.unversioned("a metadata table");
    String qualified = catalog.name() + "." + name + "." + tableName;
    IcebergMetadataTable.Kind kind = parsed.get().kind().orElseThrow(() -> new SqeException(
        ErrorCode.NOT_FOUND,
        "Table '" + qualified + "' does not exist: table " + baseName + " has no metadata table $"
            + parsed.get().suffix() + " (there are " + IcebergMetadataTable.Name.known() + ")"));
    if (!tableAccess.has(Privilege.SELECT)) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED, "Access denied: user '" + principal.user() + "' cannot SELECT from " + qualified);
    }
    if (tableAccess.restricts() && kind.showsValues()) {
      throw new SqeException(
          ErrorCode.PERMISSION_DENIED,
          "Access denied: user '" + principal.user() + "' cannot SELECT from " + qualified
              + ": it shows column values, and the user's access to " + baseName + " hides, masks or filters some");
    }
    return new IcebergMetadataTable(catalog, baseId, base.get(), kind, tableAccess.restricts());
  }

  /** The view of that name, or null; views share the namespace of tables. */
  private Table view(TableIdentifier id) {
    if (catalog.views().isEmpty()) {
      return null;
    }
    try {
      View view = catalog.views().get().loadView(id);
      reads.view(catalog.name(), id, view);
      if (MaterializedViews.isMaterialized(view)) {
        Table storage = storage(id, view);
        if (storage != null) {
          return storage;
        }
        // A plan through the query stays right, but once a refresh makes the storage table fresh
        // it should answer: plan again each time.
        reads.planUncacheable("it reads a materialized view, whose storage table may answer after a refresh");
      }
      return new IcebergViewTable(List.of(catalog.name(), name, id.name()), view, principal.user(), () -> hidesColumnsRead(view));
    } catch (NoSuchViewException e) {
      return null;
    }
  }

  /**
   * The storage table of a materialized view, when it may answer for the view's query: no source
   * moved since the refresh (or within the view's max_staleness), and the principal may SELECT
   * every source without restriction, as reading the query would need. Null otherwise: the view's
   * query is then expanded, under the principal's policy (views run with the reader's rights).
   * A plan or result reading the storage table is not cached: its validity depends on the sources'
   * snapshots.
   */
  private Table storage(TableIdentifier id, View view) {
    String qualified = "materialized view " + catalog.name() + "." + id + ": ";
    Optional<TableIdentifier> storageId = MaterializedViews.storageTable(view, name);
    Optional<org.apache.iceberg.Table> storage = storageId.flatMap(catalog::loadTable);
    if (storage.isEmpty()) {
      reads.note(qualified + "its query (the storage table is missing)");
      return null;
    }
    MaterializedViews.Freshness freshness =
        MaterializedViews.freshness(catalog, storage.get(), view, MaterializedViews.maxStaleness(view), System.currentTimeMillis());
    if (!freshness.usable()) {
      reads.note(qualified + "its query (" + freshness.reason() + ")");
      return null;
    }
    Optional<List<String>> restricted = MaterializedViews.restrictedSource(freshness, access, principal);
    if (restricted.isPresent()) {
      reads.note(qualified + "its query (the user's access to " + String.join(".", restricted.get()) + " is restricted)");
      return null;
    }
    reads.note(qualified + "storage table " + storageId.get() + " (" + freshness.reason() + ")");
    reads.table(catalog.name(), storageId.get(), storage.get());
    reads.unversioned("a materialized view's storage table");
    return new IcebergTable(catalog, storageId.get(), storage.get());
  }

  /** Whether the principal's policy hides columns of a table or view that the view's SQL names. */
  private boolean hidesColumnsRead(View view) {
    for (List<String> table : ViewDefinitions.tablesRead(view.currentVersion(), catalog.name(), name)) {
      if (access.hidesColumns(principal, table.get(0), table.get(1), table.get(2))) {
        return true;
      }
    }
    return false;
  }

  private Set<String> names() {
    Set<String> names = new LinkedHashSet<>();
    for (TableIdentifier id : catalog.listTables(name)) {
      names.add(id.name());
    }
    for (TableIdentifier id : catalog.listViews(name)) {
      names.add(id.name());
    }
    return names;
  }
}
