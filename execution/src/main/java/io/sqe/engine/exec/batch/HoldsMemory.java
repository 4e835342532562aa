package io.sqe.engine.exec.batch;

/** An operator with an allocator of its own (a hash table's, say), whose peak its figures show. */
public interface HoldsMemory {
  /** The peak of the operator's own allocator so far. */
  long peakMemoryBytes();
}
