package io.sqe.engine.iceberg;

import io.sqe.engine.exec.Checkpoint;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.iceberg.VectorColumnTests.BooleanTest;
import io.sqe.engine.iceberg.VectorColumnTests.BytesTest;
import io.sqe.engine.iceberg.VectorColumnTests.DoubleTest;
import io.sqe.engine.iceberg.VectorColumnTests.LongRange;
import io.sqe.engine.iceberg.VectorColumnTests.LongSetTest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.arrow.vectorized.NullabilityHolder;
import org.apache.iceberg.arrow.vectorized.VectorHolder;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.parquet.column.Dictionary;

/**
 * Evaluates the simple parts of a scan's pushed filter on the Arrow vectors of a batch, so that
 * rows the filter cannot match are never turned into Java objects.
 *
 * <p>The selection may keep rows the filter drops (the Filter above the scan still evaluates the
 * whole condition on every row), but never drops a row the filter keeps: anything it cannot
 * evaluate exactly (a type or operator it does not handle, a constant column, a decimal stored as
 * 16 bytes) keeps every row, NOT is pushed down to the predicates first (Kleene logic allows it),
 * and the predicates that SQL would make unknown for a NULL keep their NULLs where Iceberg's
 * semantics differ from SQL's ({@code notEqual}, {@code notIn}). A dictionary-encoded column is
 * tested once per dictionary entry, then by id. One instance per file scan task: it keeps
 * per-task scratch state and is not thread safe.
 */
final class VectorSelection {
  private final Node root;
  private final QueryStats stats;

  private VectorSelection(Node root, QueryStats stats) {
    this.root = root;
    this.stats = stats;
  }

  /**
   * The selection for {@code filter}, and for membership of each column in {@code keySets} (by field
   * id; a join's build-side keys), over batches read with {@code readSchema}, or null when none of
   * it can be evaluated on the vectors.
   */
  static VectorSelection of(Expression filter, Map<Integer, LongKeySet> keySets, Schema readSchema, QueryStats stats) {
    return of(filter, keySets, List.of(), readSchema, stats, () -> {});
  }

  /**
   * The selection for {@code filter} and {@code keySets} as above, and for {@code likes}, which it
   * evaluates exactly (dropping every row they do not keep; a long value's match calls {@code
   * checkpoint}), or null when there is nothing to evaluate.
   */
  static VectorSelection of(
      Expression filter,
      Map<Integer, LongKeySet> keySets,
      List<LikePredicate> likes,
      Schema readSchema,
      QueryStats stats,
      Checkpoint checkpoint) {
    Map<Integer, Integer> positions = new LinkedHashMap<>();
    for (int i = 0; i < readSchema.columns().size(); i++) {
      positions.put(readSchema.columns().get(i).fieldId(), i);
    }
    List<Node> parts = new ArrayList<>();
    if (filter.op() != Expression.Operation.TRUE) {
      try {
        Expression bound = Binder.bind(readSchema.asStruct(), Expressions.rewriteNot(filter), true);
        Node node = new Compiler(positions).compile(bound);
        if (node != null) {
          parts.add(node);
        }
      } catch (ValidationException e) {
        // Not evaluated here; the Filter above the scan still is.
      }
    }
    for (Map.Entry<Integer, LongKeySet> keys : keySets.entrySet()) {
      Integer column = positions.get(keys.getKey());
      Types.NestedField field = readSchema.findField(keys.getKey());
      if (column != null && field != null && field.type().typeId() != Type.TypeID.DECIMAL) {
        parts.add(new LongSetTest(column, keys.getValue(), false));
      }
    }
    for (LikePredicate like : likes) {
      Integer column = positions.get(like.column().fieldId());
      if (column == null) {
        throw new IllegalStateException("The scan does not read the column of " + like);
      }
      parts.add(new LikeTest(column, like, checkpoint));
    }
    Node root = Compiler.and(parts);
    return root == null ? null : new VectorSelection(root, stats);
  }

  /**
   * Writes the positions of the rows of {@code batch} that may match into {@code selection}
   * (ascending) and returns how many there are.
   */
  int select(VectorHolder[] batch, int count, int[] selection) {
    for (int i = 0; i < count; i++) {
      selection[i] = i;
    }
    int selected = root.select(batch, selection, count);
    if (selected < count) {
      stats.rowsSkippedOnVectors(count - selected);
    }
    return selected;
  }

  /** Narrows a selection: keeps, in order, the positions among {@code sel[0..n)} that may match. */
  interface Node {
    int select(VectorHolder[] batch, int[] sel, int n);
  }

  /** Translates a bound, NOT-free Iceberg expression; null stands for "keeps every row". */
  private static final class Compiler {
    private final Map<Integer, Integer> positions;

    Compiler(Map<Integer, Integer> positions) {
      this.positions = positions;
    }

    Node compile(Expression expression) {
      switch (expression.op()) {
        case TRUE:
          return null;
        case FALSE:
          return (batch, sel, n) -> 0;
        case AND: {
          List<Node> parts = new ArrayList<>();
          flattenAnd(expression, parts);
          return and(parts);
        }
        case OR: {
          List<Node> parts = new ArrayList<>();
          for (Expression child : List.of(((Or) expression).left(), ((Or) expression).right())) {
            Node node = compile(child);
            if (node == null) {
              return null;
            }
            if (node instanceof OrNode) {
              parts.addAll(((OrNode) node).children);
            } else {
              parts.add(node);
            }
          }
          List<Node> merged = mergeEqualities(parts);
          return merged.size() == 1 ? merged.get(0) : new OrNode(merged);
        }
        default:
          return expression instanceof BoundPredicate ? leaf((BoundPredicate<?>) expression) : null;
      }
    }

    /**
     * The branches of an OR with the equalities (and IN sets) on one column made one set test: a
     * search of a set arrives from the filter as an OR of equalities, which as branches would each
     * pass over the rows the others left.
     */
    private static List<Node> mergeEqualities(List<Node> parts) {
      Map<Integer, LongKeySet> longs = new LinkedHashMap<>();
      Map<Integer, List<byte[]>> strings = new LinkedHashMap<>();
      List<Node> merged = new ArrayList<>();
      for (Node part : parts) {
        if (part instanceof LongRange && ((LongRange) part).isPoint()) {
          longs.computeIfAbsent(((LongRange) part).column, c -> new LongKeySet(8)).add(((LongRange) part).low());
        } else if (part instanceof LongSetTest && !((LongSetTest) part).negated()) {
          LongKeySet set = longs.computeIfAbsent(((LongSetTest) part).column, c -> new LongKeySet(8));
          for (long value : ((LongSetTest) part).values()) {
            set.add(value);
          }
        } else if (part instanceof BytesTest && ((BytesTest) part).isEquality()) {
          strings.computeIfAbsent(((BytesTest) part).column, c -> new ArrayList<>()).addAll(List.of(((BytesTest) part).literals()));
        } else {
          merged.add(part);
        }
      }
      longs.forEach((column, set) -> merged.add(new LongSetTest(column, set, false)));
      strings.forEach((column, values) -> merged.add(new BytesTest(column, Expression.Operation.IN, values.toArray(new byte[0][]))));
      return merged;
    }

    private void flattenAnd(Expression expression, List<Node> parts) {
      if (expression.op() == Expression.Operation.AND) {
        flattenAnd(((And) expression).left(), parts);
        flattenAnd(((And) expression).right(), parts);
        return;
      }
      Node node = compile(expression);
      if (node != null) {
        parts.add(node);
      }
    }

    /** The conjunction, with ranges on the same column merged into one pass. */
    private static Node and(List<Node> parts) {
      List<Node> merged = new ArrayList<>();
      for (Node part : parts) {
        if (part instanceof LongRange) {
          LongRange range = (LongRange) part;
          boolean done = false;
          for (int i = 0; i < merged.size() && !done; i++) {
            if (merged.get(i) instanceof LongRange && ((LongRange) merged.get(i)).column == range.column) {
              merged.set(i, ((LongRange) merged.get(i)).intersect(range));
              done = true;
            }
          }
          if (done) {
            continue;
          }
        }
        merged.add(part);
      }
      if (merged.isEmpty()) {
        return null;
      }
      return merged.size() == 1 ? merged.get(0) : new AndNode(merged);
    }

    private Node leaf(BoundPredicate<?> predicate) {
      if (!(predicate.term() instanceof BoundReference)) {
        return null;
      }
      BoundReference<?> ref = (BoundReference<?>) predicate.term();
      Integer column = positions.get(ref.fieldId());
      if (column == null) {
        return null;
      }
      Type type = ref.type();
      Expression.Operation op = predicate.op();
      if (op == Expression.Operation.IS_NULL || op == Expression.Operation.NOT_NULL) {
        return new NullTest(column, op == Expression.Operation.IS_NULL);
      }
      switch (type.typeId()) {
        case INTEGER:
        case LONG:
        case DATE:
        case TIMESTAMP:
        case DECIMAL:
          return longLeaf(column, type, predicate);
        case DOUBLE:
          return doubleLeaf(column, predicate);
        case STRING:
          return stringLeaf(column, predicate);
        case BOOLEAN:
          if (predicate.isLiteralPredicate() && (op == Expression.Operation.EQ || op == Expression.Operation.NOT_EQ)) {
            return new BooleanTest(column, (Boolean) predicate.asLiteralPredicate().literal().value(), op == Expression.Operation.NOT_EQ);
          }
          return null;
        default:
          return null;
      }
    }

    private static Node longLeaf(int column, Type type, BoundPredicate<?> predicate) {
      Expression.Operation op = predicate.op();
      if (predicate.isSetPredicate()) {
        Set<?> values = predicate.asSetPredicate().literalSet();
        LongKeySet set = new LongKeySet(values.size());
        for (Object value : values) {
          Long v = asLong(type, value);
          if (v == null) {
            return null;
          }
          set.add(v);
        }
        return new LongSetTest(column, set, op == Expression.Operation.NOT_IN);
      }
      if (!predicate.isLiteralPredicate()) {
        return null;
      }
      Long boxed = asLong(type, predicate.asLiteralPredicate().literal().value());
      if (boxed == null) {
        return null;
      }
      long v = boxed;
      switch (op) {
        case LT:
          return v == Long.MIN_VALUE ? LongRange.empty(column) : new LongRange(column, Long.MIN_VALUE, v - 1);
        case LT_EQ:
          return new LongRange(column, Long.MIN_VALUE, v);
        case GT:
          return v == Long.MAX_VALUE ? LongRange.empty(column) : new LongRange(column, v + 1, Long.MAX_VALUE);
        case GT_EQ:
          return new LongRange(column, v, Long.MAX_VALUE);
        case EQ:
          return new LongRange(column, v, v);
        case NOT_EQ: {
          LongKeySet set = new LongKeySet(1);
          set.add(v);
          return new LongSetTest(column, set, true);
        }
        default:
          return null;
      }
    }

    /** A literal as the long the vectors hold for this type (a decimal's unscaled value), or null. */
    private static Long asLong(Type type, Object value) {
      if (type.typeId() == Type.TypeID.DECIMAL) {
        BigDecimal decimal = (BigDecimal) value;
        if (decimal.scale() != ((Types.DecimalType) type).scale()) {
          return null;
        }
        BigInteger unscaled = decimal.unscaledValue();
        return unscaled.bitLength() > 63 ? null : unscaled.longValue();
      }
      return value instanceof Number ? ((Number) value).longValue() : null;
    }

    private static Node doubleLeaf(int column, BoundPredicate<?> predicate) {
      if (!predicate.isLiteralPredicate()) {
        return null;
      }
      Object value = predicate.asLiteralPredicate().literal().value();
      if (!(value instanceof Double)) {
        return null;
      }
      switch (predicate.op()) {
        case LT:
        case LT_EQ:
        case GT:
        case GT_EQ:
        case EQ:
          return new DoubleTest(column, predicate.op(), (Double) value);
        default:
          return null;
      }
    }

    private static Node stringLeaf(int column, BoundPredicate<?> predicate) {
      Expression.Operation op = predicate.op();
      if (predicate.isSetPredicate()) {
        List<byte[]> values = new ArrayList<>();
        for (Object value : predicate.asSetPredicate().literalSet()) {
          values.add(utf8(value));
        }
        return new BytesTest(column, op, values.toArray(new byte[0][]));
      }
      if (!predicate.isLiteralPredicate()) {
        return null;
      }
      Object value = predicate.asLiteralPredicate().literal().value();
      switch (op) {
        case EQ:
        case NOT_EQ:
        case STARTS_WITH:
          return new BytesTest(column, op, new byte[][] {utf8(value)});
        case LT:
        case LT_EQ:
        case GT:
        case GT_EQ:
          // Calcite orders strings by UTF-16 code units, the bytes order by code points: the two agree
          // when every character of the literal is below the surrogates.
          for (char c : value.toString().toCharArray()) {
            if (c >= Character.MIN_SURROGATE) {
              return null;
            }
          }
          return new BytesTest(column, op, new byte[][] {utf8(value)});
        default:
          return null;
      }
    }

    private static byte[] utf8(Object value) {
      if (value instanceof ByteBuffer) {
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
      }
      return value.toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  private static final class AndNode implements Node {
    private final Node[] children;

    AndNode(List<Node> children) {
      this.children = children.toArray(new Node[0]);
    }

    @Override
    public int select(VectorHolder[] batch, int[] sel, int n) {
      int m = n;
      for (Node child : children) {
        if (m == 0) {
          return 0;
        }
        m = child.select(batch, sel, m);
      }
      return m;
    }
  }

  private static final class OrNode implements Node {
    private final List<Node> children;
    private int[] pending = new int[0];
    private int[] work = new int[0];
    private boolean[] kept = new boolean[0];

    OrNode(List<Node> children) {
      this.children = children;
    }

    @Override
    public int select(VectorHolder[] batch, int[] sel, int n) {
      if (pending.length < n) {
        pending = new int[n];
        work = new int[n];
      }
      int rows = n == 0 ? 0 : sel[n - 1] + 1;
      if (kept.length < rows) {
        kept = new boolean[Math.max(rows, VectorizedTaskReader.BATCH_ROWS)];
      }
      System.arraycopy(sel, 0, pending, 0, n);
      int remaining = n;
      for (Node child : children) {
        if (remaining == 0) {
          break;
        }
        System.arraycopy(pending, 0, work, 0, remaining);
        int matched = child.select(batch, work, remaining);
        if (matched == 0) {
          continue;
        }
        for (int i = 0; i < matched; i++) {
          kept[work[i]] = true;
        }
        int left = 0;
        for (int i = 0; i < remaining; i++) {
          if (!kept[pending[i]]) {
            pending[left++] = pending[i];
          }
        }
        remaining = left;
      }
      int m = 0;
      for (int i = 0; i < n; i++) {
        int r = sel[i];
        if (kept[r]) {
          kept[r] = false;
          sel[m++] = r;
        }
      }
      return m;
    }
  }

  /** IS NULL or IS NOT NULL. */
  private static final class NullTest implements Node {
    private final int column;
    private final boolean keepNulls;

    NullTest(int column, boolean keepNulls) {
      this.column = column;
      this.keepNulls = keepNulls;
    }

    @Override
    public int select(VectorHolder[] batch, int[] sel, int n) {
      VectorHolder holder = batch[column];
      if (holder instanceof VectorHolder.ConstantVectorHolder || holder.vector() == null) {
        return n;
      }
      NullabilityHolder nulls = holder.nullabilityHolder();
      if (nulls == null) {
        return n;
      }
      if (!nulls.hasNulls()) {
        return keepNulls ? 0 : n;
      }
      int m = 0;
      for (int i = 0; i < n; i++) {
        int r = sel[i];
        if ((nulls.isNullAt(r) == 1) == keepNulls) {
          sel[m++] = r;
        }
      }
      return m;
    }
  }

  /**
   * A LIKE or NOT LIKE that is evaluated exactly, whatever the batch holds: a NULL never passes,
   * a constant (partition) column is tested once, a dictionary-encoded column once per entry.
   */
  private static final class LikeTest implements Node {
    private final int column;
    private final LikePredicate like;
    private final Checkpoint checkpoint;
    private Dictionary dictionary;
    private boolean[] dictionaryKeeps;
    private byte[] scratch = new byte[64];

    LikeTest(int column, LikePredicate like, Checkpoint checkpoint) {
      this.column = column;
      this.like = like;
      this.checkpoint = checkpoint;
    }

    @Override
    public int select(VectorHolder[] batch, int[] sel, int n) {
      VectorHolder holder = batch[column];
      if (holder instanceof VectorHolder.ConstantVectorHolder) {
        Object constant = ((VectorHolder.ConstantVectorHolder<?>) holder).getConstant();
        if (constant == null) {
          return 0;
        }
        byte[] bytes = constant instanceof ByteBuffer
            ? ByteBuffers.toByteArray((ByteBuffer) constant)
            : constant.toString().getBytes(StandardCharsets.UTF_8);
        return like.keeps(bytes, bytes.length, checkpoint) ? n : 0;
      }
      FieldVector vector = holder.vector();
      NullabilityHolder nulls = holder.nullabilityHolder();
      boolean hasNulls = nulls != null && nulls.hasNulls();
      int m = 0;
      if (holder.isDictionaryEncoded()) {
        boolean[] keeps = dictionaryKeeps(holder.dictionary());
        ArrowBuf ids = vector.getDataBuffer();
        for (int i = 0; i < n; i++) {
          int r = sel[i];
          if (!(hasNulls && nulls.isNullAt(r) == 1) && keeps[ids.getInt((long) r * 4)]) {
            sel[m++] = r;
          }
        }
        return m;
      }
      if (!(vector instanceof BaseVariableWidthVector)) {
        throw new IllegalStateException("No vectorized LIKE on " + vector.getClass().getSimpleName());
      }
      BaseVariableWidthVector strings = (BaseVariableWidthVector) vector;
      ArrowBuf offsets = strings.getOffsetBuffer();
      ArrowBuf data = strings.getDataBuffer();
      for (int i = 0; i < n; i++) {
        int r = sel[i];
        if (hasNulls && nulls.isNullAt(r) == 1) {
          continue;
        }
        int start = offsets.getInt((long) r * 4);
        int length = offsets.getInt((long) (r + 1) * 4) - start;
        if (scratch.length < length) {
          scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        data.getBytes(start, scratch, 0, length);
        if (like.keeps(scratch, length, checkpoint)) {
          sel[m++] = r;
        }
      }
      return m;
    }

    private boolean[] dictionaryKeeps(Dictionary current) {
      if (current != dictionary) {
        boolean[] keeps = new boolean[current.getMaxId() + 1];
        for (int id = 0; id < keeps.length; id++) {
          byte[] bytes = current.decodeToBinary(id).getBytes();
          keeps[id] = like.keeps(bytes, bytes.length, checkpoint);
        }
        dictionary = current;
        dictionaryKeeps = keeps;
      }
      return dictionaryKeeps;
    }
  }
}
