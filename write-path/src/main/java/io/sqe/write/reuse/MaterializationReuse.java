package io.sqe.write.reuse;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.SqeVersion;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult.Reuse;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.security.TableAccess;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.view.View;

/**
 * Decides whether a CREATE OR REPLACE TABLE ... AS may commit nothing because the table's current
 * snapshot already holds what it would write: that snapshot was committed by a statement with the
 * same {@link Lineage} (plan, inputs at the same versions, policy, SQE version) into a table shaped
 * as it is now. Plans that read the clock, random numbers, unversioned tables, or travel in time
 * have no lineage and always run.
 */
public final class MaterializationReuse {
  /** What to do: reuse (then {@link #rows} is the count to answer), or run and record {@link #lineage} (when not null). */
  public record Decision(Reuse reuse, Lineage lineage, long rows) {
    public Decision {
      requireNonNull(reuse, "reuse is null");
    }

    static Decision run(String reason, String detail, Lineage lineage) {
      return new Decision(Reuse.rebuilt(reason, detail), lineage, -1);
    }
  }

  private MaterializationReuse() {}

  /**
   * The decision for a run of {@code query} with {@code parameters} that makes table {@code
   * target} of {@code catalog} with the schema and layout {@code shape} describes.
   *
   * @param enabled whether the session reuses materializations at all; the lineage is recorded either way
   * @param replace whether the statement replaces an existing table (CREATE OR REPLACE); a plain
   *     CREATE TABLE ... AS only records its lineage
   */
  public static Decision decide(
      CommandContext context,
      PlannedQuery query,
      List<Object> parameters,
      String shape,
      LakehouseCatalog catalog,
      TableIdentifier target,
      boolean enabled,
      boolean replace) {
    PlanReads reads = query.reads();
    if (reads.scans().stream().anyMatch(scan -> scan.snapshotId() != null)) {
      return Decision.run("time_travel", "the query reads a table as of a past snapshot", null);
    }
    if (!reads.resultCacheable()) {
      return Decision.run("nondeterministic", "the query's result can change without its inputs: " + reads.resultUncacheableReason(), null);
    }
    if (!reads.planCacheable()) {
      return Decision.run("unversioned", "the query's plan cannot be kept: " + reads.planUncacheableReason(), null);
    }
    Optional<Lineage> computed = lineage(context, query, parameters, shape);
    if (computed.isEmpty()) {
      return Decision.run("unversioned", "a table or view the query reads could not be loaded", null);
    }
    Lineage lineage = computed.get();
    if (!replace) {
      return Decision.run("new_table", "the table is new", lineage);
    }
    if (!enabled) {
      return Decision.run("disabled", "materialization_reuse is off for the session", lineage);
    }
    if (context.session().openTransaction().isPresent()) {
      return Decision.run("transaction", "the statement runs in a transaction", lineage);
    }
    Table table;
    try {
      table = catalog.iceberg().loadTable(target);
    } catch (NoSuchTableException e) {
      return Decision.run("new_table", "the table does not exist yet", lineage);
    }
    Snapshot current = table.currentSnapshot();
    Optional<Lineage> recorded = current == null ? Optional.empty() : Lineage.of(current.summary());
    if (recorded.isEmpty()) {
      return Decision.run("no_lineage", "the table's current snapshot was not committed by a materialization", lineage);
    }
    Lineage before = recorded.get();
    String rows = current.summary().get(Lineage.ROWS);
    if (!before.version().equals(lineage.version())) {
      return Decision.run("version_changed", "SQE " + before.version() + " wrote the table, this is " + lineage.version(), lineage);
    }
    if (!before.fingerprint().equals(lineage.fingerprint())) {
      return Decision.run("plan_changed", "the statement's plan or the table it makes changed", lineage);
    }
    if (!before.policy().equals(lineage.policy())) {
      return Decision.run("policy_changed", "the user or the access policy applied to what it reads changed", lineage);
    }
    if (!before.inputs().equals(lineage.inputs())) {
      return Decision.run("input_changed", "an input changed: " + firstDifference(before.inputs(), lineage.inputs()), lineage);
    }
    if (!targetShape(table).equals(current.summary().get(Lineage.TARGET)) || rows == null) {
      return Decision.run("target_changed", "the table was altered since snapshot " + current.snapshotId(), lineage);
    }
    return new Decision(
        new Reuse(true, "unchanged", "nothing it reads changed since snapshot " + current.snapshotId() + " of the table"),
        lineage,
        Long.parseLong(rows));
  }

  /**
   * The lineage to record in the snapshot a write of {@code query}'s rows commits (INSERT ...
   * SELECT, for the incremental runs of a later slice of issue 24); empty when the rows are not a
   * function of versioned inputs (the clock, random numbers, time travel, unversioned tables).
   *
   * @param shape the statement's kind and target columns, so that lineages of different kinds of
   *     writes never compare equal
   */
  public static Optional<Lineage> recordable(CommandContext context, PlannedQuery query, List<Object> parameters, String shape) {
    PlanReads reads = query.reads();
    if (reads.scans().stream().anyMatch(scan -> scan.snapshotId() != null) || !reads.resultCacheable() || !reads.planCacheable()) {
      return Optional.empty();
    }
    return lineage(context, query, parameters, shape);
  }

  /**
   * What a table is besides its rows, as {@link Lineage#TARGET} records it: its schema, partition
   * spec and sort order (by id, which any change to them moves) and a hash of its properties.
   */
  public static String targetShape(Table table) {
    return "schema=" + table.schema().schemaId()
        + " spec=" + table.spec().specId()
        + " order=" + table.sortOrder().orderId()
        + " properties=" + hash(new TreeMap<>(table.properties()).toString());
  }

  private static Optional<Lineage> lineage(CommandContext context, PlannedQuery query, List<Object> parameters, String shape) {
    PlanReads reads = query.reads();
    PlanReads.PlanContext planned = reads.versions().context();
    String facts = String.join(
        "\n",
        "context " + planned.catalog() + " " + planned.schema() + " " + planned.timeZone(),
        "parameters " + parameters,
        "target " + shape);
    String fingerprint = hash("plan " + query.explain() + "\n" + facts);
    TreeSet<String> inputs = new TreeSet<>();
    try {
      for (PlanReads.ScanRead scan : reads.scans()) {
        Optional<Table> table = context.catalogs().find(scan.catalog()).flatMap(c -> c.loadTable(scan.id()));
        if (table.isEmpty()) {
          return Optional.empty();
        }
        Snapshot snapshot = table.get().currentSnapshot();
        inputs.add("table " + scan.catalog() + "." + scan.id() + " " + table.get().uuid() + " snapshot " + (snapshot == null ? -1 : snapshot.snapshotId()));
      }
      for (PlanReads.TableRead read : reads.tables()) {
        inputs.add("table " + read.catalog() + "." + read.id() + " " + read.uuid() + " schema " + read.schemaId());
      }
      for (PlanReads.ViewRead read : reads.views()) {
        Optional<View> view = context.catalogs().find(read.catalog()).flatMap(c -> c.views()).map(v -> v.loadView(read.id()));
        if (view.isEmpty() || !view.get().uuid().toString().equals(read.uuid()) || view.get().currentVersion().versionId() != read.versionId()) {
          // Replaced since planning: the plan expanded an older version.
          return Optional.empty();
        }
        inputs.add("view " + read.catalog() + "." + read.id() + " " + read.uuid() + " version " + read.versionId());
      }
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    List<String> policy = new ArrayList<>();
    policy.add("user " + context.session().principal().user());
    for (PlanReads.AccessRead read : reads.accessReads()) {
      policy.add(read.catalog() + "." + read.schema() + "." + read.table() + " " + canonical(read.access()));
    }
    policy.sort(null);
    return Optional.of(new Lineage(fingerprint, List.copyOf(inputs), hash(String.join("\n", policy)), SqeVersion.VERSION, hash(facts)));
  }

  /** {@code access} as text that does not depend on the iteration order of its sets and maps. */
  private static String canonical(TableAccess access) {
    return "privileges=" + new TreeSet<>(access.privileges().stream().map(Enum::name).toList())
        + " hidden=" + new TreeSet<>(access.hiddenColumns())
        + " masks=" + new TreeMap<>(access.masks())
        + " filter=" + access.rowFilter().orElse("");
  }

  private static String firstDifference(List<String> before, List<String> now) {
    for (String input : now) {
      if (!before.contains(input)) {
        return input;
      }
    }
    for (String input : before) {
      if (!now.contains(input)) {
        return "no longer reads " + input;
      }
    }
    return "the inputs differ";
  }

  private static String hash(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }
}
