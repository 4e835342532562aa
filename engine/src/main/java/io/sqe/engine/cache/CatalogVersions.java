package io.sqe.engine.cache;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.view.View;

/**
 * Compares what a plan read with what the catalogs and the policy say now. Tables are loaded
 * through the catalogs' table cache, as planning and scans load them, so a cached plan or result
 * is never older than what an uncached statement would see.
 */
final class CatalogVersions {
  /** A scanned table and the snapshot a run reads: -1 for a table without one. */
  record SnapshotRead(String catalog, String table, String uuid, long snapshotId) {}

  private final Catalogs catalogs;
  private final AccessControl access;

  CatalogVersions(Catalogs catalogs, AccessControl access) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.access = requireNonNull(access, "access is null");
  }

  /**
   * Whether every table still has the identity and schema, every view the version, and the
   * policy the verdicts it had when the plan was made. Anything that fails to load counts as
   * changed: planning again reports it properly.
   */
  boolean current(PlanReads reads, Principal principal) {
    try {
      for (PlanReads.TableRead read : reads.tables()) {
        Optional<Table> table = catalog(read.catalog()).flatMap(c -> c.loadTable(read.id()));
        if (table.isEmpty()
            || !table.get().uuid().toString().equals(read.uuid())
            || table.get().schema().schemaId() != read.schemaId()) {
          return false;
        }
      }
      for (PlanReads.ViewRead read : reads.views()) {
        Optional<LakehouseCatalog> catalog = catalog(read.catalog());
        if (catalog.isEmpty() || catalog.get().views().isEmpty()) {
          return false;
        }
        View view = catalog.get().views().get().loadView(read.id());
        if (!view.uuid().toString().equals(read.uuid()) || view.currentVersion().versionId() != read.versionId()) {
          return false;
        }
      }
      for (List<String> schema : reads.schemas()) {
        if (!access.canSeeSchema(principal, schema.get(0), schema.get(1))) {
          return false;
        }
      }
      for (PlanReads.AccessRead read : reads.accessReads()) {
        if (!access.tableAccess(principal, read.catalog(), read.schema(), read.table()).equals(read.access())) {
          return false;
        }
      }
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * The snapshots a run of the plan reads: a time-travel scan's own, else each table's current
   * one. Empty when a table cannot be loaded; the run itself then reports why.
   */
  Optional<List<SnapshotRead>> snapshots(PlanReads reads) {
    List<SnapshotRead> snapshots = new ArrayList<>();
    try {
      for (PlanReads.ScanRead scan : reads.scans()) {
        Optional<Table> table = catalog(scan.catalog()).flatMap(c -> c.loadTable(scan.id()));
        if (table.isEmpty()) {
          return Optional.empty();
        }
        long snapshotId;
        if (scan.snapshotId() != null) {
          snapshotId = scan.snapshotId();
        } else {
          Snapshot current = table.get().currentSnapshot();
          snapshotId = current == null ? -1 : current.snapshotId();
        }
        snapshots.add(new SnapshotRead(scan.catalog(), scan.id().toString(), table.get().uuid().toString(), snapshotId));
      }
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    return Optional.of(List.copyOf(snapshots));
  }

  private Optional<LakehouseCatalog> catalog(String name) {
    return catalogs.find(name);
  }
}
