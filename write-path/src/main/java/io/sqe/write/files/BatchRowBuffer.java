package io.sqe.write.files;

import io.sqe.engine.exec.batch.RowOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;

/**
 * A sorted table's buffer of batch rows: each row is a primitive address ({@code batch << 32 |
 * row}) into the batches it holds open, one hold per batch, so a buffer of millions of rows makes
 * no object per row; it is sorted by {@link RowOrder}'s stable merge sort, which finds the runs
 * already in order (rows of one batch often are) at little cost, on long keys where the order is
 * one column of integers, dates or timestamps.
 */
final class BatchRowBuffer implements PartitionedFiles.SortBuffer<BatchRow> {
  private final Order order;
  /** The batches the rows are in, in the order they came; each held once until the buffer is released. */
  private final List<BatchRows> batches = new ArrayList<>();
  private long[] addresses = new long[1024];
  private int size;

  BatchRowBuffer(Order order) {
    this.order = order;
  }

  @Override
  public void add(BatchRow row) {
    BatchRows batch = row.batch();
    // A batch's rows come together: it is either the last batch held or a new one.
    int last = batches.size() - 1;
    if (last < 0 || batches.get(last) != batch) {
      batch.hold();
      batches.add(batch);
      last++;
    }
    if (size == addresses.length) {
      addresses = Arrays.copyOf(addresses, size * 2);
    }
    addresses[size++] = ((long) last << 32) | row.index();
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public void writeSorted(Consumer<BatchRow> writer, BooleanSupplier more) {
    order.sort(addresses, size, batches);
    BatchRow row = new BatchRow(null, 0);
    for (int i = 0; i < size && more.getAsBoolean(); i++) {
      long address = addresses[i];
      row.moveTo(batches.get((int) (address >>> 32)), (int) address);
      writer.accept(row);
    }
  }

  @Override
  public void release() {
    for (BatchRows batch : batches) {
      batch.release();
    }
    batches.clear();
    addresses = new long[0];
    size = 0;
  }

  /**
   * A table's sort order over batch rows, as Iceberg's comparator of the order sorts them: on the
   * vectors themselves when every sort field is a column as it is (no transform), else on the rows'
   * internal values.
   */
  static final class Order {
    /** For each sort field, the table column it sorts by; null when a field has a transform. */
    private final int[] positions;
    private final boolean[] descending;
    private final boolean[] nullsFirst;
    private final Comparator<StructLike> internal;

    Order(Schema schema, SortOrder order) {
      List<SortField> fields = order.fields();
      int[] columns = new int[fields.size()];
      this.descending = new boolean[fields.size()];
      this.nullsFirst = new boolean[fields.size()];
      boolean identity = true;
      for (int i = 0; i < columns.length; i++) {
        SortField field = fields.get(i);
        columns[i] = schema.columns().indexOf(schema.findField(field.sourceId()));
        identity &= field.transform().isIdentity() && columns[i] >= 0;
        descending[i] = field.direction() == SortDirection.DESC;
        nullsFirst[i] = field.nullOrder() == NullOrder.NULLS_FIRST;
      }
      this.positions = identity ? columns : null;
      this.internal = identity ? null : SortOrderComparators.forSchema(schema, order);
    }

    /** Sorts the first {@code size} of {@code addresses}, rows of {@code batches}, stably. */
    void sort(long[] addresses, int size, List<BatchRows> batches) {
      VectorColumn[] columns = positions != null && positions.length == 1 ? longKeys(batches, positions[0]) : null;
      if (columns == null) {
        RowOrder.sort(addresses, size, comparator(batches));
        return;
      }
      // Nulls apart, in the order they came; every other row by its key as a long.
      long[] keys = new long[size];
      long[] nulls = new long[0];
      int keyed = 0;
      int nullCount = 0;
      for (int i = 0; i < size; i++) {
        long address = addresses[i];
        VectorColumn column = columns[(int) (address >>> 32)];
        int row = (int) address;
        if (column.isNull(row)) {
          if (nullCount == nulls.length) {
            nulls = Arrays.copyOf(nulls, Math.max(16, nullCount * 2));
          }
          nulls[nullCount++] = address;
        } else {
          long key = column.orderedLong(row);
          // ~key reverses the order of longs and, unlike -key, has no value it cannot reverse.
          keys[keyed] = descending[0] ? ~key : key;
          addresses[keyed++] = address;
        }
      }
      RowOrder.sortByKeys(keys, addresses, keyed);
      if (nullCount > 0) {
        if (nullsFirst[0]) {
          System.arraycopy(addresses, 0, addresses, nullCount, keyed);
          System.arraycopy(nulls, 0, addresses, 0, nullCount);
        } else {
          System.arraycopy(nulls, 0, addresses, keyed, nullCount);
        }
      }
    }

    /** Each batch's column {@code position}, when every one has {@link VectorColumn#hasOrderedLongs ordered longs}; else null. */
    private static VectorColumn[] longKeys(List<BatchRows> batches, int position) {
      VectorColumn[] keys = new VectorColumn[batches.size()];
      for (int b = 0; b < keys.length; b++) {
        keys[b] = batches.get(b).columns()[position];
        if (!keys[b].hasOrderedLongs()) {
          return null;
        }
      }
      return keys;
    }

    /** Compares the rows addresses name in {@code batches}; one for each sort, as it may keep rows of its own. */
    private RowOrder.AddressComparator comparator(List<BatchRows> batches) {
      if (internal != null) {
        BatchRow left = new BatchRow(null, 0);
        BatchRow right = new BatchRow(null, 0);
        return (a, b) -> {
          left.moveTo(batches.get((int) (a >>> 32)), (int) a);
          right.moveTo(batches.get((int) (b >>> 32)), (int) b);
          return internal.compare(left, right);
        };
      }
      VectorColumn[][] keys = new VectorColumn[batches.size()][];
      for (int b = 0; b < keys.length; b++) {
        VectorColumn[] columns = batches.get(b).columns();
        keys[b] = new VectorColumn[positions.length];
        for (int i = 0; i < positions.length; i++) {
          keys[b][i] = columns[positions[i]];
        }
      }
      return (a, b) -> compare(keys[(int) (a >>> 32)], (int) a, keys[(int) (b >>> 32)], (int) b);
    }

    private int compare(VectorColumn[] left, int leftRow, VectorColumn[] right, int rightRow) {
      for (int i = 0; i < left.length; i++) {
        VectorColumn a = left[i];
        VectorColumn b = right[i];
        boolean leftNull = a.isNull(leftRow);
        boolean rightNull = b.isNull(rightRow);
        if (leftNull || rightNull) {
          if (leftNull != rightNull) {
            return leftNull == nullsFirst[i] ? -1 : 1;
          }
          continue;
        }
        int c = a.compare(leftRow, b, rightRow);
        if (c != 0) {
          return descending[i] ? -c : c;
        }
      }
      return 0;
    }
  }
}
