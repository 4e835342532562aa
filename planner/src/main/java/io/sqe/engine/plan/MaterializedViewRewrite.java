package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.iceberg.IcebergTableScan;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.session.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.plan.RelOptMaterialization;
import org.apache.calcite.plan.RelOptMaterializations;
import org.apache.calcite.plan.RelOptSchema;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.ViewExpanders;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.prepare.RelOptTableImpl;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalTableScan;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.util.Pair;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewVersion;

/**
 * Rewrites a query's logical plan to read the storage table of a fresh materialized view that
 * answers the plan or a sub-plan: the same select-project-join with GROUP BY, a coarser grouping
 * (SUM, MIN and MAX roll up as themselves, COUNT as a sum of counts), filters on grouping columns
 * and projections above it. The matching is Calcite's unify-based {@link
 * org.apache.calcite.plan.SubstitutionVisitor} ({@link RelOptMaterializations#useMaterializedViews}),
 * which works on the logical plan as converted, before any physical rule.
 *
 * <p>A view is a candidate when every table its SQL names is one the query scans; it is used when
 * it is fresh by the rule a direct read of it applies ({@link MaterializedViews#freshness}, with
 * its max_staleness) and the reader may SELECT every source without restriction, as {@link
 * NamespaceSchema} requires of a direct read. A rewritten plan, or one a stale view would answer
 * after a refresh, is not cached: its validity depends on the sources' snapshots.
 */
final class MaterializedViewRewrite {
  private final Catalogs catalogs;
  private final AccessControl access;
  private final Principal principal;
  private final PlanReads reads;
  private final RelOptTable.ViewExpander expander;
  private final RelOptSchema relOptSchema;
  /** SQE's scan of each table the query or a view's storage reads, by qualified name. */
  private final Map<List<String>, RelNode> physical = new LinkedHashMap<>();

  MaterializedViewRewrite(
      Catalogs catalogs,
      AccessControl access,
      Principal principal,
      PlanReads reads,
      RelOptTable.ViewExpander expander,
      RelOptSchema relOptSchema) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.access = requireNonNull(access, "access is null");
    this.principal = requireNonNull(principal, "principal is null");
    this.reads = requireNonNull(reads, "reads is null");
    this.expander = requireNonNull(expander, "expander is null");
    this.relOptSchema = requireNonNull(relOptSchema, "relOptSchema is null");
  }

  /** {@code query} with every sub-plan a usable materialized view answers read from its storage table. */
  RelNode rewrite(RelNode query) {
    // Before listing: a view made while this plans counts as one it may have missed.
    reads.materializedViewsSought(MaterializedViews.definitions());
    Map<List<String>, TableScan> scans = scans(query);
    if (scans.isEmpty()) {
      return query;
    }
    Set<String> scanned = new LinkedHashSet<>();
    Set<String> catalogNames = new LinkedHashSet<>();
    for (List<String> name : scans.keySet()) {
      scanned.add(lower(name));
      catalogNames.add(name.get(0));
    }
    // The matching compares tables by identity and trims scans by a Project (Iceberg's scans
    // would narrow themselves instead): one logical scan per table, in the query and the views,
    // put back as SQE's scans after.
    Map<List<String>, TableScan> logical = new LinkedHashMap<>();
    for (Map.Entry<List<String>, TableScan> scan : scans.entrySet()) {
      physical.put(scan.getKey(), scan.getValue());
      logical.put(scan.getKey(), LogicalTableScan.create(query.getCluster(), scan.getValue().getTable(), List.of()));
    }
    RelNode canonical = replaceScans(query, logical);
    RelNode current = canonical;
    for (String catalogName : catalogNames) {
      Optional<LakehouseCatalog> catalog = catalogs.find(catalogName);
      if (catalog.isEmpty() || catalog.get().views().isEmpty()) {
        continue;
      }
      for (Namespace namespace : catalog.get().listSchemas()) {
        String schema = String.join(".", namespace.levels());
        for (TableIdentifier id : catalog.get().listViews(schema)) {
          Optional<View> view = MaterializedViews.load(catalog.get(), id);
          if (view.isPresent() && readsOnly(view.get().currentVersion(), catalog.get().name(), schema, scanned)) {
            current = tryView(current, logical, catalog.get(), schema, id, view.get());
          }
        }
      }
    }
    if (current == canonical) {
      return query;
    }
    // The substitution leaves Calcs; SQE's scan rules push Filters and Projects into scans.
    HepPlanner split = new HepPlanner(new HepProgramBuilder().addRuleInstance(CoreRules.CALC_SPLIT).build());
    split.setRoot(replaceScans(current, physical));
    RelNode rewritten = split.findBestExp();
    return RelOptUtil.areRowTypesEqual(rewritten.getRowType(), query.getRowType(), false)
        ? rewritten
        : RelOptUtil.createCastRel(rewritten, query.getRowType(), true);
  }

  private RelNode tryView(
      RelNode query, Map<List<String>, TableScan> scans, LakehouseCatalog catalog, String schema, TableIdentifier id, View view) {
    String name = catalog.name() + "." + id;
    Optional<TableIdentifier> storageId = MaterializedViews.storageTable(view, schema);
    Optional<Table> storage = storageId.flatMap(catalog::loadTable);
    if (storage.isEmpty()) {
      return query;
    }
    // Strictly fresh: max_staleness lets a reader of the view itself accept older rows, but a
    // query of the sources asked for the sources' rows, so no grace period applies here.
    MaterializedViews.Freshness freshness = MaterializedViews.freshness(
        catalog, storage.get(), view, Duration.ZERO, System.currentTimeMillis());
    // The tables the view's SQL names too: a stale view records no sources, and a user who may
    // not use the view learns nothing of it, not even that it is stale.
    List<List<String>> sources = new ArrayList<>(ViewDefinitions.tablesRead(view.currentVersion(), catalog.name(), schema));
    sources.addAll(freshness.sources());
    if (MaterializedViews.restrictedSource(sources, access, principal).isPresent()) {
      return query;
    }
    RelOptMaterialization materialization;
    try {
      materialization = materialization(scans, catalog, schema, id, view, storageId.get(), storage.get());
    } catch (RuntimeException e) {
      // A view SQE cannot plan now (a dropped column, another engine's SQL) answers nothing.
      return query;
    }
    if (materialization == null) {
      return query;
    }
    List<Pair<RelNode, List<RelOptMaterialization>>> uses =
        RelOptMaterializations.useMaterializedViews(query, List.of(materialization));
    if (uses.isEmpty() || grandTotals(uses.get(0).left) < grandTotals(query)) {
      // Calcite drops the roll-up of a view grouped by columns the query's filter makes constant,
      // which for a query without GROUP BY loses its one row when no group matches.
      return query;
    }
    if (!freshness.usable()) {
      reads.planUncacheable("materialized view " + name + " would answer it after a refresh");
      reads.note("not rewritten onto materialized view " + name + " (" + freshness.reason() + ")");
      return query;
    }
    reads.table(catalog.name(), storageId.get(), storage.get());
    reads.unversioned("a materialized view's storage table");
    reads.note("rewritten onto materialized view " + name + " (storage table " + storageId.get() + ")");
    return uses.get(0).left;
  }

  /**
   * The view's query over the very scans of {@code scans} and the storage table cast to its row type; null when the view reads a table the
   * query does not scan or its storage table has other columns.
   */
  private RelOptMaterialization materialization(
      Map<List<String>, TableScan> scans,
      LakehouseCatalog catalog,
      String schema,
      TableIdentifier id,
      View view,
      TableIdentifier storageId,
      Table storage) {
    ViewVersion version = view.currentVersion();
    String sql = ViewDefinitions.sql(version).orElseThrow().sql();
    String namespace = String.join(".", version.defaultNamespace().levels());
    List<String> path = List.of(catalog.name(), schema, id.name());
    List<String> defaults = List.of(
        version.defaultCatalog() == null ? catalog.name() : version.defaultCatalog(), namespace.isEmpty() ? schema : namespace);
    RelNode expanded = expander.expandView(null, sql, defaults, path).project();
    boolean[] foreign = {false};
    RelNode viewRel = MicrosecondTimestamps.rewrite(expanded.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(TableScan scan) {
        TableScan same = scans.get(scan.getTable().getQualifiedName());
        if (same == null || !same.getRowType().equals(scan.getRowType())) {
          foreign[0] = true;
          return scan;
        }
        return same;
      }
    }));
    IcebergTable table = new IcebergTable(catalog, storageId, storage);
    RelDataType storedType = table.getRowType(viewRel.getCluster().getTypeFactory());
    if (foreign[0] || storedType.getFieldCount() != viewRel.getRowType().getFieldCount()) {
      return null;
    }
    List<String> storageName = List.of(catalog.name(), String.join(".", storageId.namespace().levels()), storageId.name());
    RelOptTable relOptTable = RelOptTableImpl.create(relOptSchema, storedType, table, ImmutableList.copyOf(storageName));
    physical.put(storageName, table.toRel(ViewExpanders.simpleContext(viewRel.getCluster()), relOptTable));
    RelNode storageScan = LogicalTableScan.create(viewRel.getCluster(), relOptTable, List.of());
    RelNode tableRel = RelOptUtil.createCastRel(storageScan, viewRel.getRowType(), true);
    return new RelOptMaterialization(tableRel, viewRel, null, storageName);
  }

  /** {@code rel} with each table scan replaced by that of {@code scans} for the same table. */
  private static RelNode replaceScans(RelNode rel, Map<List<String>, ? extends RelNode> scans) {
    return rel.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(TableScan scan) {
        RelNode replacement = scans.get(scan.getTable().getQualifiedName());
        return replacement == null ? scan : replacement;
      }
    });
  }

  /**
   * The plan's scans of Iceberg tables by qualified name, the first of each; empty when it scans
   * anything else too (system and metadata tables), which no view's lineage versions.
   */
  private static Map<List<String>, TableScan> scans(RelNode query) {
    Map<List<String>, TableScan> scans = new LinkedHashMap<>();
    boolean[] other = {false};
    query.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(TableScan scan) {
        if (scan instanceof IcebergTableScan) {
          scans.putIfAbsent(scan.getTable().getQualifiedName(), scan);
        } else {
          other[0] = true;
        }
        return scan;
      }
    });
    return other[0] ? Map.of() : scans;
  }

  /** The aggregates of {@code rel} that give a row even over no rows: those with a grand total. */
  private static int grandTotals(RelNode rel) {
    int[] count = {0};
    rel.accept(new RelHomogeneousShuttle() {
      @Override
      public RelNode visit(RelNode other) {
        if (other instanceof Aggregate aggregate && aggregate.hasEmptyGroup()) {
          count[0]++;
        }
        return super.visit(other);
      }
    });
    return count[0];
  }

  /** Whether every table and view the view's SQL names is one the query scans. */
  private static boolean readsOnly(ViewVersion version, String catalog, String schema, Set<String> scanned) {
    List<List<String>> read = ViewDefinitions.tablesRead(version, catalog, schema);
    if (read.isEmpty()) {
      return false;
    }
    List<String> names = new ArrayList<>();
    for (List<String> table : read) {
      names.add(lower(table));
    }
    return scanned.containsAll(names);
  }

  private static String lower(List<String> name) {
    return String.join(".", name).toLowerCase(Locale.ROOT);
  }
}
