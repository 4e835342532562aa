package io.sqe.engine.txn;

import io.sqe.engine.session.Principal;

/** Begins transactions; the write path provides this to the engine, which has no storage of its own. */
@FunctionalInterface
public interface Transactions {
  Transaction begin(Principal owner);
}
