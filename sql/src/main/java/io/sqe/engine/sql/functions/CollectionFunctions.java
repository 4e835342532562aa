package io.sqe.engine.sql.functions;

import com.google.common.math.LongMath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Trino's array and map functions that Calcite's libraries lack or define otherwise: NULL elements
 * are values (array_distinct keeps one, array_sort puts them last), and Trino's errors (index 0,
 * a step of 0) are INVALID_ARGUMENT.
 */
public final class CollectionFunctions {
  private static final SqlReturnTypeInference ELEMENT = b -> b.getOperandType(0).getComponentType();
  private static final SqlReturnTypeInference ELEMENT_OR_VALUE = b -> {
    RelDataType type = b.getOperandType(0);
    return type.getSqlTypeName() == SqlTypeName.MAP ? type.getValueType() : type.getComponentType();
  };
  private static final SqlReturnTypeInference ARRAY_OF_ARG0 = b -> b.getTypeFactory().createArrayType(b.getOperandType(0), -1);
  private static final SqlReturnTypeInference BIGINT_ARRAY =
      ReturnTypes.explicit(f -> f.createArrayType(f.createSqlType(SqlTypeName.BIGINT), -1));

  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private CollectionFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    all.addAll(JavaFunctions.scalar("element_at", CollectionFunctions.class, "elementAt", ELEMENT_OR_VALUE));
    all.addAll(JavaFunctions.scalar("contains", CollectionFunctions.class, "contains", ReturnTypes.BOOLEAN));
    all.addAll(JavaFunctions.scalar("contains_sequence", CollectionFunctions.class, "containsSequence", ReturnTypes.BOOLEAN));
    all.addAll(JavaFunctions.scalar("arrays_overlap", CollectionFunctions.class, "arraysOverlap", ReturnTypes.BOOLEAN));
    all.addAll(JavaFunctions.scalar("array_position", CollectionFunctions.class, "arrayPosition", ReturnTypes.BIGINT));
    for (String name : List.of("array_max", "array_min")) {
      all.addAll(JavaFunctions.scalar(name, CollectionFunctions.class, MathFunctions.camel(name), ELEMENT));
    }
    for (String name : List.of("array_distinct", "array_remove", "array_sort", "array_union", "array_intersect",
        "array_except", "trim_array", "shuffle")) {
      all.addAll(JavaFunctions.scalar(name, CollectionFunctions.class, MathFunctions.camel(name), ReturnTypes.ARG0));
    }
    all.addAll(JavaFunctions.scalar("reverse", CollectionFunctions.class, "reverse", ReturnTypes.ARG0));
    all.addAll(JavaFunctions.scalar("flatten", CollectionFunctions.class, "flatten", ELEMENT));
    all.addAll(JavaFunctions.scalar("sequence", CollectionFunctions.class, "sequence", BIGINT_ARRAY));
    for (String name : List.of("combinations", "ngrams")) {
      all.addAll(JavaFunctions.scalar(name, CollectionFunctions.class, name, ARRAY_OF_ARG0));
    }
    all.addAll(JavaFunctions.scalar("array_histogram", CollectionFunctions.class, "arrayHistogram",
        b -> b.getTypeFactory().createMapType(b.getOperandType(0).getComponentType(),
            b.getTypeFactory().createSqlType(SqlTypeName.BIGINT))));
    all.add(JavaFunctions.systemScalar("map", CollectionFunctions.class, "map",
        b -> b.getTypeFactory().createMapType(b.getOperandType(0).getComponentType(), b.getOperandType(1).getComponentType())));
    all.addAll(JavaFunctions.scalar("multimap_from_entries", CollectionFunctions.class, "multimapFromEntries",
        b -> {
          RelDataType row = b.getOperandType(0).getComponentType();
          return b.getTypeFactory().createMapType(row.getFieldList().get(0).getType(),
              b.getTypeFactory().createArrayType(row.getFieldList().get(1).getType(), -1));
        }));
    all.add(SqlLibraryOperators.MAP_ENTRIES);
    all.add(SqlLibraryOperators.MAP_FROM_ENTRIES);
    all.addAll(JavaFunctions.scalar("uuid", CollectionFunctions.class, "uuid", ReturnTypes.explicit(SqlTypeName.UUID)));
    all.addAll(JavaFunctions.scalar("map_keys", CollectionFunctions.class, "mapKeys",
        b -> b.getTypeFactory().createArrayType(b.getOperandType(0).getKeyType(), -1)));
    all.addAll(JavaFunctions.scalar("map_values", CollectionFunctions.class, "mapValues",
        b -> b.getTypeFactory().createArrayType(b.getOperandType(0).getValueType(), -1)));
    all.addAll(JavaFunctions.scalar("map_concat", CollectionFunctions.class, "mapConcat", ReturnTypes.ARG0));
    all.addAll(JavaFunctions.scalar("split_to_map", CollectionFunctions.class, "splitToMap",
        ReturnTypes.explicit(f -> f.createMapType(f.createSqlType(SqlTypeName.VARCHAR), f.createSqlType(SqlTypeName.VARCHAR)))));
    all.addAll(JavaFunctions.scalar("split_to_multimap", CollectionFunctions.class, "splitToMultimap",
        ReturnTypes.explicit(f -> f.createMapType(f.createSqlType(SqlTypeName.VARCHAR),
            f.createArrayType(f.createSqlType(SqlTypeName.VARCHAR), -1)))));
    return List.copyOf(all);
  }

  /** Nulls last, other values in their natural order (the elements of one array are of one type). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final Comparator<Object> ORDER = Comparator.nullsLast((a, b) -> ((Comparable) a).compareTo(b));

  // ---- called from generated code

  @Strict
  public static Object elementAt(List<Object> array, long index) {
    if (index == 0) {
      throw new IllegalArgumentException("SQL array indices start at 1");
    }
    long i = index > 0 ? index - 1 : array.size() + index;
    return i < 0 || i >= array.size() ? null : array.get((int) i);
  }

  @Strict
  public static Object elementAt(Map<Object, Object> map, Object key) {
    return map.get(key);
  }

  @Strict
  public static Boolean contains(List<Object> array, Object value) {
    boolean sawNull = false;
    for (Object e : array) {
      if (e == null) {
        sawNull = true;
      } else if (e.equals(value)) {
        return true;
      }
    }
    return sawNull ? null : false;
  }

  @Strict
  public static boolean containsSequence(List<Object> array, List<Object> sequence) {
    return Collections.indexOfSubList(array, sequence) >= 0;
  }

  @Strict
  public static Boolean arraysOverlap(List<Object> x, List<Object> y) {
    Set<Object> left = new HashSet<>(x);
    boolean sawNull = left.remove(null) | y.contains(null);
    for (Object e : y) {
      if (e != null && left.contains(e)) {
        return true;
      }
    }
    return sawNull ? null : false;
  }

  @Strict
  public static long arrayPosition(List<Object> array, Object value) {
    int i = array.indexOf(value);
    return i + 1L;
  }

  @Strict
  public static Object arrayMax(List<Object> array) {
    return extreme(array, 1);
  }

  @Strict
  public static Object arrayMin(List<Object> array) {
    return extreme(array, -1);
  }

  private static Object extreme(List<Object> array, int sign) {
    Object best = null;
    for (Object e : array) {
      if (e == null) {
        return null;
      }
      if (best == null || sign * ORDER.compare(e, best) > 0) {
        best = e;
      }
    }
    return best;
  }

  @Strict
  public static List<Object> arrayDistinct(List<Object> array) {
    return new ArrayList<>(new LinkedHashSet<>(array));
  }

  @Strict
  public static List<Object> arrayRemove(List<Object> array, Object value) {
    List<Object> out = new ArrayList<>();
    for (Object e : array) {
      if (e == null || !e.equals(value)) {
        out.add(e);
      }
    }
    return out;
  }

  @Strict
  public static List<Object> arraySort(List<Object> array) {
    List<Object> out = new ArrayList<>(array);
    out.sort(ORDER);
    return out;
  }

  @Strict
  public static List<Object> arrayUnion(List<Object> x, List<Object> y) {
    Set<Object> out = new LinkedHashSet<>(x);
    out.addAll(y);
    return new ArrayList<>(out);
  }

  @Strict
  public static List<Object> arrayIntersect(List<Object> x, List<Object> y) {
    Set<Object> out = new LinkedHashSet<>(x);
    out.retainAll(new HashSet<>(y));
    return new ArrayList<>(out);
  }

  @Strict
  public static List<Object> arrayExcept(List<Object> x, List<Object> y) {
    Set<Object> out = new LinkedHashSet<>(x);
    out.removeAll(new HashSet<>(y));
    return new ArrayList<>(out);
  }

  @Strict
  public static List<Object> trimArray(List<Object> array, long n) {
    if (n < 0 || n > array.size()) {
      throw new IllegalArgumentException("size must not be negative or larger than the array: " + n);
    }
    return new ArrayList<>(array.subList(0, array.size() - (int) n));
  }

  @Strict
  public static List<Object> shuffle(List<Object> array) {
    List<Object> out = new ArrayList<>(array);
    Collections.shuffle(out);
    return out;
  }

  @Strict
  public static List<Object> reverse(List<Object> array) {
    List<Object> out = new ArrayList<>(array);
    Collections.reverse(out);
    return out;
  }

  public static List<Object> flatten(DataContext root, List<List<Object>> arrays) {
    long count = 0;
    for (List<Object> a : arrays) {
      count += a == null ? 0 : a.size();
    }
    BoundedFunctions.checkElements(root, count, "flatten");
    List<Object> out = new ArrayList<>((int) count);
    for (List<Object> a : arrays) {
      if (a != null) {
        out.addAll(a);
      }
    }
    return out;
  }

  @Strict
  public static List<Long> sequence(long start, long stop) {
    return sequence(start, stop, start <= stop ? 1 : -1);
  }

  /** start, start + step, ... up to stop; at most 10,000 elements, as in Trino. */
  @Strict
  public static List<Long> sequence(long start, long stop, long step) {
    if (step == 0 || (step > 0) != (stop >= start) && start != stop) {
      throw new IllegalArgumentException("sequence stop value should be greater than or equal to start value if step is greater than zero otherwise stop should be less than or equal to start");
    }
    long count = (stop - start) / step + 1;
    if (count > 10_000) {
      throw new IllegalArgumentException("result of sequence function must not have more than 10000 entries");
    }
    List<Long> out = new ArrayList<>((int) count);
    for (long i = 0; i < count; i++) {
      out.add(start + i * step);
    }
    return out;
  }

  /**
   * All combinations of {@code n} elements, in the order of the array (n at most 5, as in Trino);
   * the elements of all of them count against the limit on one value.
   */
  public static List<List<Object>> combinations(DataContext root, List<Object> array, long n) {
    if (n < 0 || n > 5) {
      throw new IllegalArgumentException("combination size must be between 0 and 5: " + n);
    }
    long count = LongMath.binomial(array.size(), (int) n);
    BoundedFunctions.checkElements(root, count > Long.MAX_VALUE / 5 ? Long.MAX_VALUE : count * Math.max(n, 1), "combinations");
    List<List<Object>> out = new ArrayList<>();
    combine(array, (int) n, 0, new ArrayList<>(), out);
    return out;
  }

  private static void combine(List<Object> array, int n, int from, List<Object> current, List<List<Object>> out) {
    if (current.size() == n) {
      out.add(new ArrayList<>(current));
      return;
    }
    for (int i = from; i < array.size(); i++) {
      current.add(array.get(i));
      combine(array, n, i + 1, current, out);
      current.remove(current.size() - 1);
    }
  }

  /** The arrays of {@code n} consecutive elements; the elements of all of them count against the limit on one value. */
  public static List<List<Object>> ngrams(DataContext root, List<Object> array, long n) {
    if (n <= 0) {
      throw new IllegalArgumentException("N must be positive");
    }
    BoundedFunctions.checkElements(root, array.size() <= n ? array.size() : (array.size() - n + 1) * n, "ngrams");
    List<List<Object>> out = new ArrayList<>();
    if (array.size() <= n) {
      out.add(new ArrayList<>(array));
      return out;
    }
    for (int i = 0; i + n <= array.size(); i++) {
      out.add(new ArrayList<>(array.subList(i, i + (int) n)));
    }
    return out;
  }

  @Strict
  public static Map<Object, Long> arrayHistogram(List<Object> array) {
    Map<Object, Long> out = new LinkedHashMap<>();
    for (Object e : array) {
      if (e != null) {
        out.merge(e, 1L, Long::sum);
      }
    }
    return out;
  }

  /** Trino's map(keys, values): arrays of one length, keys neither NULL nor repeated. */
  @Strict
  public static Map<Object, Object> map(List<Object> keys, List<Object> values) {
    if (keys.size() != values.size()) {
      throw new IllegalArgumentException("Key and value arrays must be the same length");
    }
    Map<Object, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      Object key = keys.get(i);
      if (key == null) {
        throw new IllegalArgumentException("map key cannot be null");
      }
      if (out.containsKey(key)) {
        throw new IllegalArgumentException("Duplicate map keys (" + key + ") are not allowed");
      }
      out.put(key, values.get(i));
    }
    return out;
  }

  /** A map of each key to the list of its values, from an array of (key, value) rows. */
  @Strict
  public static Map<Object, List<Object>> multimapFromEntries(List<Object> entries) {
    Map<Object, List<Object>> out = new LinkedHashMap<>();
    for (Object entry : entries) {
      if (entry == null) {
        throw new IllegalArgumentException("map entry cannot be null");
      }
      Object key = entry instanceof Object[] a ? a[0] : ((List<?>) entry).get(0);
      Object value = entry instanceof Object[] a ? a[1] : ((List<?>) entry).get(1);
      if (key == null) {
        throw new IllegalArgumentException("map key cannot be null");
      }
      out.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return out;
  }

  /** A random (version 4) UUID. */
  public static java.util.UUID uuid() {
    return java.util.UUID.randomUUID();
  }

  @Strict
  public static List<Object> mapKeys(Map<Object, Object> map) {
    return new ArrayList<>(map.keySet());
  }

  @Strict
  public static List<Object> mapValues(Map<Object, Object> map) {
    return new ArrayList<>(map.values());
  }

  public static Map<Object, Object> mapConcat(DataContext root, Map<Object, Object> x, Map<Object, Object> y) {
    long entries = x.size();
    for (Object key : y.keySet()) {
      entries += x.containsKey(key) ? 0 : 1;
    }
    BoundedFunctions.checkElements(root, entries, "map_concat");
    Map<Object, Object> out = new LinkedHashMap<>(x);
    out.putAll(y);
    return out;
  }

  @Strict
  public static Map<String, String> splitToMap(String s, String entryDelimiter, String keyValueDelimiter) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String entry : TextFunctions.split(s, entryDelimiter)) {
      if (entry.isEmpty()) {
        continue;
      }
      List<String> kv = TextFunctions.split(entry, keyValueDelimiter, 2);
      if (kv.size() != 2) {
        throw new IllegalArgumentException("Key-value delimiter must appear exactly once in each entry. Bad input: '" + entry + "'");
      }
      if (out.putIfAbsent(kv.get(0), kv.get(1)) != null) {
        throw new IllegalArgumentException("Duplicate keys (" + kv.get(0) + ") are not allowed");
      }
    }
    return out;
  }

  @Strict
  public static Map<String, List<String>> splitToMultimap(String s, String entryDelimiter, String keyValueDelimiter) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String entry : TextFunctions.split(s, entryDelimiter)) {
      if (entry.isEmpty()) {
        continue;
      }
      List<String> kv = TextFunctions.split(entry, keyValueDelimiter, 2);
      if (kv.size() != 2) {
        throw new IllegalArgumentException("Key-value delimiter must appear exactly once in each entry. Bad input: '" + entry + "'");
      }
      out.computeIfAbsent(kv.get(0), k -> new ArrayList<>()).add(kv.get(1));
    }
    return out;
  }
}
