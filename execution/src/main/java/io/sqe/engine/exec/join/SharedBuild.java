package io.sqe.engine.exec.join;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.ExecutionErrors;
import java.util.function.Supplier;

/**
 * A join's build side that the parts of a parallel pipeline share in one execution: the first
 * part to need it reads (and indexes) it while the others wait, then every part probes the same
 * read-only build side ({@link HashBuild}, a nested-loop join's {@link BuildSide}), each with its
 * own scratch. A failure to build is every part's.
 * The build is released when the last of the parts lets go of it, or when the pipeline closes,
 * whichever comes first (a part that never started never lets go).
 */
public final class SharedBuild<B extends AutoCloseable> implements AutoCloseable {
  /** The parts that have not let go yet. */
  private int holders;
  private B build;
  private Throwable failure;
  /** Whether the build was read (or failed, or the pipeline closed): it is never read again. */
  private boolean settled;

  /** @param parts the pipeline's parts, each of which lets go once ({@link #release}) */
  public SharedBuild(int parts) {
    this.holders = parts;
  }

  /** The build side, read by {@code read} if no part has read it yet; the others wait for it. */
  public synchronized B acquire(Supplier<B> read) {
    if (!settled) {
      settled = true;
      try {
        build = read.get();
      } catch (RuntimeException | Error e) {
        failure = e;
        throw e;
      }
    }
    if (failure != null) {
      throw ExecutionErrors.rethrow(failure);
    }
    if (build == null) {
      throw new SqeException(ErrorCode.CANCELLED, "The parallel pipeline sharing this join's build side has closed");
    }
    return build;
  }

  /** One part is done with the build side (it may never have asked for it); the last releases it. */
  public synchronized void release() {
    if (--holders == 0) {
      close();
    }
  }

  /** Releases the build side now: the pipeline has ended. */
  @Override
  public synchronized void close() {
    settled = true;
    if (build != null) {
      B held = build;
      build = null;
      try {
        held.close();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
