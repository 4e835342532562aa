package io.sqe.engine.exec.join;

import org.apache.arrow.vector.VectorSchemaRoot;

/** The build rows each row of a probe batch may join: a hash table's chain of its key, or every row. */
public interface Matches {
  /** Prepares for the rows of {@code batch}, the probe batch the next calls ask about. */
  void probe(VectorSchemaRoot batch);

  /** The first candidate build row of probe row {@code probeRow}, -1 for none. */
  int first(int probeRow);

  /** The candidate after build row {@code buildRow} for the same probe row, -1 at the end. */
  int next(int buildRow);
}
