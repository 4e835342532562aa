package io.sqe.engine.plan;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.iceberg.ScanBytes;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.view.View;

/**
 * What planning a statement read from the catalogs and the access policy: the tables (with the
 * schema each was planned with), views (with their version), and the principal's access to each;
 * then, from the finished plan, the tables its scans read and whether its result depends on more
 * than those tables (the clock, random numbers, system or metadata tables).
 *
 * <p>A plan stays valid while every table keeps its identity and schema, every view its version
 * and the policy its verdicts; a result stays valid while, in addition, every scanned table keeps
 * its snapshot.
 */
public final class PlanReads {
  /** The session facts planning used: names resolve in the catalog and schema, policies apply to the principal. */
  public record PlanContext(String catalog, String schema, ZoneId timeZone, Principal principal) {
    public static PlanContext of(Session session) {
      return new PlanContext(session.catalog(), session.schema(), session.timeZone(), session.principal());
    }
  }

  /** A table planned with its schema {@code schemaId}; {@code uuid} tells a table from one re-created under its name. */
  public record TableRead(String catalog, TableIdentifier id, String uuid, int schemaId) {}

  /** A view expanded at version {@code versionId}. */
  public record ViewRead(String catalog, TableIdentifier id, String uuid, int versionId) {}

  /** The principal's access to {@code catalog.schema.table}, as the plan applied it. */
  public record AccessRead(String catalog, String schema, String table, TableAccess access) {}

  /**
   * A table a scan of the plan reads: at {@code snapshotId} for time travel, else (null) at the
   * snapshot current when the plan runs.
   */
  public record ScanRead(String catalog, TableIdentifier id, Long snapshotId) {}

  /** Why a plan or its result may not be cached; null when it may. */
  private String planUncacheable;
  private String resultUncacheable;
  private PlanContext context;
  private final Set<TableRead> tables = new LinkedHashSet<>();
  private final Set<ViewRead> views = new LinkedHashSet<>();
  private final Set<AccessRead> access = new LinkedHashSet<>();
  private final Set<List<String>> schemas = new LinkedHashSet<>();
  private final Map<IcebergTable, Long> pinned = new IdentityHashMap<>();
  private final List<ScanRead> scans = new ArrayList<>();
  private final List<ScanBytes> scanBytes = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  /** {@link MaterializedViews#definitions()} when planning looked for materialized views to rewrite onto; -1 if it did not. */
  private long materializedViewsSought = -1;

  synchronized void context(Session session) {
    context = PlanContext.of(session);
  }

  synchronized void table(String catalog, TableIdentifier id, Table table) {
    tables.add(new TableRead(catalog, id, table.uuid().toString(), table.schema().schemaId()));
  }

  synchronized void view(String catalog, TableIdentifier id, View view) {
    views.add(new ViewRead(catalog, id, view.uuid().toString(), view.currentVersion().versionId()));
  }

  synchronized void access(String catalog, String schema, String table, TableAccess tableAccess) {
    access.add(new AccessRead(catalog, schema, table, tableAccess));
  }

  /** The principal could see {@code schema} of {@code catalog}. */
  synchronized void schema(String catalog, String schema) {
    schemas.add(List.of(catalog, schema));
  }

  /** A time-travel read: {@code table} is pinned to {@code snapshotId}. */
  synchronized void timeTravel(IcebergTable table, long snapshotId) {
    pinned.put(table, snapshotId);
    // The snapshot a FOR TIMESTAMP AS OF names can depend on the clock; the plan holds the snapshot.
    planUncacheable("it travels in time");
  }

  /** The statement reads something the catalogs do not version: a system or metadata table, staged writes. */
  synchronized void unversioned(String what) {
    planUncacheable("it reads " + what);
    resultUncacheable("it reads " + what);
  }

  synchronized void planUncacheable(String reason) {
    if (planUncacheable == null) {
      planUncacheable = reason;
    }
  }

  synchronized void resultUncacheable(String reason) {
    if (resultUncacheable == null) {
      resultUncacheable = reason;
    }
  }

  /** Planning looked for materialized views that answer the query, after {@code definitions} of them were made. */
  synchronized void materializedViewsSought(long definitions) {
    materializedViewsSought = definitions;
  }

  /**
   * Whether planning looked for materialized views to rewrite onto before the {@code
   * definitions}-th was made (in this process): a new view may answer the statement now.
   */
  public synchronized boolean soughtMaterializedViewsBefore(long definitions) {
    return materializedViewsSought >= 0 && materializedViewsSought < definitions;
  }

  /** What planning chose that the plan's text does not show (which part of a materialized view answers, and why), for EXPLAIN. */
  synchronized void note(String note) {
    if (!notes.contains(note)) {
      notes.add(note);
    }
  }

  /** See {@link #note}. */
  public synchronized List<String> notes() {
    return List.copyOf(notes);
  }

  /** A scan of the finished plan reads {@code table}. */
  synchronized void scanned(IcebergTable table) {
    Long snapshotId = pinned.get(table);
    ScanRead read = new ScanRead(table.catalog().name(), table.id(), snapshotId);
    if (!scans.contains(read)) {
      scans.add(read);
    }
  }

  /** A scan of the finished plan, whose bytes {@link #scanBytes()} estimates. */
  synchronized void scanned(ScanBytes scan) {
    scanBytes.add(scan);
  }

  /**
   * Every scan of the finished plan (a table scanned twice, twice), to estimate the bytes the
   * plan reads when it runs, in the snapshots current then: where {@code offload = 'auto'} runs it.
   */
  public synchronized List<ScanBytes> scanBytes() {
    return List.copyOf(scanBytes);
  }

  /** Why the plan may not be cached, or null. */
  public synchronized String planUncacheableReason() {
    return planUncacheable;
  }

  /** Why the result may not be cached, or null. */
  public synchronized String resultUncacheableReason() {
    return resultUncacheable;
  }

  /** Whether the plan may be reused for the same statement in the same context while it stays valid. */
  public synchronized boolean planCacheable() {
    return planUncacheable == null;
  }

  /** Whether the plan's result is a function of the statement, its context and the snapshots its scans read. */
  public synchronized boolean resultCacheable() {
    return resultUncacheable == null;
  }

  public synchronized List<TableRead> tables() {
    return List.copyOf(tables);
  }

  public synchronized List<ViewRead> views() {
    return List.copyOf(views);
  }

  public synchronized List<AccessRead> accessReads() {
    return List.copyOf(access);
  }

  /** The (catalog, schema) pairs the principal could see. */
  public synchronized List<List<String>> schemas() {
    return List.copyOf(schemas);
  }

  public synchronized List<ScanRead> scans() {
    return List.copyOf(scans);
  }

  /**
   * Everything the plan depends on besides snapshots, comparable with {@code equals}: two plans of
   * one statement in one context with equal versions compute the same result from the same
   * snapshots.
   */
  public synchronized Versions versions() {
    return new Versions(context, List.copyOf(tables), List.copyOf(views), List.copyOf(access));
  }

  /** See {@link #versions()}. */
  public record Versions(PlanContext context, List<TableRead> tables, List<ViewRead> views, List<AccessRead> access) {
    public Versions {
      requireNonNull(context, "context is null");
      requireNonNull(tables, "tables is null");
      requireNonNull(views, "views is null");
      requireNonNull(access, "access is null");
    }
  }
}
