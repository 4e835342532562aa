package io.sqe.engine.txn;

/**
 * The writes of several statements, staged until they become visible together at {@link #commit}
 * or are discarded by {@link #rollback}. Statements in a transaction read its staged tables; every
 * other reader sees the tables as they were until the commit. The write path implements this, as
 * a {@code TableTransaction} (in the engine module, which knows tables).
 */
public interface Transaction {
  /** An identifier that is hard to guess, which clients use to name the transaction. */
  String id();

  /** The user who began the transaction; statements of other users may not join it. */
  String owner();

  /** Whether statements can still join the transaction: it has neither committed nor rolled back. */
  boolean isOpen();

  /** Changes whenever the staged state changes, so that plans made over an older state can be recognised. */
  long version();


  /**
   * Makes every staged write visible at once, or none of them. A failure (a conflict is
   * FAILED_PRECONDITION) rolls the transaction back; either way it ends.
   */
  void commit();

  /** Discards the staged writes and deletes their files, best effort; the transaction ends. */
  void rollback();

  /** Marks the staged state, which {@link #rollbackToSavepoint} returns to; returns the savepoint's id. */
  String savepoint(String name);

  /** Forgets a savepoint and the savepoints after it, keeping what was staged. */
  void releaseSavepoint(String savepointId);

  /** Discards what was staged after a savepoint; that savepoint and those after it end. */
  void rollbackToSavepoint(String savepointId);
}
