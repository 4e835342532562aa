package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * What an expression may refer to where it stands: the columns (or, in a grouped query, the
 * grouping keys) it may name, the rows an aggregate would fold (null where aggregates are not
 * allowed), and whether window functions are allowed.
 */
record Scope(List<Column> columns, List<Column> aggregateInput, boolean windows) {
  /** A column, or a grouping key, with the SQL that names it. */
  record Column(String sql, FuzzType type) {
    Column {
      requireNonNull(sql, "sql is null");
      requireNonNull(type, "type is null");
    }
  }

  static final Scope EMPTY = new Scope(List.of(), null, false);

  Scope {
    columns = List.copyOf(columns);
    aggregateInput = aggregateInput == null ? null : List.copyOf(aggregateInput);
  }

  /** A scope over plain rows: no aggregates, no windows. */
  static Scope rows(List<Column> columns) {
    return new Scope(columns, null, false);
  }

  /** This scope with the columns of a sub-query's own tables added (a correlated sub-query sees both). */
  Scope inner(List<Column> own) {
    List<Column> all = new ArrayList<>(own);
    all.addAll(columns);
    return rows(all);
  }

  List<Column> ofType(FuzzType type) {
    return columns.stream().filter(c -> c.type().equals(type)).toList();
  }
}
