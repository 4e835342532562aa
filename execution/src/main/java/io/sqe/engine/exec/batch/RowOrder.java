package io.sqe.engine.exec.batch;

import java.util.Arrays;

/**
 * A stable sort of row addresses ({@code batch << 32 | row}) by a comparator of the rows they
 * address, or by a long key of each: a merge sort on primitive longs, so that sorting millions of
 * rows makes no object per row.
 */
public final class RowOrder {
  /** Below this length a range is sorted by insertion, which is stable too. */
  private static final int INSERTION = 32;

  /** Compares the rows two addresses name. */
  @FunctionalInterface
  public interface AddressComparator {
    int compare(long a, long b);
  }

  private RowOrder() {}

  /** Sorts {@code addresses} in place; equal rows keep their order. */
  public static void sort(long[] addresses, AddressComparator comparator) {
    sort(addresses, addresses.length, comparator);
  }

  /** Sorts the first {@code length} of {@code addresses} in place; equal rows keep their order. */
  public static void sort(long[] addresses, int length, AddressComparator comparator) {
    long[] buffer = Arrays.copyOf(addresses, length);
    mergeSort(buffer, addresses, 0, length, comparator);
  }

  /** Sorts {@code from[lo..hi)} into {@code to[lo..hi)}; both hold the same values on entry. */
  private static void mergeSort(long[] from, long[] to, int lo, int hi, AddressComparator comparator) {
    if (hi - lo <= INSERTION) {
      for (int i = lo + 1; i < hi; i++) {
        long value = to[i];
        int j = i - 1;
        while (j >= lo && comparator.compare(to[j], value) > 0) {
          to[j + 1] = to[j];
          j--;
        }
        to[j + 1] = value;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSort(to, from, lo, mid, comparator);
    mergeSort(to, from, mid, hi, comparator);
    if (comparator.compare(from[mid - 1], from[mid]) <= 0) {
      System.arraycopy(from, lo, to, lo, hi - lo);
      return;
    }
    int left = lo;
    int right = mid;
    for (int i = lo; i < hi; i++) {
      // Ties take the left half first: that keeps the sort stable.
      if (right >= hi || left < mid && comparator.compare(from[left], from[right]) <= 0) {
        to[i] = from[left++];
      } else {
        to[i] = from[right++];
      }
    }
  }

  /**
   * Sorts the first {@code length} of {@code keys} in place, and {@code values} with them; equal
   * keys keep their order. Comparing the longs themselves, with no call per comparison, it costs a
   * fraction of a comparator's sort where the rows come in many interleaved runs (the batches of a
   * parallel scan).
   */
  public static void sortByKeys(long[] keys, long[] values, int length) {
    long[] keyBuffer = Arrays.copyOf(keys, length);
    long[] valueBuffer = Arrays.copyOf(values, length);
    mergeSortByKeys(keyBuffer, valueBuffer, keys, values, 0, length);
  }

  /** As {@link #mergeSort}, keys and values moving together. */
  private static void mergeSortByKeys(long[] fromKeys, long[] fromValues, long[] toKeys, long[] toValues, int lo, int hi) {
    if (hi - lo <= INSERTION) {
      for (int i = lo + 1; i < hi; i++) {
        long key = toKeys[i];
        long value = toValues[i];
        int j = i - 1;
        while (j >= lo && toKeys[j] > key) {
          toKeys[j + 1] = toKeys[j];
          toValues[j + 1] = toValues[j];
          j--;
        }
        toKeys[j + 1] = key;
        toValues[j + 1] = value;
      }
      return;
    }
    int mid = (lo + hi) >>> 1;
    mergeSortByKeys(toKeys, toValues, fromKeys, fromValues, lo, mid);
    mergeSortByKeys(toKeys, toValues, fromKeys, fromValues, mid, hi);
    if (fromKeys[mid - 1] <= fromKeys[mid]) {
      System.arraycopy(fromKeys, lo, toKeys, lo, hi - lo);
      System.arraycopy(fromValues, lo, toValues, lo, hi - lo);
      return;
    }
    int left = lo;
    int right = mid;
    for (int i = lo; i < hi; i++) {
      // Ties take the left half first: that keeps the sort stable.
      if (right >= hi || left < mid && fromKeys[left] <= fromKeys[right]) {
        toKeys[i] = fromKeys[left];
        toValues[i] = fromValues[left++];
      } else {
        toKeys[i] = fromKeys[right];
        toValues[i] = fromValues[right++];
      }
    }
  }
}
