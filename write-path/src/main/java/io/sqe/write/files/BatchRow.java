package io.sqe.write.files;

import org.apache.iceberg.StructLike;

/**
 * A row of a record batch with the table's columns, as Iceberg's writers, partition transforms and
 * sort comparators see it. The writer moves one such row along a batch, and a sorted table's buffer
 * one along its rows in their order.
 */
final class BatchRow implements StructLike {
  private BatchRows batch;
  private int index;

  BatchRow(BatchRows batch, int index) {
    this.batch = batch;
    this.index = index;
  }

  BatchRows batch() {
    return batch;
  }

  VectorColumn[] columns() {
    return batch.columns();
  }

  int index() {
    return index;
  }

  /** Moves this row to row {@code index} of its batch. */
  void moveTo(int newIndex) {
    this.index = newIndex;
  }

  /** Moves this row to row {@code index} of {@code newBatch}. */
  void moveTo(BatchRows newBatch, int newIndex) {
    this.batch = newBatch;
    this.index = newIndex;
  }

  @Override
  public int size() {
    return batch.columns().length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    VectorColumn column = batch.columns()[pos];
    return column.isNull(index) ? null : javaClass.cast(column.internal(index));
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException("A row of a record batch is read-only");
  }
}
