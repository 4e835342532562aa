package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.RowComparator;
import io.sqe.engine.exec.window.WindowEvaluator;
import io.sqe.engine.exec.window.WindowRows;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * One window group over input sorted by its PARTITION BY keys, then its ORDER BY keys: each
 * output row is an input row followed by the group's function values. Input batches are held
 * until a partition ends in them; then the partitions that ended are computed and handed out, and
 * the batches they read are released. Memory holds the current partition (and the batches it
 * shares with its neighbours), not the input: a partition larger than the query's memory fails
 * with RESOURCE_EXHAUSTED naming the Window operator, while the sort below spills.
 */
public final class WindowBatches implements BatchOperator {
  private final BatchOperator input;
  private final RowComparator partition;
  private final WindowEvaluator evaluator;
  private final List<Field> functionFields;
  private final Schema schema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** Input batches not yet handed out in full; rows of the first one before {@link #firstRow} were. */
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private final List<List<FieldVector>> pendingColumns = new ArrayList<>();
  private int firstRow;
  /** The next row to compare with the one before it: pending batch and row. */
  private int scannedBatch;
  private int scannedRow;
  /** The last partition start found after {@link #firstRow}: pending batch and row, or -1. */
  private int boundaryBatch = -1;
  private int boundaryRow;
  private boolean inputDone;
  private boolean inputClosed;
  /** Rows being handed out: their input positions and function values. */
  private WindowRows ready;
  private List<FieldVector> values = List.of();
  private int emitted;

  public WindowBatches(
      BatchOperator input,
      RowComparator partition,
      WindowEvaluator evaluator,
      Schema schema,
      int inputColumns,
      QueryContext context,
      BufferAllocator allocator) {
    this.input = requireNonNull(input, "input is null");
    this.partition = requireNonNull(partition, "partition is null");
    this.evaluator = requireNonNull(evaluator, "evaluator is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.functionFields = List.copyOf(schema.getFields().subList(inputColumns, schema.getFields().size()));
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    try {
      while (ready == null || emitted == ready.size()) {
        if (ready != null) {
          finishReady();
        }
        if (!prepare()) {
          return null;
        }
      }
      context.checkCancelled();
      // A batch of output never spans two input batches, so that it is slices of their vectors.
      int inBatch = pending.get(ready.batchOf()[emitted]).getRowCount() - ready.row(emitted);
      int count = Math.min(SortBatches.OUTPUT_ROWS, Math.min(inBatch, ready.size() - emitted));
      VectorSchemaRoot out = output(emitted, count);
      emitted += count;
      return out;
    } catch (OutOfMemoryException e) {
      throw new SqeException(
          ErrorCode.RESOURCE_EXHAUSTED,
          "Query " + context.queryId() + " exceeded its memory limit of " + allocator.getLimit()
              + " bytes (query.max-memory) in operator Window, holding one partition: " + e.getMessage(),
          e);
    }
  }

  /** Reads input until a partition ends (or the input does) and computes the partitions that ended; false at the end. */
  private boolean prepare() {
    while (boundaryBatch < 0 && !inputDone) {
      VectorSchemaRoot batch = input.next();
      if (batch == null) {
        inputDone = true;
        closeInput();
        break;
      }
      context.checkCancelled();
      pending.add(batch);
      pendingColumns.add(batch.getFieldVectors());
      scan();
    }
    int endBatch = boundaryBatch >= 0 ? boundaryBatch : pending.size();
    int endRow = boundaryBatch >= 0 ? boundaryRow : 0;
    int count = -firstRow + endRow;
    for (int b = 0; b < endBatch; b++) {
      count += pending.get(b).getRowCount();
    }
    if (count == 0) {
      return false;
    }
    int[] batchOf = new int[count];
    int[] rowOf = new int[count];
    int n = 0;
    for (int b = 0; b <= Math.min(endBatch, pending.size() - 1); b++) {
      int start = b == 0 ? firstRow : 0;
      int end = b == endBatch ? endRow : pending.get(b).getRowCount();
      for (int r = start; r < end; r++) {
        batchOf[n] = b;
        rowOf[n++] = r;
      }
    }
    ready = new WindowRows(pendingColumns, batchOf, rowOf);
    emitted = 0;
    values = new ArrayList<>();
    for (Field field : functionFields) {
      FieldVector vector = field.createVector(allocator);
      values.add(vector);
      vector.setInitialCapacity(count);
      vector.allocateNew();
    }
    int start = 0;
    for (int i = 1; i <= count; i++) {
      if (i == count || partition.compare(ready.columnsOf(i - 1), ready.row(i - 1), ready.columnsOf(i), ready.row(i)) != 0) {
        evaluator.evaluate(ready, start, i, values);
        start = i;
        context.checkCancelled();
      }
    }
    for (FieldVector vector : values) {
      vector.setValueCount(count);
    }
    // The boundary was the last partition start searched: no partition after it has ended yet.
    boundaryBatch = -1;
    return true;
  }

  /** Compares each row not yet compared with the row before it: where they differ, a partition starts. */
  private void scan() {
    for (; scannedBatch < pending.size(); scannedBatch++, scannedRow = 0) {
      List<FieldVector> columns = pendingColumns.get(scannedBatch);
      for (int rows = pending.get(scannedBatch).getRowCount(); scannedRow < rows; scannedRow++) {
        if (scannedBatch == 0 && scannedRow <= firstRow) {
          continue;
        }
        boolean batchStart = scannedRow == 0;
        List<FieldVector> previous = batchStart ? pendingColumns.get(scannedBatch - 1) : columns;
        int previousRow = batchStart ? pending.get(scannedBatch - 1).getRowCount() - 1 : scannedRow - 1;
        if (partition.compare(previous, previousRow, columns, scannedRow) != 0) {
          boundaryBatch = scannedBatch;
          boundaryRow = scannedRow;
        }
      }
    }
  }

  /** Releases the function values of the rows handed out and the input batches they read to the end. */
  private void finishReady() {
    int last = ready.batchOf()[ready.size() - 1];
    int lastRow = ready.rowOf()[ready.size() - 1];
    values.forEach(FieldVector::close);
    values = List.of();
    ready = null;
    int drop = lastRow + 1 == pending.get(last).getRowCount() ? last + 1 : last;
    firstRow = drop == last ? lastRow + 1 : 0;
    for (int b = 0; b < drop; b++) {
      pending.get(b).close();
    }
    pending.subList(0, drop).clear();
    pendingColumns.subList(0, drop).clear();
    scannedBatch -= drop;
  }

  /**
   * Rows {@code [from, from + count)} of the ready rows, all of one input batch: slices of that
   * batch's vectors and of the function values, which share their buffers rather than copy them.
   */
  private VectorSchemaRoot output(int from, int count) {
    List<FieldVector> sources = new ArrayList<>(pendingColumns.get(ready.batchOf()[from]));
    sources.addAll(values);
    List<FieldVector> vectors = new ArrayList<>();
    try {
      int inputColumns = sources.size() - values.size();
      for (int c = 0; c < sources.size(); c++) {
        FieldVector source = sources.get(c);
        TransferPair pair = source.getTransferPair(allocator);
        pair.splitAndTransfer(c < inputColumns ? ready.row(from) : from, count);
        vectors.add((FieldVector) pair.getTo());
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(schema.getFields(), vectors, count);
  }

  private void closeInput() {
    if (!inputClosed) {
      inputClosed = true;
      input.close();
    }
  }

  @Override
  public void close() {
    try {
      closeInput();
    } finally {
      values.forEach(FieldVector::close);
      values = List.of();
      ready = null;
      pending.forEach(VectorSchemaRoot::close);
      pending.clear();
      pendingColumns.clear();
    }
  }
}
