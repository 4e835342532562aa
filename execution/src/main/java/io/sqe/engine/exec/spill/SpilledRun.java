package io.sqe.engine.exec.spill;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;

/** A run written to a spill file: its rows in the order they were written, to read back batch by batch. */
public final class SpilledRun {
  private final QuerySpill spill;
  private final Path file;
  private final long rows;
  private final long bytes;

  SpilledRun(QuerySpill spill, Path file, long rows, long bytes) {
    this.spill = requireNonNull(spill, "spill is null");
    this.file = requireNonNull(file, "file is null");
    this.rows = rows;
    this.bytes = bytes;
  }

  public long rows() {
    return rows;
  }

  public long bytes() {
    return bytes;
  }

  /** A reader of the run's batches, whose buffers come from {@code allocator}. */
  public RunReader open(BufferAllocator allocator) {
    try {
      InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
      return new RunReader(spill, in, allocator);
    } catch (IOException e) {
      throw spill.cannotRead(e);
    }
  }

  /** Removes the run's file, once it is read for the last time. */
  public void delete() {
    deleteQuietly(file);
  }

  static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // The query's directory goes when the query ends, and with it this file.
    }
  }
}
