package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.TrinoType;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.ddl.SqlShow;
import io.sqe.engine.plan.MaterializedViews;
import io.sqe.engine.sql.ddl.SqlShowCreate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.view.View;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlDescribeTable;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * The SHOW statements of Trino's SQL and its clients (the Trino CLI, DBeaver), with Trino's
 * columns and type names: {@code SHOW CATALOGS}, {@code SHOW SCHEMAS [FROM catalog]}, {@code SHOW
 * TABLES [FROM [catalog.]schema]}, {@code SHOW COLUMNS FROM table} and {@code DESCRIBE table}, each
 * listing what the principal may see, {@code SHOW CREATE TABLE|VIEW|SCHEMA} in SQE's DDL, {@code
 * SHOW FUNCTIONS} and {@code SHOW SESSION}; LIKE narrows the names. They answer with rows, as a
 * query does.
 */
public final class ShowStatements implements CommandExecutor {
  private final CatalogMetadata metadata;

  public ShowStatements(CatalogMetadata metadata) {
    this.metadata = requireNonNull(metadata, "metadata is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (statement instanceof SqlDescribeTable) {
      SqlDescribeTable describe = (SqlDescribeTable) statement;
      if (describe.getColumn() != null) {
        throw error(ErrorCode.NOT_SUPPORTED, "DESCRIBE of one column is not supported; use SHOW COLUMNS FROM table LIKE 'column'",
            describe.getColumn().getParserPosition());
      }
      return Optional.of(columns(describe.getTable(), null));
    }
    if (statement instanceof SqlShowCreate) {
      SqlShowCreate show = (SqlShowCreate) statement;
      return Optional.of(showCreate(show));
    }
    if (!(statement instanceof SqlShow)) {
      return Optional.empty();
    }
    SqlShow show = (SqlShow) statement;
    switch (show.kind()) {
      case CATALOGS:
        return Optional.of(report(schema("Catalog"), c -> catalogs(c, show.like())));
      case SCHEMAS:
        return Optional.of(report(schema("Schema"), c -> schemas(c, show.from(), show.like())));
      case TABLES:
        return Optional.of(report(schema("Table"), c -> tables(c, show.from(), show.like())));
      case COLUMNS:
        return Optional.of(columns(show.from(), show.like()));
      case SESSION:
        return Optional.of(report(schema("Name", "Value", "Default", "Type", "Description"), c -> session(c.session(), show.like())));
      case FUNCTIONS:
        return Optional.of(report(
            new Schema(List.of(text("Function"), text("Return Type"), text("Argument Types"), text("Function Type"),
                new Field("Deterministic", FieldType.notNullable(ArrowType.Bool.INSTANCE), List.of()), text("Description"))),
            c -> functions(show.like())));
      default:
        // SHOW QUERIES is the engine's own.
        return Optional.empty();
    }
  }

  private static List<Object[]> catalogs(CommandContext context, String like) {
    List<Object[]> rows = new ArrayList<>();
    for (LakehouseCatalog catalog : context.catalogs().all()) {
      if (matches(like, catalog.name())) {
        rows.add(new Object[] {catalog.name()});
      }
    }
    return rows;
  }

  private List<Object[]> schemas(CommandContext context, SqlIdentifier from, String like) {
    LakehouseCatalog catalog = catalog(context, from == null ? context.session().catalog() : from.names.get(0), from);
    List<String> names = new ArrayList<>();
    // As in Trino, information_schema is listed with the catalog's schemas.
    names.add(InformationSchema.NAME);
    for (SchemaRef schema : metadata.schemas(catalog, context.session().principal(), like == null ? NameFilter.ANY : NameFilter.like(like))) {
      names.add(schema.name());
    }
    List<Object[]> rows = new ArrayList<>();
    names.stream().filter(name -> matches(like, name)).sorted().forEach(name -> rows.add(new Object[] {name}));
    return rows;
  }

  private List<Object[]> tables(CommandContext context, SqlIdentifier from, String like) {
    Session session = context.session();
    String catalogName = from != null && from.names.size() == 2 ? from.names.get(0) : session.catalog();
    String schema = from != null ? from.names.get(from.names.size() - 1) : session.schema();
    if (schema == null) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Schema must be specified when session schema is not set");
    }
    LakehouseCatalog catalog = catalog(context, catalogName, from);
    if (!catalog.schemaExists(schema) || !metadata.visibility().canSeeSchema(session.principal(), catalog.name(), schema)) {
      throw error(ErrorCode.NOT_FOUND, "Schema '" + catalog.name() + "." + schema + "' does not exist", from == null ? null : from.getParserPosition());
    }
    List<Object[]> rows = new ArrayList<>();
    for (Relation relation : metadata.relations(catalog, session.principal(), NameFilter.exact(schema),
        like == null ? NameFilter.ANY : NameFilter.like(like), EnumSet.allOf(RelationType.class))) {
      rows.add(new Object[] {relation.name()});
    }
    return rows;
  }

  /** SHOW COLUMNS FROM table and DESCRIBE table: Column, Type (Trino's name), Extra, Comment. */
  private PreparedCommand columns(SqlIdentifier table, String like) {
    return report(schema("Column", "Type", "Extra", "Comment"), context -> {
      Relation relation = relation(context, table);
      List<Object[]> rows = new ArrayList<>();
      for (ColumnInfo column : metadata.columns(context.session().principal(), relation).orElse(List.of())) {
        if (matches(like, column.name())) {
          rows.add(new Object[] {column.name(), trinoType(column), "", column.comment() == null ? "" : column.comment()});
        }
      }
      return rows;
    });
  }

  private PreparedCommand showCreate(SqlShowCreate show) {
    String column = switch (show.objectKind()) {
      case TABLE -> "Create Table";
      case VIEW -> "Create View";
      case MATERIALIZED_VIEW -> "Create Materialized View";
      case SCHEMA -> "Create Schema";
    };
    return report(schema(column), context -> List.<Object[]>of(new Object[] {createStatement(context, show)}));
  }

  private String createStatement(CommandContext context, SqlShowCreate show) {
    if (show.objectKind() == SqlShowCreate.ObjectKind.SCHEMA) {
      List<String> names = show.name().names;
      LakehouseCatalog catalog = catalog(context, names.size() == 2 ? names.get(0) : context.session().catalog(), show.name());
      String schema = names.get(names.size() - 1);
      if (!catalog.schemaExists(schema) || !metadata.visibility().canSeeSchema(context.session().principal(), catalog.name(), schema)) {
        throw error(ErrorCode.NOT_FOUND, "Schema '" + catalog.name() + "." + schema + "' does not exist", show.name().getParserPosition());
      }
      return CreateStatements.schema(catalog, schema);
    }
    Relation relation = relation(context, show.name());
    RelationType expected = show.objectKind() == SqlShowCreate.ObjectKind.TABLE ? RelationType.TABLE : RelationType.VIEW;
    Optional<View> materialized = relation.type() == RelationType.VIEW
        ? MaterializedViews.load(relation.schema().catalog(), relation.id())
        : Optional.empty();
    if (relation.type() == expected && materialized.isPresent() != (show.objectKind() == SqlShowCreate.ObjectKind.MATERIALIZED_VIEW)) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Relation '" + relation.qualifiedName() + "' is a "
          + (materialized.isPresent() ? "materialized view: use SHOW CREATE MATERIALIZED VIEW" : "view, not a materialized view: use SHOW CREATE VIEW"),
          show.name().getParserPosition());
    }
    if (relation.type() != expected) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Relation '" + relation.qualifiedName() + "' is a "
          + (relation.type() == RelationType.VIEW ? "view, not a table: use SHOW CREATE VIEW" : "table, not a view: use SHOW CREATE TABLE"),
          show.name().getParserPosition());
    }
    List<ColumnInfo> columns = metadata.columns(context.session().principal(), relation)
        .orElseThrow(() -> new SqeException(ErrorCode.NOT_FOUND, "Cannot load " + relation.qualifiedName()));
    if (materialized.isPresent()) {
      return CreateStatements.materializedView(relation, materialized.get());
    }
    return expected == RelationType.VIEW
        ? CreateStatements.view(relation, columns)
        : CreateStatements.table(relation, columns, relation.schema().catalog().loadTable(relation.id()).orElseThrow(
            () -> new SqeException(ErrorCode.NOT_FOUND, "Table '" + relation.qualifiedName() + "' does not exist")));
  }

  /** The table or view a name means in the session, if the principal may see it. */
  private Relation relation(CommandContext context, SqlIdentifier name) {
    Session session = context.session();
    List<String> names = name.names;
    String catalogName = names.size() == 3 ? names.get(0) : session.catalog();
    String schema = names.size() >= 2 ? names.get(names.size() - 2) : session.schema();
    String table = names.get(names.size() - 1);
    if (schema == null) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Schema must be specified when session schema is not set", name.getParserPosition());
    }
    LakehouseCatalog catalog = catalog(context, catalogName, name);
    List<Relation> found = metadata.relations(catalog, session.principal(), NameFilter.exact(schema), NameFilter.exact(table),
        EnumSet.allOf(RelationType.class));
    if (found.isEmpty()) {
      throw error(ErrorCode.NOT_FOUND, "Table '" + catalog.name() + "." + schema + "." + table + "' does not exist", name.getParserPosition());
    }
    return found.get(0);
  }

  private static List<Object[]> session(Session session, String like) {
    List<Object[]> rows = new ArrayList<>();
    add(rows, like, "statement_timeout", session.statementTimeout() == null ? "" : DurationText.format(session.statementTimeout()), "",
        "How long a statement may run (30s, 5m, 0 for no limit); none set: the server's query.max-run-time");
    String zone = session.timeZone().equals(ZoneOffset.UTC) ? "UTC" : session.timeZone().getId();
    add(rows, like, "time_zone", zone, "UTC", "The time zone of TIMESTAMP WITH TIME ZONE values");
    return rows;
  }

  private static void add(List<Object[]> rows, String like, String name, String value, String defaultValue, String description) {
    if (matches(like, name)) {
      rows.add(new Object[] {name, value, defaultValue, "varchar", description});
    }
  }

  /** Every function of SQE's SQL by name, with its kind; one row per name. */
  private static List<Object[]> functions(String like) {
    Map<String, Object[]> byName = new TreeMap<>();
    for (SqlOperator operator : SqlDialect.operatorTable().getOperatorList()) {
      if (!(operator instanceof SqlFunction)) {
        continue;
      }
      String name = operator.getName().toLowerCase(Locale.ROOT);
      if (name.isEmpty() || !matches(like, name)) {
        continue;
      }
      String kind = operator instanceof SqlAggFunction ? "aggregate" : operator.requiresOver() ? "window" : "scalar";
      byName.putIfAbsent(name, new Object[] {name, "", "", kind, operator.isDeterministic(), ""});
    }
    return new ArrayList<>(byName.values());
  }

  private static String trinoType(ColumnInfo column) {
    return TrinoType.of(CalciteTypeMapping.toArrow(column.name(), column.sqlType())).displayName();
  }

  private static LakehouseCatalog catalog(CommandContext context, String name, SqlIdentifier at) {
    return context.catalogs().find(name).orElseThrow(() ->
        error(ErrorCode.NOT_FOUND, "Catalog '" + name + "' does not exist", at == null ? null : at.getParserPosition()));
  }

  private static boolean matches(String like, String name) {
    return like == null || LikePattern.of(like).matches(name);
  }

  private static Schema schema(String... columns) {
    List<Field> fields = new ArrayList<>();
    for (String column : columns) {
      fields.add(text(column));
    }
    return new Schema(fields);
  }

  private static Field text(String name) {
    return new Field(name, FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of());
  }

  /** A statement whose result is rows, computed when it runs. */
  private static PreparedCommand report(Schema schema, Function<CommandContext, List<Object[]>> rows) {
    return new PreparedCommand() {
      @Override
      public Optional<Schema> reportSchema() {
        return Optional.of(schema);
      }

      @Override
      public boolean runsInTransaction() {
        return true;
      }

      @Override
      public CommandResult execute(CommandContext context, List<Object> parameters) {
        return CommandResult.report(rows.apply(context));
      }
    };
  }

  private static SqeException error(ErrorCode code, String message, SqlParserPos pos) {
    SqlPosition position = pos != null && pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
    return new SqeException(code, message, position, null);
  }
}
