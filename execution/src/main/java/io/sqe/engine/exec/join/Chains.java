package io.sqe.engine.exec.join;

import org.apache.arrow.memory.BufferAllocator;

/**
 * The build rows of each key of a hash join, as chains: the first row of key {@code id}, and for
 * each row the next row with its key, -1 at the end. Read-only once built.
 */
public final class Chains implements AutoCloseable {
  private final ArrowInts first;
  private final ArrowInts next;
  /** One more than the largest id added. */
  private int ids;

  public Chains(BufferAllocator allocator) {
    this.first = new ArrowInts(allocator, -1);
    this.next = new ArrowInts(allocator, -1);
  }

  /** Puts build row {@code row} at the head of key {@code id}'s chain. */
  public void add(int id, int row) {
    first.ensure(id + 1);
    next.ensure(row + 1);
    next.set(row, first.get(id));
    first.set(id, row);
    ids = Math.max(ids, id + 1);
  }

  /** The first row of key {@code id}, -1 for none (an id of -1 too: a key not found). */
  public int first(int id) {
    return id < 0 || id >= ids ? -1 : first.get(id);
  }

  public int next(int row) {
    return next.get(row);
  }

  @Override
  public void close() {
    try {
      first.close();
    } finally {
      next.close();
    }
  }
}
