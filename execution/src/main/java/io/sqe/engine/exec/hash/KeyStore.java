package io.sqe.engine.exec.hash;

import java.util.List;
import org.apache.arrow.vector.FieldVector;

/** The storage behind a {@link KeyTable}: one layout for a single key that fits a long, one for any keys. */
interface KeyStore extends AutoCloseable {
  void insert(List<FieldVector> keyColumns, int rowCount, int[] ids);

  /** Finds without changing the store, with {@code scratch}'s arrays: threads may find concurrently, each with its own. */
  void find(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch);

  /** As {@link #find}, a NULL key a value as {@link #insert} keeps it. */
  void lookup(List<FieldVector> keyColumns, int rowCount, int[] ids, ProbeScratch scratch);

  int size();

  void copyKeys(int from, int count, List<FieldVector> out);

  @Override
  void close();
}
