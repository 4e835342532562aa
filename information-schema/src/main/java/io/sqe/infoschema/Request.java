package io.sqe.infoschema;

import io.sqe.infoschema.MetadataTable.Column;
import io.sqe.infoschema.MetadataTable.Role;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rex.RexNode;

/**
 * One scan of a metadata table ({@code information_schema}, {@code system.jdbc}, {@code system.metadata}):
 * the conditions Calcite pushed and the columns it reads.
 */
final class Request {
  private final List<Column> columns;
  private final PushedFilters filters;
  private final BitSet read;
  private final Function<RelationType, String> typeName;

  /**
   * @param projects the columns the scan returns, in order; null for all
   * @param typeName how the table names a relation type in its table type column
   */
  private Request(List<Column> columns, PushedFilters filters, int[] projects, Function<RelationType, String> typeName) {
    this.columns = columns;
    this.filters = filters;
    this.typeName = typeName;
    this.read = new BitSet();
    if (projects == null) {
      read.set(0, columns.size());
    } else {
      for (int project : projects) {
        read.set(project);
      }
    }
  }

  /**
   * Scans a table of {@code columns}: its rows for the request, each with a value for every column,
   * returned as the columns {@code projects} asks for (null: all).
   */
  static Enumerable<Object[]> scan(
      List<Column> columns,
      DataContext root,
      List<RexNode> filters,
      int[] projects,
      Function<RelationType, String> typeName,
      Function<Request, List<Object[]>> rows) {
    List<Object[]> all = rows.apply(new Request(columns, new PushedFilters(filters, root), projects, typeName));
    if (projects == null) {
      return Linq4j.asEnumerable(all);
    }
    List<Object[]> projected = new ArrayList<>(all.size());
    for (Object[] row : all) {
      Object[] values = new Object[projects.length];
      for (int i = 0; i < projects.length; i++) {
        values[i] = row[projects[i]];
      }
      projected.add(values);
    }
    return Linq4j.asEnumerable(projected);
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

  /** The relation types the conditions on the table type column may accept, by the table's names for them. */
  Set<RelationType> types() {
    NameFilter filter = filter(Role.TABLE_TYPE);
    Set<RelationType> types = EnumSet.noneOf(RelationType.class);
    for (RelationType type : RelationType.values()) {
      if (filter.accepts(typeName.apply(type))) {
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
