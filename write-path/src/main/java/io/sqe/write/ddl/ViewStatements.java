package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.QueryShape;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.ddl.SqlAlterViewRename;
import io.sqe.engine.sql.ddl.SqlCommentOn;
import io.sqe.engine.sql.ddl.SqlCreateView;
import io.sqe.engine.sql.ddl.SqlDropView;
import io.sqe.write.dml.SqlTrees;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.ReplaceViewVersion;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewBuilder;
import org.apache.iceberg.view.ViewProperties;
import org.apache.iceberg.view.ViewRepresentation;
import org.apache.iceberg.view.ViewVersion;

/**
 * CREATE VIEW, DROP VIEW, ALTER VIEW ... RENAME TO, COMMENT ON VIEW and COMMENT ON COLUMN of a
 * view, as Iceberg views in the catalog. A view keeps its
 * query as SQE SQL (dialect {@value #DIALECT}) with the session's catalog and schema as its
 * defaults for unqualified names, and the query's columns as its schema.
 */
final class ViewStatements {
  /** The dialect name of SQE's SQL in an Iceberg view's representations. */
  static final String DIALECT = "sqe";

  /** Calcite's names for unnamed expressions in a select list. */
  private static final Pattern GENERATED_NAME = Pattern.compile("EXPR\\$\\d+");

  private ViewStatements() {}

  static PreparedCommand create(CommandContext context, SqlCreateView create) {
    ObjectName name = Names.checkNew(Names.object(context, create.name()), "view");
    ViewCatalog views = views(name);
    if (!name.catalog().schemaExists(name.schema())) {
      throw TableStatements.schemaNotFound(name);
    }
    // Written before planning: validation rewrites the tree it validates.
    String sql = SqlDialect.toSql(create.query());
    QueryShape prepared = describeAtPrepare(context, create.query(), sql);
    Schema preparedSchema = viewSchema(create, prepared);
    String defaultCatalog = context.session().catalog();
    Namespace defaultNamespace =
        context.session().schema() == null ? name.namespace() : Namespace.of(context.session().schema());
    return (ctx, parameters) -> {
      try {
        if (!name.catalog().schemaExists(name.schema())) {
          throw TableStatements.schemaNotFound(name);
        }
        if (name.catalog().iceberg().tableExists(name.id())) {
          throw error(ErrorCode.ALREADY_EXISTS, "A table named '" + name.qualified() + "' already exists", create.name());
        }
        Schema schema = currentSchema(ctx, create, sql, prepared, preparedSchema);
        View previous = null;
        if (views.viewExists(name.id())) {
          if (!create.getReplace()) {
            return existing(create, name);
          }
          previous = views.loadView(name.id());
          checkNotMaterialized(previous, name, create.name());
          checkDialectsKept(previous, name, create.name());
          if (sameDefinition(previous, schema, sql, defaultCatalog, defaultNamespace, create.comment())) {
            return CommandResult.rows(0);
          }
        }
        ViewBuilder builder =
            views.buildView(name.id())
                .withSchema(schema)
                .withQuery(DIALECT, sql)
                .withDefaultCatalog(defaultCatalog)
                .withDefaultNamespace(defaultNamespace);
        if (create.comment() != null) {
          builder = builder.withProperty(ViewProperties.COMMENT, create.comment());
        }
        View view = create.getReplace() ? builder.createOrReplace() : builder.create();
        if (previous != null && create.comment() == null && view.properties().containsKey(ViewProperties.COMMENT)) {
          // A replaced view is a new definition; Iceberg would carry the old comment over.
          view.updateProperties().remove(ViewProperties.COMMENT).commit();
        }
      } catch (AlreadyExistsException e) {
        return existing(create, name);
      } catch (NoSuchNamespaceException e) {
        throw TableStatements.schemaNotFound(name);
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, create.name());
      }
      return CommandResult.rows(0);
    };
  }

  private static CommandResult existing(SqlCreateView create, ObjectName name) {
    if (create.ifNotExists) {
      return CommandResult.rows(0);
    }
    throw error(ErrorCode.ALREADY_EXISTS, "View '" + name.qualified() + "' already exists", create.name());
  }

  /**
   * Whether {@code view} already is what a replacement would make it: the same SQE SQL and no
   * other dialect's, the same columns, defaults and comment. dbt replaces every view on every run;
   * committing nothing then saves a metadata file per view and keeps the view's metadata, and so
   * whatever was built over it, unchanged.
   */
  private static boolean sameDefinition(
      View view, Schema schema, String sql, String defaultCatalog, Namespace defaultNamespace, String comment) {
    ViewVersion current = view.currentVersion();
    return current.representations().size() == 1
        && current.representations().get(0) instanceof SQLViewRepresentation representation
        && representation.dialect().equals(DIALECT)
        && representation.sql().equals(sql)
        && view.schema().sameSchema(schema)
        && Objects.equals(current.defaultCatalog(), defaultCatalog)
        && defaultNamespace.equals(current.defaultNamespace())
        && Objects.equals(view.properties().get(ViewProperties.COMMENT), comment);
  }

  /** A materialized view is replaced or dropped with its storage table, by its own statements. */
  private static void checkNotMaterialized(View view, ObjectName name, SqlNode at) {
    if (MaterializedViews.isMaterialized(view)) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "'" + name.qualified() + "' is a materialized view; use CREATE OR REPLACE MATERIALIZED VIEW or DROP MATERIALIZED VIEW",
          at);
    }
  }

  /** Iceberg refuses a replacement that drops another engine's SQL; say why in SQL terms. */
  private static void checkDialectsKept(View previous, ObjectName name, SqlNode at) {
    if (Boolean.parseBoolean(previous.properties().getOrDefault(ViewProperties.REPLACE_DROP_DIALECT_ALLOWED, "false"))) {
      return;
    }
    List<String> others = new ArrayList<>();
    for (ViewRepresentation representation : previous.currentVersion().representations()) {
      if (representation instanceof SQLViewRepresentation) {
        String dialect = ((SQLViewRepresentation) representation).dialect();
        if (!dialect.equalsIgnoreCase(DIALECT)) {
          others.add(dialect);
        }
      }
    }
    if (!others.isEmpty()) {
      throw error(
          ErrorCode.FAILED_PRECONDITION,
          "View '" + name.qualified() + "' also has " + String.join(", ", others)
              + " SQL, which replacing it with SQE SQL would drop; drop the view first to replace it",
          at);
    }
  }

  /**
   * The query's shape when the statement is prepared, from the tables as the catalogs' table cache
   * has them; when that fails, from the catalogs themselves, in case the cache predates another
   * engine's change the query needs. Execution checks the shape against fresh loads.
   */
  private static QueryShape describeAtPrepare(CommandContext context, SqlNode query, String sql) {
    try {
      // A copy: validation rewrites the tree it validates, and errors point into the statement.
      return context.queries().describe(context.session(), SqlTrees.copy(query), sql);
    } catch (SqeException e) {
      context.catalogs().all().forEach(LakehouseCatalog::invalidateAll);
      return context.queries().describe(context.session(), query, sql);
    }
  }

  /**
   * The view's columns as the catalogs have them now, since they are stored: those found at
   * prepare when every table the query read (also through other views) loads afresh with the same
   * identity and schema and every view and policy verdict is as it was, else the query's described
   * again from fresh loads. dbt replaces each view on every run, and validating its query twice took
   * most of the statement.
   */
  private static Schema currentSchema(
      CommandContext context, SqlCreateView create, String sql, QueryShape prepared, Schema preparedSchema) {
    PlanReads reads = prepared.reads();
    if (reads.planCacheable()) {
      for (PlanReads.TableRead table : reads.tables()) {
        context.catalogs().find(table.catalog()).ifPresent(catalog -> catalog.invalidate(table.id()));
      }
      if (context.queries().stillCurrent(context.session(), reads)) {
        return preparedSchema;
      }
    }
    context.catalogs().all().forEach(LakehouseCatalog::invalidateAll);
    return viewSchema(create, context.queries().describe(context.session(), SqeParser.parse(sql), sql));
  }

  /** The view's columns: the query's, under the names of the column list if there is one. */
  private static Schema viewSchema(SqlCreateView create, QueryShape plan) {
    if (!plan.parameterTypes().isEmpty()) {
      throw error(ErrorCode.INVALID_ARGUMENT, "The query of a view cannot have parameters", create.query());
    }
    List<RelDataTypeField> fields = plan.resultType().getFieldList();
    List<String> names = new ArrayList<>();
    if (!create.columns().isEmpty()) {
      if (create.columns().size() != fields.size()) {
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "The view lists " + create.columns().size() + " column names but its query returns " + fields.size() + " columns",
            create.columns());
      }
      Set<String> seen = new HashSet<>();
      for (SqlNode node : create.columns()) {
        SqlIdentifier column = (SqlIdentifier) node;
        if (!seen.add(column.getSimple().toLowerCase(Locale.ROOT))) {
          throw error(ErrorCode.INVALID_ARGUMENT, "Duplicate column name '" + column.getSimple() + "'", column);
        }
        names.add(column.getSimple());
      }
    } else {
      for (int i = 0; i < fields.size(); i++) {
        String column = fields.get(i).getName();
        if (GENERATED_NAME.matcher(column).matches()) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "Column " + (i + 1) + " of the view's query has no name: name it with AS, or list the view's column names",
              create.query());
        }
        names.add(column);
      }
    }
    SqeJavaTypeFactory typeFactory = new SqeJavaTypeFactory();
    List<RelDataType> types = new ArrayList<>();
    for (RelDataTypeField field : fields) {
      // A column that is only ever NULL (select null as x) has no type Iceberg can store; it is a
      // nullable VARCHAR, which every engine reading the view understands.
      types.add(field.getType().getSqlTypeName() == SqlTypeName.NULL
          ? typeFactory.createTypeWithNullability(typeFactory.createSqlType(SqlTypeName.VARCHAR), true)
          : field.getType());
    }
    RelDataType rowType = typeFactory.createStructType(types, names);
    try {
      return CalciteTypeMapping.toIcebergSchema(rowType);
    } catch (UnsupportedTypeException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "The view cannot store its query's columns: " + e.getMessage(), create.query());
    }
  }

  static PreparedCommand drop(CommandContext context, SqlDropView drop) {
    ObjectName name = Names.object(context, drop.name());
    ViewCatalog views = views(name);
    if (!drop.ifExists && !views.viewExists(name.id())) {
      throw notFound(name);
    }
    return (ctx, parameters) -> {
      try {
        if (views.viewExists(name.id())) {
          checkNotMaterialized(views.loadView(name.id()), name, drop.name());
        }
        if (!views.dropView(name.id()) && !drop.ifExists) {
          throw notFound(name);
        }
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, drop.name());
      }
      return CommandResult.rows(0);
    };
  }

  static PreparedCommand comment(CommandContext context, SqlCommentOn comment) {
    ObjectName name = Names.object(context, comment.objectName());
    ViewCatalog views = views(name);
    if (!views.viewExists(name.id())) {
      throw notFound(name);
    }
    return (ctx, parameters) -> {
      try {
        if (!views.viewExists(name.id())) {
          throw notFound(name);
        }
        View view = views.loadView(name.id());
        if (comment.comment() == null) {
          view.updateProperties().remove(ViewProperties.COMMENT).commit();
        } else {
          view.updateProperties().set(ViewProperties.COMMENT, comment.comment()).commit();
        }
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, comment.name());
      }
      return CommandResult.rows(0);
    };
  }

  /** Whether the table or view a COMMENT ON COLUMN names is a view (and not a table). */
  static boolean commentsOnViewColumn(CommandContext context, SqlCommentOn comment) {
    ObjectName name = Names.object(context, comment.objectName());
    return !name.catalog().iceberg().tableExists(name.id()) && TableCommits.isView(name);
  }

  /**
   * COMMENT ON COLUMN of a view: a new version of the view whose schema has the column's new doc,
   * with every SQL representation, default catalog and namespace of the current one kept.
   */
  static PreparedCommand commentOnColumn(CommandContext context, SqlCommentOn comment) {
    ObjectName name = Names.object(context, comment.objectName());
    ViewCatalog views = views(name);
    String column = comment.column();
    if (!views.viewExists(name.id())) {
      throw notFound(name);
    }
    viewColumn(views.loadView(name.id()).schema(), name, column, comment.name());
    return (ctx, parameters) -> {
      try {
        View view = views.loadView(name.id());
        Schema schema = view.schema();
        Types.NestedField field = viewColumn(schema, name, column, comment.name());
        List<Types.NestedField> columns = new ArrayList<>();
        for (Types.NestedField f : schema.columns()) {
          columns.add(f.fieldId() == field.fieldId() ? Types.NestedField.from(f).withDoc(comment.comment()).build() : f);
        }
        ViewVersion current = view.currentVersion();
        ReplaceViewVersion replace =
            view.replaceVersion()
                .withSchema(new Schema(columns, schema.identifierFieldIds()))
                .withDefaultCatalog(current.defaultCatalog())
                .withDefaultNamespace(current.defaultNamespace());
        for (ViewRepresentation representation : current.representations()) {
          if (representation instanceof SQLViewRepresentation) {
            SQLViewRepresentation sql = (SQLViewRepresentation) representation;
            replace = replace.withQuery(sql.dialect(), sql.sql());
          }
        }
        replace.commit();
      } catch (NoSuchViewException e) {
        throw notFound(name);
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, comment.name());
      } finally {
        name.catalog().invalidate(name.id());
      }
      return CommandResult.rows(0);
    };
  }

  private static Types.NestedField viewColumn(Schema schema, ObjectName view, String column, SqlNode at) {
    Types.NestedField field = schema.findField(column);
    if (field == null) {
      field = schema.caseInsensitiveFindField(column);
    }
    if (field == null) {
      throw error(ErrorCode.NOT_FOUND, "Column '" + column + "' does not exist in view '" + view.qualified() + "'", at);
    }
    return field;
  }

  /**
   * ALTER VIEW ... RENAME TO: a bare new name keeps the view in its schema, a qualified one may
   * move it to another schema of the same catalog.
   */
  static PreparedCommand rename(CommandContext context, SqlAlterViewRename rename) {
    ObjectName name = Names.object(context, rename.name());
    ViewCatalog views = views(name);
    ObjectName target = Names.checkNew(
        rename.newName().isSimple()
            ? new ObjectName(name.catalog(), TableIdentifier.of(name.namespace(), rename.newName().getSimple()), rename.newName())
            : Names.object(context, rename.newName()),
        "view");
    if (target.catalog() != name.catalog()) {
      throw error(
          ErrorCode.NOT_SUPPORTED,
          "Cannot rename view '" + name.qualified() + "' into another catalog, '" + target.catalog().name() + "'",
          rename.newName());
    }
    if (!rename.ifExists && !views.viewExists(name.id())) {
      throw notFound(name);
    }
    checkRenameTarget(views, target);
    return (ctx, parameters) -> {
      try {
        if (!views.viewExists(name.id())) {
          if (rename.ifExists) {
            return CommandResult.rows(0);
          }
          throw notFound(name);
        }
        checkRenameTarget(views, target);
        views.renameView(name.id(), target.id());
      } catch (NoSuchViewException e) {
        if (rename.ifExists) {
          return CommandResult.rows(0);
        }
        throw notFound(name);
      } catch (NoSuchNamespaceException e) {
        throw TableStatements.schemaNotFound(target);
      } catch (AlreadyExistsException e) {
        throw error(ErrorCode.ALREADY_EXISTS, "View '" + target.qualified() + "' already exists", target.node());
      } catch (RuntimeException e) {
        throw DdlErrors.translate(e, rename.newName());
      } finally {
        name.catalog().invalidate(name.id());
        name.catalog().invalidate(target.id());
      }
      return CommandResult.rows(0);
    };
  }

  private static void checkRenameTarget(ViewCatalog views, ObjectName target) {
    if (!target.catalog().schemaExists(target.schema())) {
      throw TableStatements.schemaNotFound(target);
    }
    if (views.viewExists(target.id())) {
      throw error(ErrorCode.ALREADY_EXISTS, "View '" + target.qualified() + "' already exists", target.node());
    }
    if (target.catalog().iceberg().tableExists(target.id())) {
      throw error(ErrorCode.ALREADY_EXISTS, "A table named '" + target.qualified() + "' already exists", target.node());
    }
  }

  static ViewCatalog views(ObjectName name) {
    return name.catalog().views().orElseThrow(() -> error(
        ErrorCode.NOT_SUPPORTED, "Catalog '" + name.catalog().name() + "' does not support views", name.node()));
  }

  private static io.sqe.engine.SqeException notFound(ObjectName name) {
    String hint = name.catalog().iceberg().tableExists(name.id()) ? "; it is a table" : "";
    return error(ErrorCode.NOT_FOUND, "View '" + name.qualified() + "' does not exist" + hint, name.node());
  }
}
