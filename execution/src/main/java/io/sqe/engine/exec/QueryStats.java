package io.sqe.engine.exec;

import io.sqe.engine.exec.profile.OperatorProfiles;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Figures one run of a statement collects as it runs; safe to read from another thread. */
public final class QueryStats {
  private final AtomicLong filesPlanned = new AtomicLong();
  private final AtomicLong filesScanned = new AtomicLong();
  private final AtomicLong bytesScanned = new AtomicLong();
  private final AtomicLong filesReadByColumns = new AtomicLong();
  private final AtomicLong rowsSkippedOnVectors = new AtomicLong();
  private final AtomicLong dynamicFiltersApplied = new AtomicLong();
  private final AtomicLong joinTablesBuilt = new AtomicLong();
  private final AtomicLong rowsReturned = new AtomicLong();
  private final AtomicLong batchesReturned = new AtomicLong();
  private final AtomicLong spilledBytes = new AtomicLong();
  private final AtomicLong spillFiles = new AtomicLong();
  private volatile long planningNanos;
  private volatile long executionNanos;
  private volatile long peakMemoryBytes;
  private volatile boolean planCached;
  private volatile boolean resultCached;
  private volatile boolean columnar;
  private volatile String offloadedTo;
  private volatile Instant firstBatch;
  private volatile Instant lastBatch;
  private final OperatorProfiles operators = new OperatorProfiles();

  /** The figures of the run's columnar operators, by plan node. */
  public OperatorProfiles operators() {
    return operators;
  }

  /** A scan planned this many data files to read. */
  public void filesPlanned(long files) {
    filesPlanned.addAndGet(files);
  }

  public void fileOpened(long bytes) {
    filesScanned.incrementAndGet();
    bytesScanned.addAndGet(bytes);
  }

  /** A scan read an opened file column by column (vectorized) rather than row by row. */
  public void fileReadByColumns() {
    filesReadByColumns.incrementAndGet();
  }

  /** A scan dropped this many rows on the Arrow vectors, before building them, as its filter cannot match them. */
  public void rowsSkippedOnVectors(long rows) {
    rowsSkippedOnVectors.addAndGet(rows);
  }

  /** A scan opened with the build-side keys of a join above it (a dynamic filter). */
  public void dynamicFilterApplied() {
    dynamicFiltersApplied.incrementAndGet();
  }

  /** How many scans opened with a join's build-side keys. */
  public long dynamicFiltersApplied() {
    return dynamicFiltersApplied.get();
  }

  /** A hash join built a table of primitive keys from its build side (see {@code LongKeyHashJoin}). */
  public void joinTableBuilt() {
    joinTablesBuilt.incrementAndGet();
  }

  /** How many hash join build sides went into tables of primitive keys. */
  public long joinTablesBuilt() {
    return joinTablesBuilt.get();
  }

  /** An operator wrote this many bytes to the query's spill space. */
  public void spilled(long bytes) {
    spilledBytes.addAndGet(bytes);
  }

  /** An operator started a file (a run) in the query's spill space. */
  public void spillFileWritten() {
    spillFiles.incrementAndGet();
  }

  /** The bytes the run's operators wrote to disk because they did not fit in its memory. */
  public long spilledBytes() {
    return spilledBytes.get();
  }

  /** How many files the run's operators spilled. */
  public long spillFiles() {
    return spillFiles.get();
  }

  /** The run returned its last batch, {@code nanos} after it started. */
  void exhausted(long nanos) {
    lastBatch = Instant.now();
    executionNanos(nanos);
  }

  void batchReturned(int rows) {
    if (batchesReturned.incrementAndGet() == 1) {
      firstBatch = Instant.now();
    }
    rowsReturned.addAndGet(rows);
  }

  /** The run's rows come from the Trino cluster at {@code uri}: the query was offloaded there. */
  public void offloadedTo(String uri) {
    offloadedTo = uri;
  }

  /** The Trino cluster the run's rows came from; null when it ran here. */
  public String offloadedTo() {
    return offloadedTo;
  }

  public void planningNanos(long nanos) {
    planningNanos = nanos;
  }

  /** The run's plan came from the plan cache. */
  public void planCached(boolean cached) {
    planCached = cached;
  }

  /** The run handed out a cached result instead of running its plan. */
  public void resultCached(boolean cached) {
    resultCached = cached;
  }

  /** The run executes a plan of SQE's columnar operators, not Calcite's row runtime. */
  void columnar(boolean value) {
    columnar = value;
  }

  public boolean columnar() {
    return columnar;
  }

  public boolean planCached() {
    return planCached;
  }

  public boolean resultCached() {
    return resultCached;
  }

  void executionNanos(long nanos) {
    executionNanos = nanos;
  }

  void peakMemoryBytes(long bytes) {
    peakMemoryBytes = Math.max(peakMemoryBytes, bytes);
  }

  public long filesPlanned() {
    return filesPlanned.get();
  }

  public long filesScanned() {
    return filesScanned.get();
  }

  /** Of the files opened, how many were read column by column. */
  public long filesReadByColumns() {
    return filesReadByColumns.get();
  }

  /** Rows the scans dropped on the vectors before building them (see {@link #rowsSkippedOnVectors(long)}). */
  public long rowsSkippedOnVectors() {
    return rowsSkippedOnVectors.get();
  }

  public long bytesScanned() {
    return bytesScanned.get();
  }

  public long rowsReturned() {
    return rowsReturned.get();
  }

  public long batchesReturned() {
    return batchesReturned.get();
  }

  public long planningNanos() {
    return planningNanos;
  }

  /** The time from the run's start until its last row, or until now while it runs. */
  public long executionNanos() {
    return executionNanos;
  }

  /** When the run returned its first batch; null until it has. */
  public Instant firstBatch() {
    return firstBatch;
  }

  /** When the run returned its last batch: its result was complete; null until then, or if it failed. */
  public Instant lastBatch() {
    return lastBatch;
  }

  /** The most Arrow memory the run's allocator held at once, known once the run has ended. */
  public long peakMemoryBytes() {
    return peakMemoryBytes;
  }

  /**
   * The share of the data files its scans planned that the run has opened, in [0, 1]; empty
   * before any scan has planned a file. Scans that start later add files, so it can go down.
   */
  public java.util.OptionalDouble scanProgress() {
    long planned = filesPlanned.get();
    if (planned == 0) {
      return java.util.OptionalDouble.empty();
    }
    return java.util.OptionalDouble.of(Math.min(1.0, (double) filesScanned.get() / planned));
  }
}
