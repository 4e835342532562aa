package io.sqe.flight.metadata;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.message.IpcOption;

/**
 * The GetSqlInfo answers as plain values, written into roots from the caller's allocator for any
 * set of requested ids.
 *
 * <p>The values are read once from an Arrow {@link SqlInfoBuilder}, which knows the value type of
 * every id, but whose own {@code send} cannot serve us: it allocates from a private
 * {@code RootAllocator}, throws on ids it has no value for, and sends everything when the filtered
 * list of ids is empty.
 */
final class SqlInfoValues {
  /** Type ids of the members of the {@code value} dense union in {@code GET_SQL_INFO_SCHEMA}. */
  static final byte STRING = 0;
  static final byte BOOLEAN = 1;
  static final byte BIGINT = 2;
  static final byte INT32_BITMASK = 3;
  static final byte STRING_LIST = 4;
  static final byte INT32_TO_INT32_LIST_MAP = 5;

  /** One answer: the union member it travels in and its value as a plain Java object. */
  record Value(byte typeId, Object value) {}

  private final SortedMap<Integer, Value> values;

  private SqlInfoValues(SortedMap<Integer, Value> values) {
    this.values = Collections.unmodifiableSortedMap(values);
  }

  /**
   * Every value a builder holds, plus values for ids the builder has no setter for (an extra value
   * for an id the builder has replaces the builder's).
   */
  static SqlInfoValues from(SqlInfoBuilder builder, Map<Integer, Value> extras) {
    Capture capture = new Capture();
    builder.send(List.of(), capture);
    if (capture.failure != null) {
      throw new IllegalStateException("Cannot read the SqlInfo values", capture.failure);
    }
    SortedMap<Integer, Value> values =
        new TreeMap<>(requireNonNull(capture.values, "SqlInfoBuilder sent no batch"));
    values.putAll(extras);
    return new SqlInfoValues(values);
  }

  SortedMap<Integer, Value> all() {
    return values;
  }

  Optional<Value> get(int id) {
    return Optional.ofNullable(values.get(id));
  }

  /**
   * The requested ids this server has a value for, in request order without repeats; every id
   * when none is requested.
   */
  List<Integer> known(Collection<Integer> requested) {
    if (requested == null || requested.isEmpty()) {
      return List.copyOf(values.keySet());
    }
    List<Integer> known = new ArrayList<>();
    for (Integer id : new LinkedHashSet<>(requested)) {
      if (id != null && values.containsKey(id)) {
        known.add(id);
      }
    }
    return known;
  }

  /** A {@code GET_SQL_INFO_SCHEMA} root with one row per known requested id. */
  VectorSchemaRoot write(BufferAllocator allocator, Collection<Integer> requested) {
    List<Integer> ids = known(requested);
    return Vectors.fill(
        Schemas.GET_SQL_INFO_SCHEMA,
        allocator,
        ids.size(),
        (root, row) -> {
          int id = ids.get(row);
          Value value = values.get(id);
          DenseUnionVector union = (DenseUnionVector) root.getVector("value");
          ((UInt4Vector) root.getVector("info_name")).setSafe(row, id);
          union.setTypeId(row, value.typeId());
          union.setOffset(row, append(union, value));
        });
  }

  /** Appends a value to its union member and returns its index there. */
  @SuppressWarnings("unchecked")
  private static int append(DenseUnionVector union, Value value) {
    switch (value.typeId()) {
      case STRING: {
        VarCharVector v = union.getVarCharVector(STRING);
        int index = v.getValueCount();
        v.setSafe(index, ((String) value.value()).getBytes(StandardCharsets.UTF_8));
        v.setValueCount(index + 1);
        return index;
      }
      case BOOLEAN: {
        BitVector v = union.getBitVector(BOOLEAN);
        int index = v.getValueCount();
        v.setSafe(index, (Boolean) value.value() ? 1 : 0);
        v.setValueCount(index + 1);
        return index;
      }
      case BIGINT: {
        BigIntVector v = union.getBigIntVector(BIGINT);
        int index = v.getValueCount();
        v.setSafe(index, (Long) value.value());
        v.setValueCount(index + 1);
        return index;
      }
      case INT32_BITMASK: {
        IntVector v = union.getIntVector(INT32_BITMASK);
        int index = v.getValueCount();
        v.setSafe(index, (Integer) value.value());
        v.setValueCount(index + 1);
        return index;
      }
      case STRING_LIST: {
        ListVector list = union.getList(STRING_LIST);
        List<String> strings = (List<String>) value.value();
        int index = list.getValueCount();
        int start = list.startNewValue(index);
        VarCharVector items = (VarCharVector) list.getDataVector();
        for (int i = 0; i < strings.size(); i++) {
          items.setSafe(start + i, strings.get(i).getBytes(StandardCharsets.UTF_8));
        }
        list.endValue(index, strings.size());
        list.setValueCount(index + 1);
        return index;
      }
      case INT32_TO_INT32_LIST_MAP: {
        MapVector map = union.getMap(INT32_TO_INT32_LIST_MAP);
        Map<Integer, List<Integer>> entries = (Map<Integer, List<Integer>>) value.value();
        int index = map.getValueCount();
        int start = map.startNewValue(index);
        StructVector struct = (StructVector) map.getDataVector();
        IntVector keys = (IntVector) struct.getChild(MapVector.KEY_NAME);
        ListVector lists = (ListVector) struct.getChild(MapVector.VALUE_NAME);
        int entry = start;
        for (Map.Entry<Integer, List<Integer>> e : entries.entrySet()) {
          struct.setIndexDefined(entry);
          keys.setSafe(entry, e.getKey());
          int listStart = lists.startNewValue(entry);
          IntVector items = (IntVector) lists.getDataVector();
          for (int i = 0; i < e.getValue().size(); i++) {
            items.setSafe(listStart + i, e.getValue().get(i));
          }
          lists.endValue(entry, e.getValue().size());
          entry++;
        }
        map.endValue(index, entries.size());
        map.setValueCount(index + 1);
        return index;
      }
      default:
        throw new IllegalStateException("Unknown SqlInfo union type id " + value.typeId());
    }
  }

  /** Reads the one batch {@link SqlInfoBuilder#send} produces into plain values. */
  private static final class Capture implements ServerStreamListener {
    private VectorSchemaRoot root;
    private SortedMap<Integer, Value> values;
    private Throwable failure;

    @Override
    public void start(VectorSchemaRoot root, DictionaryProvider dictionaries, IpcOption option) {
      this.root = root;
    }

    @Override
    public void putNext() {
      UInt4Vector names = (UInt4Vector) root.getVector("info_name");
      DenseUnionVector union = (DenseUnionVector) root.getVector("value");
      SortedMap<Integer, Value> read = new TreeMap<>();
      for (int row = 0; row < root.getRowCount(); row++) {
        byte typeId = union.getTypeId(row);
        read.put(names.get(row), new Value(typeId, plain(typeId, union.getObject(row))));
      }
      values = read;
    }

    private static Object plain(byte typeId, Object arrowValue) {
      switch (typeId) {
        case STRING:
          return arrowValue.toString();
        case BOOLEAN:
        case BIGINT:
        case INT32_BITMASK:
          return arrowValue;
        case STRING_LIST: {
          List<String> strings = new ArrayList<>();
          for (Object item : (List<?>) arrowValue) {
            strings.add(item.toString());
          }
          return List.copyOf(strings);
        }
        case INT32_TO_INT32_LIST_MAP: {
          Map<Integer, List<Integer>> map = new LinkedHashMap<>();
          for (Object entry : (List<?>) arrowValue) {
            Map<?, ?> struct = (Map<?, ?>) entry;
            List<Integer> list = new ArrayList<>();
            Object items = struct.get(MapVector.VALUE_NAME);
            if (items != null) {
              for (Object item : (List<?>) items) {
                list.add((Integer) item);
              }
            }
            map.put((Integer) struct.get(MapVector.KEY_NAME), List.copyOf(list));
          }
          return Collections.unmodifiableMap(map);
        }
        default:
          throw new IllegalStateException("Unknown SqlInfo union type id " + typeId);
      }
    }

    @Override
    public void error(Throwable t) {
      failure = t;
    }

    @Override
    public void completed() {}

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable handler) {}

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void putNext(ArrowBuf metadata) {
      putNext();
    }

    @Override
    public void putMetadata(ArrowBuf metadata) {}
  }
}
