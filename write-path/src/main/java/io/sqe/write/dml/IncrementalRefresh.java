package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqeTypeSystem;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.functions.ArithmeticFunctions;
import io.sqe.write.dml.TableNames.TableRef;
import io.sqe.write.files.DataFileWriter;
import io.sqe.write.reuse.IncrementalQuery;
import io.sqe.write.reuse.Lineage;
import io.sqe.write.reuse.MaterializationReuse;
import io.sqe.write.reuse.SourceDeltas;
import io.sqe.write.txn.Commits;
import io.sqe.write.txn.TableWrite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.type.SqlTypeFactoryImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A refresh of a materialized view's storage table (a CREATE OR REPLACE TABLE ... AS of the view's
 * query, {@code full}) that reads of its sources only the rows appended since the last refresh,
 * when every source only had appends since and the query is one {@link IncrementalQuery} accepts;
 * otherwise the full rewrite, or nothing when no source moved ({@link MaterializationReuse}).
 *
 * <p>The delta is the standard rule for a join of sources S1..Sn: for each source i that moved,
 * the query over i's appended rows, the sources before i at their new snapshots and those after i
 * at their old ones; the terms together are exactly the rows the new snapshots add to the query's
 * result. Without grouping they are appended to the storage table; with grouping each term's
 * groups are merged into the stored ones (SUM and COUNT add, MIN and MAX keep the smaller and the
 * larger, NULL being no value, and AVG is the merged sum divided by the merged count as the query
 * divides them), and the table is written again from its groups, which are far fewer than the
 * sources' rows. The sums and counts of the averages are kept per group in an {@link
 * AverageState} named by the storage table's snapshot, which every write of a grouped view with
 * AVG (the full rewrite too) leaves. Either way one commit, validated against any other commit to the
 * storage table since the one read, records the new lineage with the rows, exactly as the full
 * rewrite would.
 */
public final class IncrementalRefresh {
  /** The reason an incremental refresh gives for the trailers and the audit line. */
  public static final String REASON = "incremental";
  /** The types of the division AVG of a decimal makes, as the planner types it. */
  private static final RelDataTypeFactory TYPES = new SqlTypeFactoryImpl(SqeTypeSystem.INSTANCE);
  /** How many times a refresh decides and runs before a lost commit race fails it. */
  private static final int RACE_ATTEMPTS = 3;

  private final CreateTableAsCommand full;
  private final Lineage lineage;
  private final Table storage;
  private final Snapshot base;
  private final long storedRows;
  private final IncrementalQuery shape;
  private final List<SourceDeltas.Source> sources;
  private final String sql;
  /** The sums and counts of the averages of the snapshot read; null when the query has none. */
  private final AverageState averages;

  private IncrementalRefresh(
      CreateTableAsCommand full,
      Lineage lineage,
      Table storage,
      Snapshot base,
      long storedRows,
      IncrementalQuery shape,
      List<SourceDeltas.Source> sources,
      String sql,
      AverageState averages) {
    this.full = requireNonNull(full, "full is null");
    this.lineage = requireNonNull(lineage, "lineage is null");
    this.storage = requireNonNull(storage, "storage is null");
    this.base = requireNonNull(base, "base is null");
    this.storedRows = storedRows;
    this.shape = requireNonNull(shape, "shape is null");
    this.sources = List.copyOf(sources);
    this.sql = requireNonNull(sql, "sql is null");
    this.averages = averages;
  }

  /** What a refresh does now: reuse or rewrite ({@code decision}), or refresh incrementally (when {@code incremental} is not null). */
  private record Choice(MaterializationReuse.Decision decision, IncrementalRefresh incremental) {}

  /**
   * Refreshes the storage table that {@code full} (a CREATE OR REPLACE TABLE ... AS of {@code
   * sql}, the view's query) writes: nothing when no source moved, incrementally when it can, else
   * by {@code full}.
   */
  public static CommandResult refresh(CommandContext context, CreateTableAsCommand full, String sql) {
    return incrementally(context, full, sql, (run, decision) -> rewriteInFull(run, full, sql, decision));
  }

  /**
   * Runs {@code full}, a user's CREATE OR REPLACE TABLE ... AS of {@code sql} without parameters,
   * over the table it made before: nothing when nothing it reads changed, incrementally when its
   * sources only had appends since and its query allows it (the rows of a {@code table} model in
   * dbt whose sources were appended to), else as it is. No sums and counts are kept for averages:
   * a grouped query with AVG rewrites in full.
   */
  public static CommandResult replace(CommandContext context, CreateTableAsCommand full, String sql) {
    return incrementally(context, full, sql, (run, decision) -> full.run(run, List.of(), decision));
  }

  /** Runs {@code full} incrementally when it can, else as {@code otherwise} does with the decision made. */
  private static CommandResult incrementally(
      CommandContext context,
      CreateTableAsCommand full,
      String sql,
      BiFunction<CommandContext, MaterializationReuse.Decision, CommandResult> otherwise) {
    for (int attempt = 0; ; attempt++) {
      // A retry writes files named apart from those of the attempt that lost.
      CommandContext run = attempt == 0 ? context : context.withAttempt(context.attempt() + attempt);
      Choice choice = choose(run, full, sql);
      if (choice.incremental() == null) {
        return otherwise.apply(run, choice.decision());
      }
      try {
        return choice.incremental().run(run);
      } catch (ArithmeticException e) {
        // A sum outgrew its column's type: the full rewrite reports it as the query would.
        return otherwise.apply(run, rewrite(choice.decision(), "a merged sum does not fit its column"));
      } catch (Unmergeable e) {
        return otherwise.apply(run, rewrite(choice.decision(), e.getMessage()));
      } catch (SqeException e) {
        // Another refresh committed first: decide again from what it wrote (most often, nothing to do).
        if (attempt >= RACE_ATTEMPTS - 1 || !Commits.lostRace(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Writes the storage table that {@code full} (a CREATE TABLE ... AS of {@code sql}, the view's
   * query) makes, with the sums and counts of its averages when it has any.
   */
  public static CommandResult create(CommandContext context, CreateTableAsCommand full, String sql) {
    return rewriteInFull(context, full, sql, full.decide(context, List.of()));
  }

  /**
   * Runs {@code full} as {@code decision} says, and when it writes the rows of a grouped query with
   * AVG, the sums and counts a later refresh merges, read at the same snapshots of the sources;
   * the file of the snapshot replaced is deleted once the new one is committed.
   */
  private static CommandResult rewriteInFull(
      CommandContext context, CreateTableAsCommand full, String sql, MaterializationReuse.Decision decision) {
    if (decision.reuse().reused()) {
      return full.run(context, List.of(), decision);
    }
    TableRef target = full.target();
    Optional<Table> replaced = target.catalog().loadTable(target.id());
    Optional<String> previous = replaced.flatMap(table -> AverageState.path(table.currentSnapshot()));
    AverageState state = decision.lineage() == null ? null : fullState(context, full, sql, decision.lineage());
    StateFile file = new StateFile(state);
    CommandResult result;
    try {
      result = full.run(context, List.of(), decision, file);
    } catch (RuntimeException | Error e) {
      file.delete();
      throw e;
    }
    previous.ifPresent(path -> AverageState.delete(replaced.get(), path));
    return result;
  }

  /** Writes an {@link AverageState}, if any, beside the table a statement writes, and remembers where, to delete it if the commit fails. */
  private static final class StateFile implements Function<Table, Map<String, String>> {
    private final AverageState state;
    private Table table;
    private String path;

    StateFile(AverageState state) {
      this.state = state;
    }

    @Override
    public Map<String, String> apply(Table into) {
      if (state == null) {
        return Map.of();
      }
      table = into;
      path = state.write(into);
      return Map.of(AverageState.PROPERTY, path);
    }

    void delete() {
      if (path != null) {
        AverageState.delete(table, path);
      }
    }
  }

  /**
   * The sums and counts of the averages of {@code sql} (when it is a grouped query a refresh can
   * merge, with AVG of exact numbers) over its sources at the snapshots {@code lineage} records;
   * null when there are none to keep.
   */
  private static AverageState fullState(CommandContext context, CreateTableAsCommand full, String sql, Lineage lineage) {
    IncrementalQuery shape = IncrementalQuery.analyze(SqeParser.parse(sql)).query();
    if (shape == null || !shape.grouped() || !shape.averages()) {
      return null;
    }
    SourceDeltas at = SourceDeltas.between(context, lineage, lineage);
    // A source without a snapshot refreshes in full anyway: it has no history of appends to follow.
    if (at.whyNot() != null || shape.tables() != at.sources().size() || at.sources().stream().anyMatch(source -> source.after() == -1)) {
      return null;
    }
    PlannedQuery query = plan(context, sql, shape, at.sources(), -1);
    List<ValueConversion> parts = parts(query, full.conversions().size());
    if (parts == null) {
      return null;
    }
    Record template = GenericRecord.create(full.schema());
    List<ValueConversion> conversions = full.conversions();
    Map<String, Object[]> groups = new HashMap<>();
    try (RowStream stream = context.queries().rows(context.session(), query, List.of(), context.queryId())) {
      while (stream.next()) {
        Group group = Group.of(stream.current(), template, conversions, parts);
        groups.put(AverageState.key(key(shape, group.row())), group.sums());
      }
    }
    return new AverageState(groups);
  }

  /**
   * How the sums and counts that {@link IncrementalQuery#withAverageParts} adds after the first
   * {@code columns} columns of {@code query} become stored values; null when a sum is not of an
   * exact number (a floating-point sum depends on the order of addition).
   */
  private static List<ValueConversion> parts(PlannedQuery query, int columns) {
    List<RelDataTypeField> fields = query.resultType().getFieldList();
    List<ValueConversion> parts = new ArrayList<>();
    for (int p = columns; p < fields.size(); p++) {
      RelDataType type = fields.get(p).getType();
      Type stored;
      try {
        stored = CalciteTypeMapping.toIcebergType(type);
      } catch (UnsupportedTypeException e) {
        return null;
      }
      if (stored.typeId() != Type.TypeID.LONG && stored.typeId() != Type.TypeID.DECIMAL) {
        return null;
      }
      Optional<ValueConversion> conversion = ValueConversion.of(type, Types.NestedField.optional(p + 1, "part" + p, stored));
      if (conversion.isEmpty()) {
        return null;
      }
      parts.add(conversion.get());
    }
    return parts;
  }

  /** Deletes what a refresh keeps beside storage table {@code table} (the sums and counts of averages), once it is dropped. */
  public static void deleteKeptBeside(Table table) {
    AverageState.path(table.currentSnapshot()).ifPresent(path -> AverageState.delete(table, path));
  }

  /** What {@link #refresh} would do now, and the plans it would run, one line each: EXPLAIN REFRESH. */
  public static List<String> explain(CommandContext context, CreateTableAsCommand full, String sql) {
    Choice choice = choose(context, full, sql);
    List<String> lines = new ArrayList<>();
    CommandResult.Reuse reuse = choice.decision().reuse();
    if (reuse.reused()) {
      lines.add("-- refresh: none (" + reuse.reason() + ": " + reuse.detail() + ")");
      return lines;
    }
    if (choice.incremental() == null) {
      lines.add("-- refresh: full (" + reuse.reason() + ": " + reuse.detail() + ")");
      lines.addAll(List.of(full.query().explain().split("\n")));
      return lines;
    }
    lines.add("-- refresh: " + REASON + " (" + choice.incremental().detail() + ")");
    lines.addAll(choice.incremental().termPlans(context));
    return lines;
  }

  /**
   * What {@link #replace} would do now: {@code incremental}, when it reads only appended rows, a
   * line saying so and the plans it would run, one line each (null when it would not); {@code reuse}
   * whether it would keep the table's rows, and why not.
   */
  public record ReplaceExplained(List<String> incremental, CommandResult.Reuse reuse) {}

  /** What {@link #replace} would do now, decided once. */
  public static ReplaceExplained explainReplace(CommandContext context, CreateTableAsCommand full, String sql) {
    Choice choice = choose(context, full, sql);
    if (choice.incremental() == null) {
      return new ReplaceExplained(null, choice.decision().reuse());
    }
    List<String> lines = new ArrayList<>();
    lines.add("-- materialization: " + REASON + " (" + choice.incremental().detail() + ")");
    lines.addAll(choice.incremental().termPlans(context));
    return new ReplaceExplained(lines, choice.decision().reuse());
  }

  /** Each moved source's appended range and the plan of its delta term. */
  private List<String> termPlans(CommandContext context) {
    List<String> lines = new ArrayList<>();
    for (SourceDeltas.Source source : sources.stream().filter(SourceDeltas.Source::moved).toList()) {
      lines.add("-- rows appended to " + source.name() + " after snapshot " + source.before() + " up to " + source.after());
      lines.addAll(List.of(term(context, sources.indexOf(source)).explain().split("\n")));
    }
    return lines;
  }

  private static Choice choose(CommandContext context, CreateTableAsCommand full, String sql) {
    MaterializationReuse.Decision decision = full.decide(context, List.of());
    CommandResult.Reuse reuse = decision.reuse();
    // Only moved inputs can be followed incrementally, under a plan that may differ (the same query
    // planned with the sources' new statistics): another policy, SQE version, a transaction or
    // reuse turned off rewrite as they did.
    if (reuse.reused() || decision.lineage() == null || !(reuse.reason().equals("input_changed") || reuse.reason().equals("plan_changed"))) {
      return new Choice(decision, null);
    }
    TableRef target = full.target();
    Table storage = target.catalog().iceberg().loadTable(target.id());
    Snapshot base = storage.currentSnapshot();
    Optional<Lineage> recorded = base == null ? Optional.empty() : Lineage.of(base.summary());
    Lineage now = decision.lineage();
    String rows = base == null ? null : base.summary().get(Lineage.ROWS);
    if (recorded.isEmpty() || rows == null || !recorded.get().policy().equals(now.policy()) || !recorded.get().version().equals(now.version())) {
      return new Choice(rewrite(decision, "the storage table changed while the refresh was planned"), null);
    }
    if (!recorded.get().fingerprint().equals(now.fingerprint())
        && (recorded.get().context().isEmpty() || !recorded.get().context().equals(now.context()))) {
      return new Choice(rewrite(decision, "the session (time zone, defaults) or the table's shape changed, not only the plan"), null);
    }
    if (!MaterializationReuse.targetShape(storage).equals(base.summary().get(Lineage.TARGET))
        || !storage.schema().asStruct().equals(full.schema().asStruct())) {
      return new Choice(rewrite(decision, "the storage table was altered, or the query's columns changed"), null);
    }
    IncrementalQuery.Analysis analysis = IncrementalQuery.analyze(SqeParser.parse(sql));
    if (analysis.query() == null) {
      return new Choice(rewrite(decision, analysis.whyNot()), null);
    }
    IncrementalQuery shape = analysis.query();
    SourceDeltas deltas = SourceDeltas.between(context, recorded.get(), now);
    if (deltas.whyNot() != null) {
      return new Choice(rewrite(decision, deltas.whyNot()), null);
    }
    if (shape.tables() != deltas.sources().size()) {
      return new Choice(rewrite(decision, "the query reads a table more than once"), null);
    }
    if (shape.grouped()) {
      List<Types.NestedField> columns = storage.schema().columns();
      if (columns.size() != shape.columns().size()) {
        return new Choice(rewrite(decision, "the storage table's columns are not the query's"), null);
      }
      for (int i = 0; i < columns.size(); i++) {
        String unmergeable = unmergeable(shape.columns().get(i), columns.get(i).type().typeId());
        if (unmergeable != null) {
          return new Choice(rewrite(decision, "column " + columns.get(i).name() + " " + unmergeable), null);
        }
      }
    }
    AverageState averages = null;
    if (shape.grouped() && shape.averages()) {
      averages = AverageState.path(base).flatMap(path -> AverageState.read(storage, path)).orElse(null);
      if (averages == null || averages.groups().size() != Long.parseLong(rows)) {
        return new Choice(
            rewrite(decision, "the storage table keeps no sum and count for its averages (they average floating-point values, or"
                + " the file keeping them is gone)"),
            null);
      }
    }
    return new Choice(decision, new IncrementalRefresh(full, now, storage, base, Long.parseLong(rows), shape, deltas.sources(), sql, averages));
  }

  /** Why a stored column of type {@code type} cannot take a merge of {@code column}; null when it can. */
  private static String unmergeable(IncrementalQuery.Column column, Type.TypeID type) {
    return switch (column) {
      case KEY, DEPENDENT -> null;
      // A floating-point sum depends on the order of addition: merged, it would differ from the query's.
      case SUM, COUNT -> type == Type.TypeID.INTEGER || type == Type.TypeID.LONG || type == Type.TypeID.DECIMAL
          ? null
          : "sums " + type.name().toLowerCase(Locale.ROOT) + " values, which a merge cannot add exactly";
      // Floating point is left out too: NaN and -0.0 might compare otherwise than in the query.
      case MIN, MAX -> switch (type) {
        case BOOLEAN, INTEGER, LONG, DECIMAL, DATE, TIME, TIMESTAMP, STRING -> null;
        default -> "takes the least or greatest of " + type.name().toLowerCase(Locale.ROOT) + " values, which a merge does not compare";
      };
      // Whether the average is of exact numbers shows in its sum, which the stored state keeps.
      case AVG -> type == Type.TypeID.DOUBLE || type == Type.TypeID.DECIMAL ? null : "averages into " + type.name().toLowerCase(Locale.ROOT);
    };
  }

  /** {@code decision}'s full rewrite, saying why it is not incremental. */
  private static MaterializationReuse.Decision rewrite(MaterializationReuse.Decision decision, String whyNot) {
    CommandResult.Reuse reuse = decision.reuse();
    return new MaterializationReuse.Decision(
        CommandResult.Reuse.rebuilt(reuse.reason(), reuse.detail() + "; rewritten in full: " + whyNot), decision.lineage(), decision.rows());
  }

  private String detail() {
    List<String> moved = sources.stream().filter(SourceDeltas.Source::moved).map(s -> s.name() + " after snapshot " + s.before()).toList();
    return "rows appended to " + String.join(", ", moved) + (shape.grouped() ? ", merged into the stored groups" : ", appended");
  }

  /** The delta rule's term for source {@code moved}: its appended rows, the sources before it new, those after it old. */
  private PlannedQuery term(CommandContext context, int moved) {
    return plan(context, sql, shape, sources, moved);
  }

  /**
   * {@code sql}, with the sums and counts of its averages when it has any, over {@code sources}:
   * the one at {@code moved} its appended rows, those before it new, those after it old (with
   * {@code moved} -1, every source as it was before, which is after when it did not move).
   */
  private static PlannedQuery plan(CommandContext context, String sql, IncrementalQuery shape, List<SourceDeltas.Source> sources, int moved) {
    List<IcebergTable> tables = new ArrayList<>();
    for (int j = 0; j < sources.size(); j++) {
      SourceDeltas.Source source = sources.get(j);
      tables.add(j == moved
          ? IcebergTable.appendedBetween(source.catalog(), source.id(), source.table(), source.before(), source.after())
          : IcebergTable.atSnapshot(
              source.catalog(), source.id(), source.table(), j < moved ? source.after() : source.before(), source.table().schema()));
    }
    if (!shape.averages()) {
      return context.queries().plan(context.session(), SqeParser.parse(sql), sql, tables);
    }
    String withParts = SqlDialect.toSql(IncrementalQuery.withAverageParts(SqeParser.parse(sql)));
    return context.queries().plan(context.session(), SqeParser.parse(withParts), withParts, tables);
  }

  private CommandResult run(CommandContext context) {
    TableRef target = full.target();
    Schema schema = storage.schema();
    List<ValueConversion> conversions = full.conversions();
    Record template = GenericRecord.create(schema);
    Map<List<Object>, Group> groups = shape.grouped() ? storedGroups(schema) : null;
    DataFileWriter writer = DataFileWriter.builder(storage).operationId(context.queryId()).partitionId(context.attempt()).build();
    List<DataFile> files;
    long rows;
    Map<String, Object[]> state = averages == null ? null : new HashMap<>();
    try {
      for (int i = 0; i < sources.size(); i++) {
        if (!sources.get(i).moved()) {
          continue;
        }
        PlannedQuery term = term(context, i);
        List<ValueConversion> parts = averages == null ? List.of() : parts(term, conversions.size());
        if (parts == null) {
          throw new Unmergeable("an average's sum is no longer of exact numbers");
        }
        try (RowStream stream = context.queries().rows(context.session(), term, List.of(), context.queryId())) {
          while (stream.next()) {
            Group delta = Group.of(stream.current(), template, conversions, parts);
            if (groups == null) {
              writer.write(delta.row());
            } else {
              groups.merge(key(shape, delta.row()), delta, (stored, added) -> merged(schema, stored, added));
            }
          }
        }
      }
      if (groups != null) {
        for (Group group : groups.values()) {
          if (state != null) {
            averaged(schema, group);
            state.put(AverageState.key(key(shape, group.row())), group.sums());
          }
          writer.write(group.row());
        }
        rows = groups.size();
      } else {
        rows = storedRows + writer.rowCount();
      }
      files = writer.complete();
    } catch (RuntimeException | Error e) {
      writer.abort();
      throw e;
    }
    TableWrite write = TableWrite.existing(context.session(), target.catalog(), target.id(), () -> storage, context.queryId());
    write.summarize(lineage.summary(rows, MaterializationReuse.targetShape(storage)));
    String statePath = state == null ? null : new AverageState(state).write(storage);
    try {
      if (statePath != null) {
        write.summarize(Map.of(AverageState.PROPERTY, statePath));
      }
      OverwriteFiles overwrite = write.newOverwrite();
      if (groups != null) {
        baseFiles().forEach(overwrite::deleteFile);
      }
      files.forEach(overwrite::addFile);
      // Another refresh that committed since the snapshot read would be counted twice.
      overwrite.validateFromSnapshot(base.snapshotId())
          .conflictDetectionFilter(Expressions.alwaysTrue())
          .validateNoConflictingData()
          .validateNoConflictingDeletes();
      write.commit(overwrite, writer.paths(), "incremental CREATE OR REPLACE TABLE " + target.displayName() + " AS");
    } catch (RuntimeException | Error e) {
      if (statePath != null) {
        AverageState.delete(storage, statePath);
      }
      throw e;
    }
    AverageState.path(base).ifPresent(path -> AverageState.delete(storage, path));
    return CommandResult.materialized(rows, CommandResult.Reuse.rebuilt(REASON, detail()));
  }

  /** Why the stored groups cannot take the delta's: the refresh rewrites the table in full instead. */
  private static final class Unmergeable extends RuntimeException {
    Unmergeable(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * One group of a grouped query: its row as stored, and the sums and counts of its averages
   * ({@link AverageState#groups()}), which a merge adds to in place.
   */
  private record Group(Record row, Object[] sums) {
    /**
     * A row of the query as stored: its columns by {@code conversions} into a copy of {@code
     * template}, and the sums and counts after them by {@code parts}.
     */
    static Group of(Object[] row, Record template, List<ValueConversion> conversions, List<ValueConversion> parts) {
      Record record = template.copy();
      int columns = conversions.size();
      for (int c = 0; c < columns; c++) {
        record.set(c, conversions.get(c).apply(row[c]));
      }
      Object[] sums = new Object[parts.size()];
      for (int p = 0; p < sums.length; p++) {
        sums[p] = parts.get(p).apply(row[columns + p]);
      }
      return new Group(record, sums);
    }
  }

  /** The stored groups by their keys, as the snapshot read has them, with the sums and counts of their averages. */
  private Map<List<Object>, Group> storedGroups(Schema schema) {
    Map<List<Object>, Group> groups = new LinkedHashMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(storage).useSnapshot(base.snapshotId()).build()) {
      for (Record record : records) {
        List<Object> key = key(shape, record);
        Object[] sums = new Object[0];
        if (averages != null) {
          sums = averages.groups().get(AverageState.key(key));
          if (sums == null) {
            throw new Unmergeable("a stored group has no sum and count for its averages");
          }
        }
        groups.put(key, new Group(record.copy(), sums.clone()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return groups;
  }

  private List<DataFile> baseFiles() {
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = storage.newScan().useSnapshot(base.snapshotId()).planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** The group a row of {@code shape}'s query is of: its key columns' values, arrays compared by content. */
  private static List<Object> key(IncrementalQuery shape, Record record) {
    List<Object> key = new ArrayList<>();
    for (int i = 0; i < shape.columns().size(); i++) {
      if (shape.columns().get(i) == IncrementalQuery.Column.KEY) {
        Object value = record.get(i);
        key.add(value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value instanceof CharSequence text ? text.toString() : value);
      }
    }
    return key;
  }

  /** A stored group with a delta's row of the same group merged in; its averages are computed once all are merged ({@link #averaged}). */
  private Group merged(Schema schema, Group stored, Group delta) {
    Record result = stored.row().copy();
    for (int i = 0; i < shape.columns().size(); i++) {
      Types.NestedField column = schema.columns().get(i);
      Object was = stored.row().get(i);
      Object added = delta.row().get(i);
      if (added == null) {
        continue;
      }
      if (was == null) {
        result.set(i, added);
        continue;
      }
      result.set(i, switch (shape.columns().get(i)) {
        case KEY, DEPENDENT, AVG -> was;
        case SUM, COUNT -> sum(column, was, added);
        case MIN -> comparator(column).compare(was, added) <= 0 ? was : added;
        case MAX -> comparator(column).compare(was, added) >= 0 ? was : added;
      });
    }
    Object[] sums = stored.sums().clone();
    for (int p = 0; p < sums.length; p++) {
      Object added = delta.sums()[p];
      sums[p] = added == null ? sums[p] : sums[p] == null ? added : addParts(sums[p], added);
    }
    return new Group(result, sums);
  }

  /** Sets each AVG column of {@code group} to its sum divided by its count. */
  private void averaged(Schema schema, Group group) {
    int part = 0;
    for (int i = 0; i < shape.columns().size(); i++) {
      if (shape.columns().get(i) == IncrementalQuery.Column.AVG) {
        group.row().set(i, average(schema.columns().get(i), group.sums()[part], (Long) group.sums()[part + 1]));
        part += 2;
      }
    }
  }

  /**
   * AVG as the query computes it from the sum and the count of its argument (Calcite reduces AVG
   * to them): NULL over no value; else for integers the sum as a DOUBLE divided by the count; for
   * decimals the sum cast to the average's type, divided by the count at the scale SQE's type
   * system gives that division, rounded as SQE divides decimals, and cast to the average's type.
   */
  private static Object average(Types.NestedField column, Object sum, long count) {
    if (count == 0 || sum == null) {
      return null;
    }
    if (column.type() instanceof Types.DecimalType decimal && sum instanceof BigDecimal exact) {
      BigDecimal numerator = exact.setScale(decimal.scale());
      if (numerator.precision() - numerator.scale() > decimal.precision() - decimal.scale()) {
        throw new ArithmeticException("decimal overflow");
      }
      RelDataType dividend = TYPES.createSqlType(SqlTypeName.DECIMAL, decimal.precision(), decimal.scale());
      int scale = SqeTypeSystem.INSTANCE.deriveDecimalDivideType(TYPES, dividend, TYPES.createSqlType(SqlTypeName.BIGINT)).getScale();
      BigDecimal quotient = ArithmeticFunctions.decimalDivide(numerator, BigDecimal.valueOf(count), scale);
      return quotient.setScale(decimal.scale(), SqeTypeSystem.INSTANCE.roundingMode());
    }
    if (column.type().typeId() == Type.TypeID.DOUBLE && sum instanceof Long exact) {
      return (double) exact / count;
    }
    throw new Unmergeable("column " + column.name() + " cannot take the average of a sum of " + sum.getClass().getSimpleName());
  }

  /** The sum of two sums or counts of averages; {@link ArithmeticException} when a long overflows. */
  private static Object addParts(Object a, Object b) {
    if (a instanceof Long x && b instanceof Long y) {
      return Math.addExact(x, y);
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
      BigDecimal sum = x.add(y);
      // SUM of decimals is DECIMAL(38, s): a merged sum past 38 digits would have failed the query.
      if (sum.precision() > SqeTypeSystem.INSTANCE.getMaxPrecision(SqlTypeName.DECIMAL)) {
        throw new ArithmeticException("decimal overflow");
      }
      return sum;
    }
    throw new IllegalStateException("Cannot add " + Arrays.asList(a, b));
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Object> comparator(Types.NestedField column) {
    return (Comparator<Object>) Comparators.forType(column.type().asPrimitiveType());
  }

  /** The sum of two values of an integer or decimal column; {@link ArithmeticException} when it does not fit. */
  private static Object sum(Types.NestedField column, Object a, Object b) {
    if (a instanceof Integer x && b instanceof Integer y) {
      return Math.addExact(x, y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Math.addExact(x, y);
    }
    if (a instanceof BigDecimal x && b instanceof BigDecimal y && column.type() instanceof Types.DecimalType decimal) {
      BigDecimal sum = x.add(y);
      if (sum.precision() - sum.scale() > decimal.precision() - decimal.scale()) {
        throw new ArithmeticException("decimal overflow");
      }
      return sum;
    }
    throw new IllegalStateException("Cannot add " + Arrays.asList(a, b) + " in column " + column);
  }
}
