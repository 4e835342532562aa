package io.sqe.bench;

import java.util.List;

/**
 * A query result as normalised Java values (see {@link ResultValues}), row by row.
 *
 * @param rows the rows in the order the engine returned them
 * @param prepareNanos time until the engine started returning rows, where it says (SQE: the
 *     GetFlightInfo call, which parses, plans and compiles the query); -1 where it does not
 */
record ResultRows(List<List<Object>> rows, long prepareNanos) {
  ResultRows {
    rows = List.copyOf(rows);
  }

  int size() {
    return rows.size();
  }
}
