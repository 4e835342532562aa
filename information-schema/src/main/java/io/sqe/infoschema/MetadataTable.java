package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ProjectableFilterableTable;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * An information_schema table of one catalog, as one principal sees it. Calcite hands its scan the
 * statement's conditions and the columns it reads: conditions on the catalog, schema and table name
 * columns decide what is asked of the catalog, and relations are only loaded when a column that
 * needs their details is read.
 */
abstract class MetadataTable extends AbstractTable implements ProjectableFilterableTable {
  /** What a name column holds, for the conditions on it. */
  enum Role {
    CATALOG,
    SCHEMA,
    TABLE,
    TABLE_TYPE,
    NONE
  }

  /** One column of the table. */
  record Column(String name, SqlTypeName type, boolean nullable, Role role) {
    static Column name(String name, Role role) {
      return new Column(name, SqlTypeName.VARCHAR, false, role);
    }

    static Column text(String name, boolean nullable) {
      return new Column(name, SqlTypeName.VARCHAR, nullable, Role.NONE);
    }

    static Column of(String name, SqlTypeName type, boolean nullable) {
      return new Column(name, type, nullable, Role.NONE);
    }
  }

  /** The columns that name a relation, table_catalog, table_schema and table_name, then {@code more}. */
  static List<Column> relationColumns(Column... more) {
    List<Column> columns = new ArrayList<>(List.of(
        Column.name("table_catalog", Role.CATALOG), Column.name("table_schema", Role.SCHEMA), Column.name("table_name", Role.TABLE)));
    columns.addAll(List.of(more));
    return columns;
  }

  /** Fractional second digits of the timestamp columns. */
  private static final int MICROSECONDS = 6;

  protected final LakehouseCatalog catalog;
  protected final Principal principal;
  protected final CatalogMetadata metadata;
  private final List<Column> columns;

  MetadataTable(LakehouseCatalog catalog, Principal principal, CatalogMetadata metadata, List<Column> columns) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.principal = requireNonNull(principal, "principal is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.columns = List.copyOf(columns);
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataTypeFactory.Builder row = typeFactory.builder();
    for (Column column : columns) {
      RelDataType type = column.type() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
          ? typeFactory.createSqlType(column.type(), MICROSECONDS)
          : typeFactory.createSqlType(column.type());
      row.add(column.name(), typeFactory.createTypeWithNullability(type, column.nullable()));
    }
    return row.build();
  }

  @Override
  public Schema.TableType getJdbcTableType() {
    return Schema.TableType.SYSTEM_TABLE;
  }

  @Override
  public Enumerable<Object[]> scan(DataContext root, List<RexNode> filters, int[] projects) {
    return Request.scan(columns, root, filters, projects, RelationType::sqlName, this::rows);
  }

  /** Every row the request's conditions may accept, each with a value for every column. */
  abstract List<Object[]> rows(Request request);

  /** The visible relations of the given types that the request's name conditions may accept. */
  List<Relation> relations(Request request, Set<RelationType> types) {
    if (!request.filter(Role.CATALOG).accepts(catalog.name())) {
      return List.of();
    }
    return metadata.relations(catalog, principal, request.filter(Role.SCHEMA), request.filter(Role.TABLE), types);
  }

  /** Epoch milliseconds as the engine's microsecond timestamp. */
  static Long micros(Long millis) {
    return millis == null ? null : millis * 1000;
  }
}
