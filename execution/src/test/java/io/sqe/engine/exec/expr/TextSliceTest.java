package io.sqe.engine.exec.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.calcite.runtime.SqlFunctions;
import org.junit.jupiter.api.Test;

/**
 * SUBSTRING with constant bounds on text vectors against the row runtime's own function (Calcite's
 * {@code SqlFunctions.substring}): random values of ASCII, two- and three-byte characters and
 * characters beyond the BMP (two UTF-16 units, which the row runtime counts as two), empty values
 * and NULLs, cut by starts and lengths around and past their ends, through the computed column and
 * through comparisons and ranges.
 */
class TextSliceTest {
  private static final String[] PIECES = {"a", "Z", "0", " ", "é", "ß", "日", "本", "😀", "𝄞"};
  private static final Field TEXT = new Field("t", FieldType.nullable(new ArrowType.Utf8()), null);

  @Test
  void cutsAsTheRowRuntimeCuts() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator();
        VarCharVector vector = (VarCharVector) TEXT.createVector(allocator)) {
      List<String> values = values(random, 3000);
      fill(vector, values);
      try (VectorSchemaRoot batch = new VectorSchemaRoot(List.of(TEXT), List.<FieldVector>of(vector), values.size())) {
        for (int round = 0; round < 60; round++) {
          int start = random.nextInt(14) - 3;
          int length = random.nextInt(9);
          TextSlice slice = new TextSlice(start, length);
          try (Evaluated cut = ScalarExpressions.substring(TEXT, ScalarExpressions.column(0), slice).evaluate(batch, allocator)) {
            VarCharVector out = (VarCharVector) cut.vector();
            for (int r = 0; r < values.size(); r++) {
              String value = values.get(r);
              String expected = value == null ? null : utf8(SqlFunctions.substring(value, start, length));
              String actual = out.isNull(r) ? null : new String(out.get(r), StandardCharsets.UTF_8);
              assertThat(actual).as("seed %d: SUBSTRING('%s', %d, %d)", seed, value, start, length).isEqualTo(expected);
            }
          }
          String sample = values.get(random.nextInt(values.size()));
          String constant = utf8(SqlFunctions.substring(sample == null ? "abc" : sample, start, length));
          byte[] bound = constant.getBytes(StandardCharsets.UTF_8);
          for (Comparison op : Comparison.values()) {
            int[] sel = all(values.size());
            int kept = Predicates.compareBytes(0, slice, op, bound).filter(batch, sel, sel.length);
            List<Integer> expected = new ArrayList<>();
            for (int r = 0; r < values.size(); r++) {
              if (values.get(r) != null && op.holds(Integer.signum(compareUtf8(SqlFunctions.substring(values.get(r), start, length), constant)))) {
                expected.add(r);
              }
            }
            assertThat(rows(sel, kept)).as("seed %d: SUBSTRING(t, %d, %d) %s '%s'", seed, start, length, op, constant).isEqualTo(expected);
          }
          List<Predicates.Range<byte[]>> ranges = List.of(
              new Predicates.Range<>(new Predicates.Bound<>(bound, true), new Predicates.Bound<>(bound, true)),
              new Predicates.Range<>(new Predicates.Bound<>("日".getBytes(StandardCharsets.UTF_8), false), Predicates.Bound.unbounded()));
          int[] sel = all(values.size());
          int kept = Predicates.bytesRanges(0, slice, ranges, true).filter(batch, sel, sel.length);
          List<Integer> expected = new ArrayList<>();
          for (int r = 0; r < values.size(); r++) {
            String value = values.get(r);
            String cut = value == null ? null : SqlFunctions.substring(value, start, length);
            if (cut == null || compareUtf8(cut, constant) == 0 || compareUtf8(cut, "日") > 0) {
              expected.add(r);
            }
          }
          assertThat(rows(sel, kept)).as("seed %d: SUBSTRING(t, %d, %d) in ranges", seed, start, length).isEqualTo(expected);

          // An IN list: points only, looked up by hash.
          List<String> in = new ArrayList<>();
          List<Predicates.Range<byte[]>> points = new ArrayList<>();
          for (int p = 0; p < 1 + random.nextInt(6); p++) {
            String value = values.get(random.nextInt(values.size()));
            String point = utf8(SqlFunctions.substring(value == null ? "日本" : value, start, length));
            in.add(point);
            byte[] bytes = point.getBytes(StandardCharsets.UTF_8);
            points.add(new Predicates.Range<>(new Predicates.Bound<>(bytes, true), new Predicates.Bound<>(bytes, true)));
          }
          sel = all(values.size());
          kept = Predicates.bytesRanges(0, slice, points, false).filter(batch, sel, sel.length);
          expected = new ArrayList<>();
          for (int r = 0; r < values.size(); r++) {
            if (values.get(r) != null && in.contains(utf8(SqlFunctions.substring(values.get(r), start, length)))) {
              expected.add(r);
            }
          }
          assertThat(rows(sel, kept)).as("seed %d: SUBSTRING(t, %d, %d) in %s", seed, start, length, in).isEqualTo(expected);
        }
      }
    }
  }

  /** Text as the vectors hold it: UTF-8 (an unpaired surrogate, from a cut through a pair, as '?'). */
  private static String utf8(String text) {
    return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
  }

  /** Two texts in the order of their UTF-8 bytes, unsigned, as the columnar comparisons order them. */
  private static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> values(Random random, int count) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (random.nextInt(20) == 0) {
        values.add(null);
        continue;
      }
      // Mostly ASCII, as the in-place path reads them; some wholly or partly wider.
      boolean ascii = random.nextInt(3) > 0;
      StringBuilder value = new StringBuilder();
      int length = random.nextInt(12);
      for (int c = 0; c < length; c++) {
        value.append(PIECES[random.nextInt(ascii && c < 8 ? 4 : PIECES.length)]);
      }
      values.add(value.toString());
    }
    return values;
  }

  private static void fill(VarCharVector vector, List<String> values) {
    vector.allocateNew();
    for (int r = 0; r < values.size(); r++) {
      if (values.get(r) == null) {
        vector.setNull(r);
      } else {
        vector.setSafe(r, values.get(r).getBytes(StandardCharsets.UTF_8));
      }
    }
    vector.setValueCount(values.size());
  }

  private static int[] all(int count) {
    int[] sel = new int[count];
    for (int i = 0; i < count; i++) {
      sel[i] = i;
    }
    return sel;
  }

  private static List<Integer> rows(int[] sel, int kept) {
    List<Integer> rows = new ArrayList<>();
    for (int i = 0; i < kept; i++) {
      rows.add(sel[i]);
    }
    return rows;
  }
}
