package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.ViewDefinitions;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.ddl.SqlCreateMaterializedView;
import io.sqe.engine.sql.ddl.SqlCreateTable;
import io.sqe.engine.sql.ddl.SqlDropMaterializedView;
import io.sqe.engine.sql.ddl.SqlProperty;
import io.sqe.engine.sql.ddl.SqlRefreshMaterializedView;
import io.sqe.write.dml.CreateTableAsCommand;
import io.sqe.write.dml.IncrementalRefresh;
import io.sqe.write.storage.LocationRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewBuilder;
import org.apache.iceberg.view.ViewProperties;
import org.apache.iceberg.view.ViewVersion;

/**
 * CREATE [OR REPLACE] MATERIALIZED VIEW, DROP MATERIALIZED VIEW and REFRESH MATERIALIZED VIEW,
 * laid out as {@link MaterializedViews} describes: an Iceberg view plus a storage table {@code
 * st_<uuid>} in the view's schema, written by CREATE (OR REPLACE) TABLE ... AS, whose lineage
 * makes a refresh with no source moved commit nothing.
 *
 * <p>The storage table holds every row of the query, so the user who creates or refreshes the view
 * must read every source without a row filter, mask or hidden column.
 */
final class MaterializedViewStatements {
  /** The rows of EXPLAIN REFRESH: one line of text each, as EXPLAIN's. */
  private static final Schema EXPLAIN_SCHEMA =
      new Schema(List.of(new Field("plan", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));

  private MaterializedViewStatements() {}

  static PreparedCommand create(CommandContext context, SqlCreateMaterializedView create) {
    ObjectName name = Names.checkNew(Names.object(context, create.name()), "view");
    ViewCatalog views = ViewStatements.views(name);
    if (!name.catalog().schemaExists(name.schema())) {
      throw TableStatements.schemaNotFound(name);
    }
    Optional<String> maxStaleness = maxStaleness(create.properties());
    // Written before planning: validation rewrites the tree it validates.
    String sql = SqlDialect.toSql(create.query());
    String defaultCatalog = context.session().catalog();
    Namespace defaultNamespace =
        context.session().schema() == null ? name.namespace() : Namespace.of(context.session().schema());
    checkQuery(in(context, defaultCatalog, defaultNamespace), sql, create.query());
    return (ctx, parameters) -> {
      if (!name.catalog().schemaExists(name.schema())) {
        throw TableStatements.schemaNotFound(name);
      }
      if (name.catalog().iceberg().tableExists(name.id())) {
        throw error(ErrorCode.ALREADY_EXISTS, "A table named '" + name.qualified() + "' already exists", create.name());
      }
      View previous = null;
      if (views.viewExists(name.id())) {
        previous = views.loadView(name.id());
        if (!MaterializedViews.isMaterialized(previous)) {
          throw error(
              ErrorCode.ALREADY_EXISTS, "A view named '" + name.qualified() + "' already exists; it is not a materialized view", create.name());
        }
        if (!create.getReplace()) {
          if (create.ifNotExists) {
            return CommandResult.rows(0);
          }
          throw error(ErrorCode.ALREADY_EXISTS, "Materialized view '" + name.qualified() + "' already exists", create.name());
        }
      }
      // The same query under the same defaults keeps its storage table, refreshed: a new comment or
      // max_staleness rewrites nothing, and with no source moved the refresh commits nothing.
      Optional<TableIdentifier> kept = previous == null ? Optional.empty() : sameQueryStorage(name, previous, sql, defaultCatalog, defaultNamespace);
      TableIdentifier storageId = kept.orElseGet(
          () -> TableIdentifier.of(name.namespace(), "st_" + UUID.randomUUID().toString().replace("-", "")));
      CommandContext defaults = in(ctx, defaultCatalog, defaultNamespace);
      CommandResult written = writeStorage(defaults, name, storageId, sql, kept.isPresent());
      try {
        Table storage = name.catalog().iceberg().loadTable(storageId);
        ViewBuilder builder =
            views.buildView(name.id())
                .withSchema(storage.schema())
                .withQuery(ViewStatements.DIALECT, sql)
                .withDefaultCatalog(defaultCatalog)
                .withDefaultNamespace(defaultNamespace)
                .withProperty(MaterializedViews.STORAGE_SCHEMA, name.schema())
                .withProperty(MaterializedViews.STORAGE_TABLE, storageId.name());
        if (create.comment() != null) {
          builder = builder.withProperty(ViewProperties.COMMENT, create.comment());
        }
        if (maxStaleness.isPresent()) {
          builder = builder.withProperty(MaterializedViews.MAX_STALENESS, maxStaleness.get());
        }
        View view = previous != null ? builder.replace() : builder.create();
        MaterializedViews.defined();
        if (previous != null) {
          // A replaced view is a new definition; Iceberg would carry the old properties over.
          if (create.comment() == null && view.properties().containsKey(ViewProperties.COMMENT)) {
            view.updateProperties().remove(ViewProperties.COMMENT).commit();
          }
          if (maxStaleness.isEmpty() && view.properties().containsKey(MaterializedViews.MAX_STALENESS)) {
            view.updateProperties().remove(MaterializedViews.MAX_STALENESS).commit();
          }
          if (kept.isEmpty()) {
            MaterializedViews.storageTable(previous, name.schema()).ifPresent(old -> dropStorage(name, old));
          }
        }
      } catch (AlreadyExistsException e) {
        if (kept.isEmpty()) {
          dropStorage(name, storageId);
        }
        if (create.ifNotExists) {
          return CommandResult.rows(0);
        }
        throw error(ErrorCode.ALREADY_EXISTS, "Materialized view '" + name.qualified() + "' already exists", create.name());
      } catch (RuntimeException e) {
        // A kept storage table still serves the previous view, which is unchanged.
        if (kept.isEmpty()) {
          dropStorage(name, storageId);
        }
        throw DdlErrors.translate(e, create.name());
      } finally {
        name.catalog().invalidate(name.id());
      }
      return CommandResult.rows(written.rowCount());
    };
  }

  /**
   * The storage table of {@code previous} when its query is {@code sql} (as SQE writes it down, so
   * layout and letter case do not count) under the same default catalog and schema, and the table
   * still exists.
   */
  private static Optional<TableIdentifier> sameQueryStorage(
      ObjectName name, View previous, String sql, String defaultCatalog, Namespace defaultNamespace) {
    ViewVersion version = previous.currentVersion();
    boolean same = ViewDefinitions.sql(version)
        .filter(stored -> stored.dialect().equals(ViewStatements.DIALECT) && stored.sql().equals(sql))
        .isPresent()
        && defaultCatalog.equals(version.defaultCatalog())
        && defaultNamespace.equals(version.defaultNamespace());
    if (!same) {
      return Optional.empty();
    }
    return MaterializedViews.storageTable(previous, name.schema()).filter(storage -> name.catalog().iceberg().tableExists(storage));
  }

  static PreparedCommand drop(CommandContext context, SqlDropMaterializedView drop) {
    ObjectName name = Names.object(context, drop.name());
    ViewCatalog views = ViewStatements.views(name);
    if (!drop.ifExists) {
      load(name, views);
    }
    return (ctx, parameters) -> {
      try {
        if (drop.ifExists && !views.viewExists(name.id())) {
          return CommandResult.rows(0);
        }
        View view = load(name, views);
        if (!views.dropView(name.id())) {
          if (drop.ifExists) {
            return CommandResult.rows(0);
          }
          throw notFound(name);
        }
        MaterializedViews.storageTable(view, name.schema()).ifPresent(storage -> dropStorage(name, storage));
      } catch (NoSuchViewException e) {
        if (drop.ifExists) {
          return CommandResult.rows(0);
        }
        throw notFound(name);
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, drop.name());
      } finally {
        name.catalog().invalidate(name.id());
      }
      return CommandResult.rows(0);
    };
  }

  /**
   * A refresh of the storage table with the view's query ({@link IncrementalRefresh}): nothing when
   * no source moved, the rows the sources appended when it can, else a full rewrite by CREATE OR
   * REPLACE TABLE ... AS; the result says which and why, for the trailers and the audit log. With
   * EXPLAIN, the choice and the plans it would run, as rows, and no change.
   */
  static PreparedCommand refresh(CommandContext context, SqlRefreshMaterializedView refresh) {
    ObjectName name = Names.object(context, refresh.name());
    ViewCatalog views = ViewStatements.views(name);
    load(name, views);
    if (refresh.explain()) {
      return new PreparedCommand() {
        @Override
        public Optional<Schema> reportSchema() {
          return Optional.of(EXPLAIN_SCHEMA);
        }

        @Override
        public CommandResult execute(CommandContext ctx, List<Object> parameters) {
          Refresh prepared = Refresh.of(ctx, name, views, refresh);
          List<Object[]> rows = new ArrayList<>();
          for (String line : IncrementalRefresh.explain(prepared.defaults(), prepared.full(), prepared.sql().sql())) {
            rows.add(new Object[] {line});
          }
          return CommandResult.report(rows);
        }
      };
    }
    return (ctx, parameters) -> {
      Refresh prepared = Refresh.of(ctx, name, views, refresh);
      ViewVersion version = prepared.view().currentVersion();
      SQLViewRepresentation sql = prepared.sql();
      CommandResult written;
      try {
        written = IncrementalRefresh.refresh(prepared.defaults(), prepared.full(), sql.sql());
      } finally {
        name.catalog().invalidate(prepared.storage());
      }
      Table stored = name.catalog().iceberg().loadTable(prepared.storage());
      View view = prepared.view();
      if (!MaterializedViews.sameColumns(stored.schema(), view.schema())) {
        // A source's columns changed: the view now has the columns its query returns, as a
        // CREATE OR REPLACE would give it, with its SQL and defaults kept.
        try {
          view.replaceVersion()
              .withSchema(stored.schema())
              .withQuery(sql.dialect(), sql.sql())
              .withDefaultCatalog(version.defaultCatalog())
              .withDefaultNamespace(version.defaultNamespace())
              .commit();
        } catch (RuntimeException e) {
          throw DdlErrors.translate(e, refresh.name());
        } finally {
          name.catalog().invalidate(name.id());
        }
      }
      return written;
    };
  }

  /**
   * A materialized view as a refresh finds it: its query, the defaults it runs under, its storage
   * table, and the CREATE OR REPLACE TABLE ... AS that rewrites it in full, whose plan is also the
   * one the user's access is checked on.
   */
  private record Refresh(View view, SQLViewRepresentation sql, CommandContext defaults, TableIdentifier storage, CreateTableAsCommand full) {
    static Refresh of(CommandContext context, ObjectName name, ViewCatalog views, SqlRefreshMaterializedView refresh) {
      View view;
      try {
        view = load(name, views);
      } catch (NoSuchViewException e) {
        throw notFound(name);
      }
      ViewVersion version = view.currentVersion();
      SQLViewRepresentation sql = ViewDefinitions.sql(version).orElseThrow(() -> error(
          ErrorCode.NOT_SUPPORTED, "Materialized view '" + name.qualified() + "' has no SQL representation", refresh.name()));
      String defaultCatalog = version.defaultCatalog() == null ? name.catalog().name() : version.defaultCatalog();
      Namespace defaultNamespace = version.defaultNamespace().isEmpty() ? name.namespace() : version.defaultNamespace();
      CommandContext defaults = in(context, defaultCatalog, defaultNamespace);
      TableIdentifier storage = MaterializedViews.storageTable(view, name.schema()).orElseThrow();
      CreateTableAsCommand full = storageWrite(defaults, name, storage, sql.sql(), true);
      checkPlan(defaults, full.query(), refresh.name());
      return new Refresh(view, sql, defaults, storage, full);
    }
  }

  /**
   * Writes the view's rows into its storage table: a new table by CREATE TABLE ... AS, or an
   * existing one refreshed, incrementally when it can be ({@link IncrementalRefresh}).
   */
  private static CommandResult writeStorage(CommandContext context, ObjectName name, TableIdentifier storage, String sql, boolean replace) {
    try {
      CreateTableAsCommand full = storageWrite(context, name, storage, sql, replace);
      return replace ? IncrementalRefresh.refresh(context, full, sql) : IncrementalRefresh.create(context, full, sql);
    } finally {
      name.catalog().invalidate(storage);
    }
  }

  /** The CREATE [OR REPLACE] TABLE ... AS that writes the storage table in full. */
  private static CreateTableAsCommand storageWrite(CommandContext context, ObjectName name, TableIdentifier storage, String sql, boolean replace) {
    SqlIdentifier target = new SqlIdentifier(
        List.of(name.catalog().name(), storage.namespace().level(0), storage.name()), SqlParserPos.ZERO);
    SqlCreateTable ctas = new SqlCreateTable(
        SqlParserPos.ZERO,
        replace,
        false,
        target,
        SqlNodeList.EMPTY,
        null,
        SqlNodeList.EMPTY,
        SqlNodeList.EMPTY,
        SqlNodeList.EMPTY,
        SqeParser.parse(sql));
    // The storage table takes its schema's default location: WITH takes no location property.
    return CreateTableAsCommand.prepare(context, ctas, LocationRules.NONE, true);
  }

  /**
   * The view's query has no parameters, and the user reads every table and view in it without a
   * restriction: the storage table keeps every row, which readers with other policies may not see.
   */
  private static void checkQuery(CommandContext context, String sql, SqlNode at) {
    checkPlan(context, context.queries().plan(context.session(), SqeParser.parse(sql), sql), at);
  }

  /** As {@link #checkQuery}, on the query planned already. */
  private static void checkPlan(CommandContext context, PlannedQuery plan, SqlNode at) {
    if (!plan.parameterTypes().isEmpty()) {
      throw error(ErrorCode.INVALID_ARGUMENT, "The query of a materialized view cannot have parameters", at);
    }
    for (PlanReads.AccessRead read : plan.reads().accessReads()) {
      if (read.access().restricts()) {
        throw error(
            ErrorCode.PERMISSION_DENIED,
            "Access denied: user '" + context.session().principal().user() + "' cannot materialize " + read.catalog() + "."
                + read.schema() + "." + read.table() + ": the user's access to it hides, masks or filters some of it, and a"
                + " materialized view stores every row",
            at);
      }
    }
  }

  /** The value of the view's {@code max_staleness} property; no other property is taken. */
  private static Optional<String> maxStaleness(SqlNodeList properties) {
    String value = null;
    for (SqlNode node : properties) {
      SqlProperty property = (SqlProperty) node;
      if (!property.key().toLowerCase(Locale.ROOT).equals(MaterializedViews.MAX_STALENESS)) {
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "Unknown materialized view property '" + property.key() + "'; the one supported is " + MaterializedViews.MAX_STALENESS,
            property.keyNode());
      }
      value = property.valueText();
      if (DurationText.parse(value).isEmpty()) {
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            MaterializedViews.MAX_STALENESS + " must be a duration such as '10m' or '1h', not " + property.value(),
            property.value());
      }
    }
    return Optional.ofNullable(value);
  }

  /** {@code context} for the view's query: its unqualified names resolve in the view's defaults. */
  private static CommandContext in(CommandContext context, String catalog, Namespace namespace) {
    return new CommandContext(
        context.session().withCatalog(catalog).withSchema(namespace.level(0)),
        context.catalogs(),
        context.queries(),
        context.queryId(),
        context.attempt());
  }

  private static View load(ObjectName name, ViewCatalog views) {
    if (!views.viewExists(name.id())) {
      throw notFound(name);
    }
    View view = views.loadView(name.id());
    if (!MaterializedViews.isMaterialized(view)) {
      throw error(
          ErrorCode.INVALID_ARGUMENT, "'" + name.qualified() + "' is a view, not a materialized view", name.node());
    }
    return view;
  }

  private static void dropStorage(ObjectName name, TableIdentifier storage) {
    try {
      Optional<Table> dropped = name.catalog().loadTable(storage);
      name.catalog().iceberg().dropTable(storage, true);
      // A purge deletes the files the table's metadata names; the averages' sums are named by a snapshot summary only.
      dropped.ifPresent(IncrementalRefresh::deleteKeptBeside);
    } finally {
      name.catalog().invalidate(storage);
    }
  }

  private static SqeException notFound(ObjectName name) {
    String hint = name.catalog().iceberg().tableExists(name.id()) ? "; it is a table" : "";
    return error(ErrorCode.NOT_FOUND, "Materialized view '" + name.qualified() + "' does not exist" + hint, name.node());
  }
}
