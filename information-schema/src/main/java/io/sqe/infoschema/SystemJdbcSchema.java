package io.sqe.infoschema;

import static io.sqe.infoschema.MetadataTable.Column.of;
import static io.sqe.infoschema.MetadataTable.Column.text;
import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.catalog.types.ArrowTypeMapping;
import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.TrinoType;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.infoschema.MetadataTable.Column;
import io.sqe.infoschema.MetadataTable.Role;
import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.types.Types;

/**
 * Trino's {@code system.jdbc} schema, in the {@code system} catalog: the tables Trino's JDBC driver
 * reads for its DatabaseMetaData ({@code catalogs}, {@code schemas}, {@code tables}, {@code
 * table_types}, {@code columns}, {@code types}), showing what the session's principal may see of
 * every catalog, and the empty ones it reads for what SQE does not have (procedures, user-defined
 * types, super types and tables, attributes, pseudo columns).
 */
final class SystemJdbcSchema implements SystemSchema {
  static final String NAME = "jdbc";

  private final CatalogMetadata metadata;
  private final Catalogs catalogs;

  SystemJdbcSchema(CatalogMetadata metadata, Catalogs catalogs) {
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean inSystemCatalog() {
    return true;
  }

  @Override
  public Schema schema(LakehouseCatalog catalog, Session session) {
    Principal principal = session.principal();
    Map<String, Table> tables = new LinkedHashMap<>();
    tables.put("catalogs", new CatalogsTable(catalogs, principal, metadata));
    tables.put("schemas", new SchemasTable(catalogs, principal, metadata));
    tables.put("tables", new TablesTable(catalogs, principal, metadata));
    tables.put("table_types", new TableTypesTable(catalogs, principal, metadata));
    tables.put("columns", new ColumnsTable(catalogs, principal, metadata));
    tables.put("types", new TypesTable(catalogs, principal, metadata));
    tables.put("procedures", empty(principal, text("procedure_cat", true), text("procedure_schem", true), text("procedure_name", false),
        text("remarks", true), of("procedure_type", SqlTypeName.BIGINT, true), text("specific_name", true)));
    tables.put("procedure_columns", empty(principal, text("procedure_cat", true), text("procedure_schem", true),
        text("procedure_name", false), text("column_name", false), of("column_type", SqlTypeName.BIGINT, true),
        of("data_type", SqlTypeName.BIGINT, true), text("type_name", true), of("precision", SqlTypeName.BIGINT, true),
        of("length", SqlTypeName.BIGINT, true), of("scale", SqlTypeName.BIGINT, true), of("radix", SqlTypeName.BIGINT, true),
        of("nullable", SqlTypeName.BIGINT, true), text("remarks", true), text("column_def", true),
        of("sql_data_type", SqlTypeName.BIGINT, true), of("sql_datetime_sub", SqlTypeName.BIGINT, true),
        of("char_octet_length", SqlTypeName.BIGINT, true), of("ordinal_position", SqlTypeName.BIGINT, true),
        text("is_nullable", true), text("specific_name", true)));
    tables.put("udts", empty(principal, text("type_cat", true), text("type_schem", true), text("type_name", false),
        text("class_name", true), of("data_type", SqlTypeName.BIGINT, true), text("remarks", true),
        of("base_type", SqlTypeName.BIGINT, true)));
    tables.put("super_types", empty(principal, text("type_cat", true), text("type_schem", true), text("type_name", false),
        text("supertype_cat", true), text("supertype_schem", true), text("supertype_name", true)));
    tables.put("super_tables", empty(principal, text("table_cat", true), text("table_schem", true), text("table_name", false),
        text("supertable_name", true)));
    tables.put("attributes", empty(principal, text("type_cat", true), text("type_schem", true), text("type_name", false),
        text("attr_name", false), of("data_type", SqlTypeName.BIGINT, true), text("attr_type_name", true),
        of("attr_size", SqlTypeName.BIGINT, true), of("decimal_digits", SqlTypeName.BIGINT, true),
        of("num_prec_radix", SqlTypeName.BIGINT, true), of("nullable", SqlTypeName.BIGINT, true), text("remarks", true),
        text("attr_def", true), of("sql_data_type", SqlTypeName.BIGINT, true), of("sql_datetime_sub", SqlTypeName.BIGINT, true),
        of("char_octet_length", SqlTypeName.BIGINT, true), of("ordinal_position", SqlTypeName.BIGINT, true),
        text("is_nullable", true), text("scope_catalog", true), text("scope_schema", true), text("scope_table", true),
        of("source_data_type", SqlTypeName.BIGINT, true)));
    tables.put("pseudo_columns", empty(principal, text("table_cat", true), text("table_schem", true), text("table_name", false),
        text("column_name", false), of("data_type", SqlTypeName.BIGINT, true), of("column_size", SqlTypeName.BIGINT, true),
        of("decimal_digits", SqlTypeName.BIGINT, true), of("num_prec_radix", SqlTypeName.BIGINT, true),
        text("column_usage", true), text("remarks", true), of("char_octet_length", SqlTypeName.BIGINT, true),
        text("is_nullable", true)));
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        return tables;
      }
    };
  }

  private JdbcTable empty(Principal principal, Column... columns) {
    return new JdbcTable(catalogs, principal, metadata, List.of(columns)) {
      @Override
      List<Object[]> rows(Request request) {
        return List.of();
      }
    };
  }

  /** system.jdbc.catalogs: TABLE_CAT of every catalog. */
  private static final class CatalogsTable extends JdbcTable {
    CatalogsTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(Column.name("table_cat", Role.CATALOG)));
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      for (LakehouseCatalog catalog : catalogs(request)) {
        rows.add(new Object[] {catalog.name()});
      }
      return rows;
    }
  }

  /** system.jdbc.schemas: TABLE_SCHEM, TABLE_CATALOG of the visible schemas, information_schema among them as in Trino. */
  private static final class SchemasTable extends JdbcTable {
    SchemasTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(Column.name("table_schem", Role.SCHEMA), Column.name("table_catalog", Role.CATALOG)));
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      NameFilter schemas = request.filter(Role.SCHEMA);
      for (LakehouseCatalog catalog : catalogs(request)) {
        List<String> names = new ArrayList<>();
        if (schemas.accepts(InformationSchema.NAME)) {
          names.add(InformationSchema.NAME);
        }
        for (SchemaRef schema : metadata.schemas(catalog, principal, schemas)) {
          names.add(schema.name());
        }
        names.stream().sorted().forEach(name -> rows.add(new Object[] {name, catalog.name()}));
      }
      return rows;
    }
  }

  /** system.jdbc.tables: the visible tables (TABLE) and views (VIEW) with their comments. */
  private static final class TablesTable extends JdbcTable {
    TablesTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(
          Column.name("table_cat", Role.CATALOG), Column.name("table_schem", Role.SCHEMA), Column.name("table_name", Role.TABLE),
          Column.name("table_type", Role.TABLE_TYPE), text("remarks", true), text("type_cat", true), text("type_schem", true),
          text("type_name", true), text("self_referencing_col_name", true), text("ref_generation", true)));
    }

    @Override
    List<Object[]> rows(Request request) {
      boolean remarks = request.reads("remarks");
      List<Object[]> rows = new ArrayList<>();
      for (Relation relation : relations(request)) {
        Optional<RelationDetails> details = remarks ? relation.details() : Optional.empty();
        rows.add(new Object[] {
          relation.schema().catalogName(), relation.schema().name(), relation.name(), relation.type().flightName(),
          details.map(RelationDetails::comment).orElse(null), null, null, null, null, null
        });
      }
      return rows;
    }
  }

  /** system.jdbc.table_types: TABLE and VIEW. */
  private static final class TableTypesTable extends JdbcTable {
    TableTypesTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(text("table_type", false)));
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      for (RelationType type : RelationType.values()) {
        rows.add(new Object[] {type.flightName()});
      }
      return rows;
    }
  }

  /** system.jdbc.columns: the visible columns of the visible tables and views, with Trino's type names. */
  private static final class ColumnsTable extends JdbcTable {
    ColumnsTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(
          Column.name("table_cat", Role.CATALOG), Column.name("table_schem", Role.SCHEMA), Column.name("table_name", Role.TABLE),
          text("column_name", false), of("data_type", SqlTypeName.BIGINT, false), text("type_name", false),
          of("column_size", SqlTypeName.BIGINT, true), of("buffer_length", SqlTypeName.BIGINT, true),
          of("decimal_digits", SqlTypeName.BIGINT, true), of("num_prec_radix", SqlTypeName.BIGINT, true),
          of("nullable", SqlTypeName.BIGINT, false), text("remarks", true), text("column_def", true),
          of("sql_data_type", SqlTypeName.BIGINT, true), of("sql_datetime_sub", SqlTypeName.BIGINT, true),
          of("char_octet_length", SqlTypeName.BIGINT, true), of("ordinal_position", SqlTypeName.BIGINT, false),
          text("is_nullable", false), text("scope_catalog", true), text("scope_schema", true), text("scope_table", true),
          of("source_data_type", SqlTypeName.BIGINT, true), text("is_autoincrement", false), text("is_generatedcolumn", false)));
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      for (Relation relation : relations(request)) {
        for (ColumnInfo column : metadata.columns(principal, relation).orElse(List.of())) {
          TrinoType type = TrinoType.of(CalciteTypeMapping.toArrow(column.name(), column.sqlType()));
          rows.add(new Object[] {
            relation.schema().catalogName(), relation.schema().name(), relation.name(), column.name(),
            JdbcTypes.dataType(type), type.displayName(), JdbcTypes.columnSize(type), null, JdbcTypes.decimalDigits(type),
            JdbcTypes.radix(type),
            (long) (column.nullable() ? DatabaseMetaData.columnNullable : DatabaseMetaData.columnNoNulls),
            column.comment(), column.defaultValue(), null, null, JdbcTypes.charOctetLength(type), (long) column.ordinalPosition(),
            column.nullable() ? "YES" : "NO", null, null, null, null, "NO", "NO"
          });
        }
      }
      return rows;
    }
  }

  /** system.jdbc.types: the types SQE's tables hold, with Trino's names. */
  private static final class TypesTable extends JdbcTable {
    private static final List<Field> TYPES = List.of(
        field(ArrowType.Bool.INSTANCE),
        field(new ArrowType.Int(32, true)),
        field(new ArrowType.Int(64, true)),
        field(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        field(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        field(new ArrowType.Decimal(38, 0, 128)),
        field(ArrowType.Utf8.INSTANCE),
        field(ArrowType.Binary.INSTANCE),
        field(new ArrowType.Date(DateUnit.DAY)),
        field(new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
        field(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
        field(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        // uuid and the nested types, whose rows Trino lists by their bare names.
        ArrowTypeMapping.toArrow("type", Types.UUIDType.get(), true),
        ArrowTypeMapping.toArrow("type", Types.ListType.ofOptional(1, Types.LongType.get()), true),
        ArrowTypeMapping.toArrow("type", Types.MapType.ofOptional(1, 2, Types.StringType.get(), Types.LongType.get()), true),
        ArrowTypeMapping.toArrow("type", Types.StructType.of(Types.NestedField.optional(1, "x", Types.LongType.get())), true));

    TypesTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata) {
      super(catalogs, principal, metadata, List.of(
          text("type_name", false), of("data_type", SqlTypeName.BIGINT, false), of("precision", SqlTypeName.BIGINT, true),
          text("literal_prefix", true), text("literal_suffix", true), text("create_params", true),
          of("nullable", SqlTypeName.BIGINT, false), of("case_sensitive", SqlTypeName.BOOLEAN, false),
          of("searchable", SqlTypeName.BIGINT, false), of("unsigned_attribute", SqlTypeName.BOOLEAN, true),
          of("fixed_prec_scale", SqlTypeName.BOOLEAN, false), of("auto_increment", SqlTypeName.BOOLEAN, true),
          text("local_type_name", true), of("minimum_scale", SqlTypeName.BIGINT, true), of("maximum_scale", SqlTypeName.BIGINT, true),
          of("sql_data_type", SqlTypeName.BIGINT, true), of("sql_datetime_sub", SqlTypeName.BIGINT, true),
          of("num_prec_radix", SqlTypeName.BIGINT, true)));
    }

    private static Field field(ArrowType type) {
      return Field.nullable("type", type);
    }

    @Override
    List<Object[]> rows(Request request) {
      List<Object[]> rows = new ArrayList<>();
      for (Field field : TYPES) {
        TrinoType type = TrinoType.of(field);
        String name = type.rawType();
        boolean text = name.equals("varchar");
        boolean quoted = text || name.equals("date") || name.startsWith("time");
        rows.add(new Object[] {
          name, JdbcTypes.dataType(type), name.equals("decimal") ? Long.valueOf(38) : name.equals("varchar") ? null : JdbcTypes.columnSize(type),
          quoted ? (text ? "'" : name.toUpperCase(Locale.ROOT) + " '") : null, quoted ? "'" : null,
          name.equals("decimal") ? "precision,scale" : null,
          (long) DatabaseMetaData.typeNullable, text, (long) (text ? DatabaseMetaData.typeSearchable : DatabaseMetaData.typePredBasic),
          JdbcTypes.radix(type) == null ? null : false, name.equals("decimal"), false, null,
          name.equals("decimal") ? 0L : null, name.equals("decimal") ? 38L : null, null, null, JdbcTypes.radix(type)
        });
      }
      return rows;
    }
  }
}
