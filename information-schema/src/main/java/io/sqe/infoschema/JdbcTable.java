package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import io.sqe.infoschema.MetadataTable.Column;
import io.sqe.infoschema.MetadataTable.Role;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ProjectableFilterableTable;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * A table of Trino's {@code system.jdbc} schema, which Trino's JDBC driver reads for its
 * DatabaseMetaData: the same objects as information_schema, across every catalog, with the
 * column names and values JDBC defines ({@code TABLE_CAT}, {@code DATA_TYPE} as a {@code
 * java.sql.Types} code, ...). Conditions on the catalog, schema and table name columns decide what
 * is asked of the catalogs, as in information_schema.
 */
abstract class JdbcTable extends AbstractTable implements ProjectableFilterableTable {
  protected final Catalogs catalogs;
  protected final Principal principal;
  protected final CatalogMetadata metadata;
  private final List<Column> columns;

  JdbcTable(Catalogs catalogs, Principal principal, CatalogMetadata metadata, List<Column> columns) {
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.principal = requireNonNull(principal, "principal is null");
    this.metadata = requireNonNull(metadata, "metadata is null");
    this.columns = List.copyOf(columns);
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataTypeFactory.Builder row = typeFactory.builder();
    for (Column column : columns) {
      row.add(column.name(), typeFactory.createTypeWithNullability(typeFactory.createSqlType(column.type()), column.nullable()));
    }
    return row.build();
  }

  @Override
  public Schema.TableType getJdbcTableType() {
    return Schema.TableType.SYSTEM_TABLE;
  }

  @Override
  public Enumerable<Object[]> scan(DataContext root, List<RexNode> filters, int[] projects) {
    return Request.scan(columns, root, filters, projects, RelationType::flightName, this::rows);
  }

  /** Every row the request's conditions may accept, each with a value for every column. */
  abstract List<Object[]> rows(Request request);

  /** The catalogs whose names the request's catalog conditions may accept. */
  List<LakehouseCatalog> catalogs(Request request) {
    NameFilter names = request.filter(Role.CATALOG);
    return catalogs.all().stream().filter(catalog -> names.accepts(catalog.name())).toList();
  }

  /** The visible relations of the types the request may accept, in every catalog it may accept. */
  List<Relation> relations(Request request) {
    List<Relation> relations = new ArrayList<>();
    for (LakehouseCatalog catalog : catalogs(request)) {
      relations.addAll(metadata.relations(catalog, principal, request.filter(Role.SCHEMA), request.filter(Role.TABLE), request.types()));
    }
    return relations;
  }
}
