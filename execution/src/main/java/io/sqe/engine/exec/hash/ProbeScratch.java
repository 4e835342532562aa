package io.sqe.engine.exec.hash;

import org.apache.arrow.memory.ArrowBuf;

/** The arrays one thread's finds in a key table work in, so that threads probe a finished table concurrently. */
final class ProbeScratch {
  private long[] longs = new long[0];
  private ArrowBuf[] validity = new ArrowBuf[0];
  private boolean[] nullable = new boolean[0];

  long[] longs(int rows) {
    if (longs.length < rows) {
      longs = new long[rows];
    }
    return longs;
  }

  ArrowBuf[] validity(int columns) {
    if (validity.length < columns) {
      validity = new ArrowBuf[columns];
    }
    return validity;
  }

  boolean[] nullable(int columns) {
    if (nullable.length < columns) {
      nullable = new boolean[columns];
    }
    return nullable;
  }
}
