package io.sqe.write.storage;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.view.BaseView;
import org.apache.iceberg.view.View;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables and views of a catalog other than one table (in every namespace, whoever made them),
 * read from the catalog when first asked: where they keep files, and which files their metadata
 * references. What deletes or places files asks them first. One that cannot be read is an error,
 * never a reason to go on: SQE deletes no file it cannot show is unreferenced.
 */
public final class OtherTables {
  private static final Logger LOG = LoggerFactory.getLogger(OtherTables.class);

  private final LakehouseCatalog catalog;
  private final TableIdentifier self;
  private List<Neighbour> neighbours;

  /** Another table or view: its identifier, whether it is a view, and its loaded form. */
  private record Neighbour(TableIdentifier id, Table table, View view) {
    /** What a user may be told: not its name, which the user may not be allowed to see. */
    String describe() {
      return view != null ? "another view" : "another table";
    }

    /** Its location, and for a table the directories its path properties name. */
    List<StorageLocation> roots(boolean withPathProperties) {
      List<StorageLocation> roots = new ArrayList<>();
      if (table == null) {
        StorageLocation.parseExisting(view.location()).ifPresent(roots::add);
      } else if (withPathProperties) {
        roots.addAll(StorageLocation.rootsOf(table));
      } else {
        StorageLocation.parseExisting(table.location()).ifPresent(roots::add);
      }
      return roots.stream().map(StorageLocation::resolveLinks).toList();
    }
  }

  private OtherTables(LakehouseCatalog catalog, TableIdentifier self) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.self = self;
  }

  /** The tables and views of {@code catalog} but {@code self}; null to consider them all. */
  public static OtherTables of(LakehouseCatalog catalog, TableIdentifier self) {
    return new OtherTables(catalog, self);
  }

  /**
   * What would share files with a table at {@code location} (which has its links resolved): the
   * catalog's own directory, if the location is or contains it, or a table or view whose location
   * is, contains or lies inside it.
   *
   * @param withPathProperties also the directories the other tables' path properties name
   * @return what the first one found is, without its name ("another table"), empty for none
   */
  public Optional<String> overlapping(StorageLocation location, boolean withPathProperties) {
    Optional<StorageLocation> catalogDirectory =
        catalog.storage().catalogDirectory().flatMap(StorageLocation::parseExisting).map(StorageLocation::resolveLinks);
    if (catalogDirectory.isPresent() && location.contains(catalogDirectory.get())) {
      return Optional.of("the catalog's own directory");
    }
    for (Neighbour neighbour : neighbours()) {
      for (StorageLocation root : neighbour.roots(withPathProperties)) {
        if (root.overlaps(location)) {
          LOG.info("{} shares files with {} {} at {}", location, neighbour.view() != null ? "view" : "table", neighbour.id(), root);
          return Optional.of(neighbour.describe());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Of the files {@code candidates} (keys, {@link StorageLocation#key()}), those that the
   * metadata of another table references (in any snapshot, as a data, delete, manifest, manifest
   * list, statistics or metadata file), or that are the current metadata file of a view.
   */
  public Set<String> referenced(Set<String> candidates) {
    Set<String> found = new HashSet<>();
    if (candidates.isEmpty()) {
      return found;
    }
    for (Neighbour neighbour : neighbours()) {
      if (neighbour.view() != null) {
        if (neighbour.view() instanceof BaseView base) {
          key(base.operations().current().metadataFileLocation()).filter(candidates::contains).ifPresent(found::add);
        }
        continue;
      }
      try {
        ReachableFiles.visit(neighbour.table(), file -> {
          key(file).filter(candidates::contains).ifPresent(found::add);
          return found.size() < candidates.size();
        });
      } catch (RuntimeException e) {
        throw unreadable(neighbour.id(), e);
      }
      if (found.size() == candidates.size()) {
        break;
      }
    }
    return found;
  }

  /** The key of a file's location; empty when it cannot be taken apart (then it matches nothing). */
  public static Optional<String> key(String location) {
    return StorageLocation.parseExisting(location).map(StorageLocation::key);
  }

  private List<Neighbour> neighbours() {
    if (neighbours == null) {
      List<Neighbour> loaded = new ArrayList<>();
      for (Namespace namespace : namespaces()) {
        for (TableIdentifier id : catalog.iceberg().listTables(namespace)) {
          if (id.equals(self)) {
            continue;
          }
          try {
            loaded.add(new Neighbour(id, catalog.iceberg().loadTable(id), null));
          } catch (NoSuchTableException e) {
            LOG.debug("Table {} was dropped while its neighbours were read", id);
          } catch (RuntimeException e) {
            throw unreadable(id, e);
          }
        }
        if (catalog.views().isPresent()) {
          for (TableIdentifier id : catalog.views().get().listViews(namespace)) {
            try {
              loaded.add(new Neighbour(id, null, catalog.views().get().loadView(id)));
            } catch (NoSuchViewException e) {
              LOG.debug("View {} was dropped while its neighbours were read", id);
            } catch (RuntimeException e) {
              throw unreadable(id, e);
            }
          }
        }
      }
      neighbours = loaded;
    }
    return neighbours;
  }

  /** Every namespace of the catalog, nested ones included. */
  private List<Namespace> namespaces() {
    List<Namespace> all = new ArrayList<>();
    List<Namespace> pending = new ArrayList<>(catalog.namespaces().listNamespaces(Namespace.empty()));
    while (!pending.isEmpty()) {
      Namespace namespace = pending.remove(pending.size() - 1);
      all.add(namespace);
      pending.addAll(catalog.namespaces().listNamespaces(namespace));
    }
    return all;
  }

  private SqeException unreadable(TableIdentifier id, RuntimeException e) {
    if (e instanceof SqeException sqe) {
      return sqe;
    }
    LOG.warn("Cannot read {} of catalog {}, so no file it might reference is deleted or taken", id, catalog.name(), e);
    return new SqeException(
        ErrorCode.FAILED_PRECONDITION,
        "Cannot read the metadata of every other table and view of catalog '" + catalog.name()
            + "' to make sure none keeps files there (the server log names the one that failed)",
        e);
  }
}
