package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.session.Principal;
import io.sqe.infoschema.MetadataTable.Column;
import io.sqe.infoschema.MetadataTable.Role;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
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
    PushedFilters pushed = new PushedFilters(filters, root);
    BitSet read = new BitSet();
    if (projects == null) {
      read.set(0, columns.size());
    } else {
      for (int project : projects) {
        read.set(project);
      }
    }
    List<Object[]> rows = rows(new Request(pushed, read));
    if (projects == null) {
      return Linq4j.asEnumerable(rows);
    }
    List<Object[]> projected = new ArrayList<>(rows.size());
    for (Object[] row : rows) {
      Object[] values = new Object[projects.length];
      for (int i = 0; i < projects.length; i++) {
        values[i] = row[projects[i]];
      }
      projected.add(values);
    }
    return Linq4j.asEnumerable(projected);
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

  /** One scan: the conditions Calcite pushed and the columns it reads. */
  final class Request {
    private final PushedFilters filters;
    private final BitSet read;

    Request(PushedFilters filters, BitSet read) {
      this.filters = filters;
      this.read = read;
    }

    /** The names that the conditions on every column of the role may accept. */
    NameFilter filter(Role role) {
      NameFilter filter = NameFilter.ANY;
      for (int i = 0; i < columns.size(); i++) {
        if (columns.get(i).role() == role) {
          filter = filter.and(filters.on(i));
        }
      }
      return filter;
    }

    /** The relation types the conditions on the table type column may accept, by their JDBC names. */
    Set<RelationType> types() {
      NameFilter filter = filter(Role.TABLE_TYPE);
      Set<RelationType> types = EnumSet.noneOf(RelationType.class);
      for (RelationType type : RelationType.values()) {
        if (filter.accepts(type.flightName())) {
          types.add(type);
        }
      }
      return types;
    }

    /** Whether the statement reads any of the columns. */
    boolean reads(String... names) {
      for (String name : names) {
        for (int i = 0; i < columns.size(); i++) {
          if (columns.get(i).name().equals(name) && read.get(i)) {
            return true;
          }
        }
      }
      return false;
    }
  }
}
