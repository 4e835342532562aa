package io.sqe.engine.iceberg;

import io.sqe.engine.exec.ValueSet;
import io.sqe.engine.sql.functions.ArithmeticFunctions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.arrow.vectorized.NullabilityHolder;
import org.apache.iceberg.arrow.vectorized.VectorHolder;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A partial aggregation that an Iceberg scan computes itself (see {@code AggregateIntoScan}): the
 * group keys (scan columns), the aggregate calls (COUNT, SUM, SUM0, MIN, MAX over scan columns or
 * exact arithmetic on them) and the condition of the Calc it replaced, which the scan evaluates
 * exactly on every row it reads. The scan folds the rows of each file scan task into one {@link
 * Folder} and returns one row per group (keys, then partial results in the calls' types), for a
 * combining aggregate above. The same folding runs over any input's rows ({@link #foldRows}) for
 * aggregates elsewhere in a plan ({@code FoldedAggregate}).
 *
 * <p>Exact numerics are unscaled longs with the scale of their Calcite type; +, - and * use {@link
 * Math#addExact} and {@link Math#multiplyExact} and fall back to {@link BigDecimal} on overflow,
 * so results are exactly the ones Calcite's {@code BigDecimal} arithmetic computes. Anything else
 * (other types or operators, a result scale that is not the exact one) is refused at plan time.
 *
 * <p>Immutable; each task gets its own {@link Folder}.
 */
public final class ScanAggregation {
  private static final long[] POW10 = new long[19];

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
  }

  /** A hash of several keys, one at a time: {@code h} with the next key (NULL or a value) mixed in. */
  private static long mixIn(long h, boolean isNull, long value) {
    long x = (h + (isNull ? 0x632B_E59B_D9B4_E019L : value)) * 0x9E37_79B9_7F4A_7C15L;
    return x ^ (x >>> 29);
  }

  /** How a scan column is held in a folder: an exact number (unscaled), a boolean (0/1) or an interned string code. */
  enum Kind {
    EXACT,
    BOOLEAN,
    STRING
  }

  /** Per scan output column: how it is held, null when unused. */
  private final Kind[] kinds;
  /** Per scan output column: the Calcite type name and decimal scale. */
  private final SqlTypeName[] types;
  private final int[] scales;
  private final int[] keys;
  private final Call[] calls;
  /** The condition, or null when every row counts. */
  private final Cond condition;
  private final String description;

  private ScanAggregation(Kind[] kinds, SqlTypeName[] types, int[] scales, int[] keys, Call[] calls, Cond condition, String description) {
    this.kinds = kinds;
    this.types = types;
    this.scales = scales;
    this.keys = keys;
    this.calls = calls;
    this.condition = condition;
    this.description = description;
  }

  /** How many group keys the scan's rows start with. */
  public int keyCount() {
    return keys.length;
  }

  /** The scan output column (index into the scan's projection) of group key {@code key}. */
  public int keyColumn(int key) {
    return keys[key];
  }

  /** The number of fields of each row the scan returns. */
  int outputWidth() {
    return keys.length + calls.length;
  }

  Folder newFolder(Object[] constants) {
    return new Folder(constants);
  }

  /**
   * Folds every row of {@code rows}, in Calcite's shape for the row type this aggregation was made
   * for (a bare value for one field), and returns one row per group in Calcite's shape for the
   * aggregate's output. Without group keys that is one row even for no input, as SQL's aggregate
   * without GROUP BY returns. Closes {@code rows}; runs {@code checkCancelled} every few thousand
   * rows.
   */
  public List<Object> foldRows(Enumerator<Object> rows, Runnable checkCancelled) {
    Folder folder = new Folder(new Object[kinds.length]);
    try (rows) {
      int read = 0;
      while (rows.moveNext()) {
        folder.foldRow(rows.current());
        if (++read == 1 << 14) {
          read = 0;
          checkCancelled.run();
        }
      }
    }
    return folder.results(keys.length == 0);
  }

  @Override
  public String toString() {
    return description;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ScanAggregation && ((ScanAggregation) other).description.equals(description);
  }

  @Override
  public int hashCode() {
    return description.hashCode();
  }

  // ---------------------------------------------------------------------------------------------
  // Plan time

  /**
   * The aggregation of {@code aggregate} over {@code scanRowType} (the scan's rows, through {@code
   * calc} when not null), or empty when any part of it is outside what a scan folds exactly.
   */
  public static Optional<ScanAggregation> of(
      RelDataType scanRowType, RexProgram calc, Aggregate aggregate, RexBuilder rexBuilder) {
    return of(scanRowType, calc, aggregate, rexBuilder, false);
  }

  /**
   * As {@link #of(RelDataType, RexProgram, Aggregate, RexBuilder)}, for rows that {@link
   * #foldRows} folds: these may also hold decimals wider than a long (the partial sums a combining
   * aggregate adds up), as arguments, not as keys.
   */
  public static Optional<ScanAggregation> ofRows(RelDataType rowType, RexProgram calc, Aggregate aggregate, RexBuilder rexBuilder) {
    return of(rowType, calc, aggregate, rexBuilder, true);
  }

  private static Optional<ScanAggregation> of(
      RelDataType scanRowType, RexProgram calc, Aggregate aggregate, RexBuilder rexBuilder, boolean wideDecimals) {
    if (aggregate.getGroupType() != Aggregate.Group.SIMPLE) {
      return Optional.empty();
    }
    int width = scanRowType.getFieldCount();
    Compiler compiler = new Compiler(scanRowType, rexBuilder, wideDecimals);
    List<RexNode> inputs = new ArrayList<>();
    if (calc == null) {
      for (int i = 0; i < width; i++) {
        inputs.add(new RexInputRef(i, scanRowType.getFieldList().get(i).getType()));
      }
    } else {
      for (int i = 0; i < calc.getProjectList().size(); i++) {
        inputs.add(calc.expandLocalRef(calc.getProjectList().get(i)));
      }
    }
    StringBuilder description = new StringBuilder("group=[");
    int[] keys = new int[aggregate.getGroupCount()];
    int k = 0;
    for (int key : aggregate.getGroupSet()) {
      RexNode input = inputs.get(key);
      if (!(input instanceof RexInputRef) || compiler.use(((RexInputRef) input).getIndex(), true) == null) {
        return Optional.empty();
      }
      keys[k++] = ((RexInputRef) input).getIndex();
      description.append(k > 1 ? ", " : "").append(input);
    }
    description.append("], calls=[");
    List<AggregateCall> aggCalls = aggregate.getAggCallList();
    Call[] calls = new Call[aggCalls.size()];
    for (int i = 0; i < calls.length; i++) {
      AggregateCall call = aggCalls.get(i);
      if (call.isDistinct() || call.isApproximate() || call.filterArg >= 0 || !call.getCollation().getFieldCollations().isEmpty()
          || !call.rexList.isEmpty()) {
        return Optional.empty();
      }
      Call compiled = compiler.call(call, inputs);
      if (compiled == null) {
        return Optional.empty();
      }
      calls[i] = compiled;
      description.append(i > 0 ? ", " : "").append(compiled.description);
    }
    description.append(']');
    Cond condition = null;
    if (calc != null && calc.getCondition() != null) {
      RexNode expanded = calc.expandLocalRef(calc.getCondition());
      condition = compiler.cond(expanded);
      if (condition == null) {
        return Optional.empty();
      }
      description.append(", where=").append(expanded);
    }
    return Optional.of(new ScanAggregation(compiler.kinds, compiler.types, compiler.scales, keys, calls, condition, description.toString()));
  }

  private static final class Compiler {
    private final RelDataType rowType;
    private final RexBuilder rexBuilder;
    /** Whether decimals wider than a long may be read (row folding), as arguments only. */
    private final boolean wideDecimals;
    final Kind[] kinds;
    final SqlTypeName[] types;
    final int[] scales;

    Compiler(RelDataType rowType, RexBuilder rexBuilder, boolean wideDecimals) {
      this.rowType = rowType;
      this.rexBuilder = rexBuilder;
      this.wideDecimals = wideDecimals;
      int width = rowType.getFieldCount();
      this.kinds = new Kind[width];
      this.types = new SqlTypeName[width];
      this.scales = new int[width];
    }

    /** Marks scan column {@code index} used and returns its kind, or null when a folder cannot hold it. */
    Kind use(int index, boolean asKey) {
      RelDataType type = rowType.getFieldList().get(index).getType();
      SqlTypeName name = type.getSqlTypeName();
      Kind kind;
      switch (name) {
        case INTEGER:
        case BIGINT:
        case DATE:
          kind = Kind.EXACT;
          break;
        case DECIMAL:
          if (type.getScale() < 0 || type.getPrecision() > 18 && (asKey || !wideDecimals)) {
            return null;
          }
          kind = Kind.EXACT;
          break;
        case BOOLEAN:
          kind = Kind.BOOLEAN;
          break;
        case VARCHAR:
          kind = Kind.STRING;
          break;
        default:
          return null;
      }
      kinds[index] = kind;
      types[index] = name;
      scales[index] = name == SqlTypeName.DECIMAL ? type.getScale() : 0;
      return kind;
    }

    Call call(AggregateCall call, List<RexNode> inputs) {
      SqlKind kind = call.getAggregation().getKind();
      RelDataType type = call.getType();
      List<Integer> args = call.getArgList();
      if (kind == SqlKind.COUNT) {
        if (args.isEmpty()) {
          return new Call(kind, null, -1, type.getSqlTypeName(), 0, "COUNT()");
        }
        if (args.size() != 1) {
          return null;
        }
        RexNode arg = inputs.get(args.get(0));
        if (arg instanceof RexInputRef && use(((RexInputRef) arg).getIndex(), false) != null) {
          return new Call(kind, null, ((RexInputRef) arg).getIndex(), type.getSqlTypeName(), 0, "COUNT(" + arg + ")");
        }
        Num num = num(arg);
        return num == null ? null : new Call(kind, num, -1, type.getSqlTypeName(), 0, "COUNT(" + arg + ")");
      }
      if (args.size() != 1 || !(kind == SqlKind.SUM || kind == SqlKind.SUM0 || kind == SqlKind.MIN || kind == SqlKind.MAX)) {
        return null;
      }
      RexNode arg = inputs.get(args.get(0));
      Num num = num(arg);
      if (num == null) {
        return null;
      }
      SqlTypeName out = type.getSqlTypeName();
      SqlTypeName in = arg.getType().getSqlTypeName();
      boolean fits;
      if (kind == SqlKind.SUM || kind == SqlKind.SUM0) {
        fits = (out == SqlTypeName.DECIMAL && in == SqlTypeName.DECIMAL && type.getScale() == num.scale)
            || (out == SqlTypeName.BIGINT && (in == SqlTypeName.INTEGER || in == SqlTypeName.BIGINT));
      } else {
        fits = out == in && (out == SqlTypeName.DECIMAL ? type.getScale() == num.scale : out != SqlTypeName.BOOLEAN);
      }
      if (!fits || num.date && (kind == SqlKind.SUM || kind == SqlKind.SUM0)) {
        return null;
      }
      return new Call(kind, num, -1, out, type.getScale(), kind + "(" + arg + ")");
    }

    /** An exact number (or a date) computed from scan columns, or null. */
    Num num(RexNode node) {
      RelDataType type = node.getType();
      if (node instanceof RexInputRef) {
        int index = ((RexInputRef) node).getIndex();
        if (use(index, false) != Kind.EXACT) {
          return null;
        }
        return new Num(Num.COLUMN, index, 0, scales[index], types[index] == SqlTypeName.DATE, null, null);
      }
      if (node instanceof RexLiteral) {
        RexLiteral literal = (RexLiteral) node;
        if (literal.isNull()) {
          return null;
        }
        switch (type.getSqlTypeName()) {
          case DATE: {
            Integer days = literal.getValueAs(Integer.class);
            return days == null ? null : new Num(Num.LITERAL, -1, days, 0, true, null, null);
          }
          case INTEGER:
          case BIGINT:
          case DECIMAL: {
            BigDecimal value = literal.getValueAs(BigDecimal.class);
            int scale = type.getSqlTypeName() == SqlTypeName.DECIMAL ? type.getScale() : 0;
            if (value == null || scale < 0 || scale > 18) {
              return null;
            }
            try {
              return new Num(Num.LITERAL, -1, value.setScale(scale).unscaledValue().longValueExact(), scale, false, null, null);
            } catch (ArithmeticException e) {
              return null;
            }
          }
          default:
            return null;
        }
      }
      if (!(node instanceof RexCall)) {
        return null;
      }
      RexCall call = (RexCall) node;
      switch (call.getKind()) {
        case PLUS:
        case MINUS:
        case TIMES: {
          if (type.getSqlTypeName() != SqlTypeName.DECIMAL || call.getOperands().size() != 2) {
            return null;
          }
          Num left = num(call.getOperands().get(0));
          Num right = num(call.getOperands().get(1));
          if (left == null || right == null || left.date || right.date) {
            return null;
          }
          int scale = call.getKind() == SqlKind.TIMES ? left.scale + right.scale : Math.max(left.scale, right.scale);
          if (type.getScale() != scale || scale > 18) {
            return null;
          }
          int op = call.getKind() == SqlKind.PLUS ? Num.PLUS : call.getKind() == SqlKind.MINUS ? Num.MINUS : Num.TIMES;
          return new Num(op, -1, 0, scale, false, left, right);
        }
        case CAST: {
          Num operand = num(call.getOperands().get(0));
          if (operand == null || operand.date) {
            return null;
          }
          RelDataType from = call.getOperands().get(0).getType();
          int fromDigits = integerDigits(from);
          SqlTypeName to = type.getSqlTypeName();
          if (to == SqlTypeName.DECIMAL) {
            int scale = type.getScale();
            if (fromDigits < 0 || scale < operand.scale || scale > 18 || type.getPrecision() - scale < fromDigits) {
              return null;
            }
            return scale == operand.scale ? operand : new Num(Num.RESCALE, -1, 0, scale, false, operand, null);
          }
          if (to == SqlTypeName.BIGINT && (from.getSqlTypeName() == SqlTypeName.INTEGER || from.getSqlTypeName() == SqlTypeName.BIGINT)) {
            return operand;
          }
          if (to == from.getSqlTypeName() && to != SqlTypeName.DECIMAL) {
            return operand;
          }
          return null;
        }
        default:
          return null;
      }
    }

    private static int integerDigits(RelDataType type) {
      switch (type.getSqlTypeName()) {
        case INTEGER:
          return 10;
        case BIGINT:
          return 19;
        case DECIMAL:
          return type.getPrecision() - type.getScale();
        default:
          return -1;
      }
    }

    /** A condition on the scan's columns, evaluated with SQL's three-valued logic, or null. */
    Cond cond(RexNode node) {
      if (node instanceof RexLiteral) {
        Boolean value = ((RexLiteral) node).getValueAs(Boolean.class);
        return new Cond(value == null ? Cond.UNKNOWN : value ? Cond.TRUE : Cond.FALSE, null, null, null);
      }
      if (!(node instanceof RexCall)) {
        return null;
      }
      RexCall call = (RexCall) node;
      List<RexNode> operands = call.getOperands();
      switch (call.getKind()) {
        case AND:
        case OR: {
          List<Cond> children = new ArrayList<>();
          for (RexNode operand : operands) {
            Cond child = cond(operand);
            if (child == null) {
              return null;
            }
            children.add(child);
          }
          return new Cond(call.getKind() == SqlKind.AND ? Cond.AND : Cond.OR, children.toArray(new Cond[0]), null, null);
        }
        case NOT: {
          Cond child = cond(operands.get(0));
          return child == null ? null : new Cond(Cond.NOT, new Cond[] {child}, null, null);
        }
        case SEARCH:
          // A large set is one lookup in the compiled plan, but thousands of comparisons here.
          return ValueSet.isLarge(call) ? null : cond(RexUtil.expandSearch(rexBuilder, null, call));
        case IS_NULL:
        case IS_NOT_NULL: {
          Num operand = num(operands.get(0));
          return operand == null ? null : new Cond(call.getKind() == SqlKind.IS_NULL ? Cond.IS_NULL : Cond.IS_NOT_NULL, null, operand, null);
        }
        case EQUALS:
        case NOT_EQUALS:
        case LESS_THAN:
        case LESS_THAN_OR_EQUAL:
        case GREATER_THAN:
        case GREATER_THAN_OR_EQUAL: {
          Num left = num(operands.get(0));
          Num right = num(operands.get(1));
          if (left == null || right == null || left.date != right.date) {
            return null;
          }
          int op;
          switch (call.getKind()) {
            case EQUALS:
              op = Cond.EQ;
              break;
            case NOT_EQUALS:
              op = Cond.NE;
              break;
            case LESS_THAN:
              op = Cond.LT;
              break;
            case LESS_THAN_OR_EQUAL:
              op = Cond.LE;
              break;
            case GREATER_THAN:
              op = Cond.GT;
              break;
            default:
              op = Cond.GE;
              break;
          }
          return new Cond(op, null, left, right);
        }
        default:
          return null;
      }
    }
  }

  /** An exact-number expression: a column, a literal, +, -, * or a rescale, with its result scale. */
  private static final class Num {
    static final int COLUMN = 0;
    static final int LITERAL = 1;
    static final int PLUS = 2;
    static final int MINUS = 3;
    static final int TIMES = 4;
    static final int RESCALE = 5;

    final int op;
    final int column;
    final long literal;
    final int scale;
    /** Whether it is a date (days since the epoch), comparable only with dates. */
    final boolean date;
    final Num left;
    final Num right;
    /** Equal for expressions that compute the same values: a batch computes each once. */
    final String digest;

    Num(int op, int column, long literal, int scale, boolean date, Num left, Num right) {
      this.digest = op + "(" + column + "," + literal + "," + scale + "," + date + ","
          + (left == null ? "" : left.digest) + "," + (right == null ? "" : right.digest) + ")";
      this.op = op;
      this.column = column;
      this.literal = literal;
      this.scale = scale;
      this.date = date;
      this.left = left;
      this.right = right;
    }
  }

  /** A condition node. */
  private static final class Cond {
    static final int TRUE = 0;
    static final int FALSE = 1;
    static final int UNKNOWN = 2;
    static final int AND = 3;
    static final int OR = 4;
    static final int NOT = 5;
    static final int IS_NULL = 6;
    static final int IS_NOT_NULL = 7;
    static final int EQ = 8;
    static final int NE = 9;
    static final int LT = 10;
    static final int LE = 11;
    static final int GT = 12;
    static final int GE = 13;

    final int op;
    final Cond[] children;
    final Num left;
    final Num right;

    Cond(int op, Cond[] children, Num left, Num right) {
      this.op = op;
      this.children = children;
      this.left = left;
      this.right = right;
    }
  }

  /** An aggregate call: COUNT (of all rows, of a column's non-null values or of a number's), SUM, SUM0, MIN or MAX. */
  private static final class Call {
    final SqlKind kind;
    final Num arg;
    /** For COUNT of a column: the column; else -1. */
    final int countColumn;
    final SqlTypeName outType;
    final int outScale;
    final String description;

    Call(SqlKind kind, Num arg, int countColumn, SqlTypeName outType, int outScale, String description) {
      this.kind = kind;
      this.arg = arg;
      this.countColumn = countColumn;
      this.outType = outType;
      this.outScale = outScale;
      this.description = description;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Run time

  /** Three-valued results of a condition, per row. */
  private static final byte F = 0;
  private static final byte T = 1;
  private static final byte U = 2;

  /** Values of an exact-number expression for the rows of a batch; {@code big[i]} set where the value overflowed a long. */
  private static final class Values {
    int batchNumber = -1;
    long[] v = new long[0];
    boolean[] nulls = new boolean[0];
    BigDecimal[] big;
    boolean anyBig;
    int scale;

    void ensure(int n) {
      if (v.length < n) {
        v = new long[n];
        nulls = new boolean[n];
        big = null;
      }
    }

    BigDecimal bigAt(int i) {
      return anyBig && big[i] != null ? big[i] : BigDecimal.valueOf(v[i], scale);
    }

    void setBig(int i, BigDecimal value, int n) {
      if (big == null || big.length < v.length) {
        big = new BigDecimal[v.length];
      }
      if (!anyBig) {
        Arrays.fill(big, 0, n, null);
        anyBig = true;
      }
      big[i] = value;
    }

    boolean isBig(int i) {
      return anyBig && big[i] != null;
    }
  }

  /** Folds the rows of one file scan task, or of one input of a folded aggregate, into groups; not thread safe. */
  final class Folder {
    private final Object[] constants;
    /** Per scan column: the batch's values as longs (exact numbers unscaled, booleans 0/1, strings by code) and NULL flags. */
    private final long[][] longs;
    private final boolean[][] nulls;
    private final Dictionary[] dictionaries;
    private final long[][] dictionaryCodes;
    private final Map<String, Integer> stringCodes = new HashMap<>();
    private final List<String> strings = new ArrayList<>();
    private byte[] scratch = new byte[64];
    private int capacity;
    private final Map<String, Values> values = new HashMap<>();
    /** Counts the batches folded, so that an expression's values are computed once per batch. */
    private int batchNumber;
    private byte[][] condScratch = new byte[0][];
    private int condDepth;
    private int[] kept = new int[0];
    private int[] groupOf = new int[0];
    /** Rows buffered by {@link #foldRow}. */
    private int buffered;
    /** Per column, the buffered rows' decimals that do not fit a long (row folding only), or null. */
    private BigDecimal[][] bigColumns;

    // Groups.
    private int groupCount;
    private long[][] keyValues;
    private boolean[][] keyNulls;
    private final LongIntMap packed = new LongIntMap(keys.length == 1);
    /** The single key of the last row grouped, and its group (-1 before the first). */
    private long lastKey;
    private int lastGroup = -1;
    /** Per slot of the general keys' table, a group plus one; 0 for an empty slot. */
    private int[] general = new int[64];
    private int generalCount;
    private int nullGroup = -1;
    private int groupCapacity = 16;
    // Accumulators, per call, per group.
    private long[][] counts;
    private long[][] sums;
    private BigDecimal[][] bigs;
    private boolean[][] seen;

    Folder(Object[] constants) {
      this.constants = constants;
      int width = kinds.length;
      this.longs = new long[width][];
      this.nulls = new boolean[width][];
      this.dictionaries = new Dictionary[width];
      this.dictionaryCodes = new long[width][];
      this.keyValues = new long[keys.length][16];
      this.keyNulls = new boolean[keys.length][16];
      this.counts = new long[calls.length][16];
      this.sums = new long[calls.length][16];
      this.bigs = new BigDecimal[calls.length][];
      this.seen = new boolean[calls.length][16];
      ensure(VectorizedTaskReader.BATCH_ROWS);
    }

    private void ensure(int n) {
      if (capacity >= n) {
        return;
      }
      capacity = Math.max(n, capacity * 2);
      for (int c = 0; c < kinds.length; c++) {
        if (kinds[c] != null) {
          longs[c] = Arrays.copyOf(longs[c] == null ? new long[0] : longs[c], capacity);
          nulls[c] = Arrays.copyOf(nulls[c] == null ? new boolean[0] : nulls[c], capacity);
        }
      }
      kept = new int[capacity];
      groupOf = new int[capacity];
    }

    /** Folds the {@code n} rows of {@code batch} at positions {@code sel[0..n)}. */
    void foldBatch(VectorHolder[] batch, int[] sel, int n) {
      if (n == 0) {
        return;
      }
      ensure(n);
      for (int c = 0; c < kinds.length; c++) {
        if (kinds[c] != null) {
          load(c, batch[c], sel, n);
        }
      }
      foldLoaded(n);
    }

    /** Folds one row in Calcite's shape for the scan's columns (a bare value for one column). */
    void foldRow(Object row) {
      if (buffered == capacity) {
        flush();
      }
      int r = buffered++;
      for (int c = 0; c < kinds.length; c++) {
        if (kinds[c] != null) {
          Object value = kinds.length == 1 ? row : ((Object[]) row)[c];
          store(c, r, value);
        }
      }
    }

    /** Folds the rows {@link #foldRow} buffered. */
    void flush() {
      if (buffered > 0) {
        int n = buffered;
        buffered = 0;
        foldLoaded(n);
        if (bigColumns != null) {
          Arrays.fill(bigColumns, null);
        }
      }
    }

    /** The groups folded so far, one row each in Calcite's shape for the scan's output. */
    List<Object> results() {
      return results(false);
    }

    /**
     * As {@link #results()}; with {@code oneGroup}, a group of no rows when none was folded. The
     * list is a view that builds each group's row as it is read: a million groups' rows are never
     * all alive at once (held in a list, they outlived the young generation and were copied into
     * the old). Folding no more rows into this folder keeps the view valid.
     */
    List<Object> results(boolean oneGroup) {
      flush();
      if (oneGroup && groupCount == 0) {
        newGroup();
      }
      int size = groupCount;
      return new AbstractList<>() {
        @Override
        public Object get(int g) {
          Objects.checkIndex(g, size);
          return row(g);
        }

        @Override
        public int size() {
          return size;
        }
      };
    }

    private Object row(int g) {
      if (keys.length + calls.length == 1) {
        return keys.length == 1 ? key(0, g) : result(0, g);
      }
      Object[] row = new Object[keys.length + calls.length];
      for (int k = 0; k < keys.length; k++) {
        row[k] = key(k, g);
      }
      for (int a = 0; a < calls.length; a++) {
        row[keys.length + a] = result(a, g);
      }
      return row;
    }

    private Object key(int k, int g) {
      return keyNulls[k][g] ? null : keyValue(keys[k], keyValues[k][g]);
    }

    private Object keyValue(int column, long value) {
      switch (kinds[column]) {
        case STRING:
          return strings.get((int) value);
        case BOOLEAN:
          return value != 0;
        default:
          return exactValue(types[column], scales[column], value);
      }
    }

    private Object exactValue(SqlTypeName type, int scale, long value) {
      switch (type) {
        case INTEGER:
        case DATE:
          return (int) value;
        case BIGINT:
          return value;
        default:
          return BigDecimal.valueOf(value, scale);
      }
    }

    private Object result(int a, int g) {
      Call call = calls[a];
      switch (call.kind) {
        case COUNT:
          return counts[a][g];
        case SUM:
        case SUM0: {
          if (!seen[a][g]) {
            if (call.kind == SqlKind.SUM) {
              return null;
            }
            return call.outType == SqlTypeName.DECIMAL ? BigDecimal.valueOf(0, call.outScale) : (Object) 0L;
          }
          BigDecimal big = bigs[a] == null ? null : bigs[a][g];
          if (call.outType == SqlTypeName.DECIMAL) {
            BigDecimal sum = BigDecimal.valueOf(sums[a][g], call.arg.scale);
            return big == null ? sum : big.add(sum);
          }
          // BIGINT: the exact total, which fails past the type's range as the sums of rows do.
          return big == null ? sums[a][g] : ArithmeticFunctions.sum(big.toBigInteger().add(BigInteger.valueOf(sums[a][g])));
        }
        default: {
          if (!seen[a][g]) {
            return null;
          }
          BigDecimal big = bigs[a] == null ? null : bigs[a][g];
          if (big != null) {
            return call.outType == SqlTypeName.DECIMAL ? big : exactValue(call.outType, 0, big.longValueExact());
          }
          return exactValue(call.outType, call.arg.scale, sums[a][g]);
        }
      }
    }

    // --- loading columns -------------------------------------------------------------------------

    private void load(int c, VectorHolder holder, int[] sel, int n) {
      long[] out = longs[c];
      boolean[] outNulls = nulls[c];
      if (holder instanceof VectorHolder.ConstantVectorHolder || holder.vector() == null) {
        Object constant = constants[c];
        if (constant == null) {
          Arrays.fill(outNulls, 0, n, true);
        } else {
          store(c, 0, constant);
          Arrays.fill(out, 1, n, out[0]);
          Arrays.fill(outNulls, 0, n, false);
        }
        return;
      }
      NullabilityHolder nullability = holder.nullabilityHolder();
      boolean hasNulls = nullability != null && nullability.hasNulls();
      for (int i = 0; i < n; i++) {
        outNulls[i] = hasNulls && nullability.isNullAt(sel[i]) == 1;
      }
      FieldVector vector = holder.vector();
      if (holder.isDictionaryEncoded()) {
        long[] codes = dictionaryCodes(c, holder);
        ArrowBuf ids = vector.getDataBuffer();
        for (int i = 0; i < n; i++) {
          out[i] = outNulls[i] ? 0 : codes[ids.getInt((long) sel[i] * 4)];
        }
        return;
      }
      switch (kinds[c]) {
        case BOOLEAN: {
          BitVector bits = (BitVector) vector;
          for (int i = 0; i < n; i++) {
            out[i] = outNulls[i] ? 0 : bits.get(sel[i]);
          }
          return;
        }
        case STRING: {
          BaseVariableWidthVector varWidth = (BaseVariableWidthVector) vector;
          ArrowBuf offsets = varWidth.getOffsetBuffer();
          ArrowBuf data = varWidth.getDataBuffer();
          for (int i = 0; i < n; i++) {
            if (outNulls[i]) {
              out[i] = 0;
              continue;
            }
            int r = sel[i];
            int start = offsets.getInt((long) r * 4);
            int length = offsets.getInt((long) (r + 1) * 4) - start;
            if (scratch.length < length) {
              scratch = new byte[Math.max(length, scratch.length * 2)];
            }
            data.getBytes(start, scratch, 0, length);
            out[i] = code(new String(scratch, 0, length, StandardCharsets.UTF_8));
          }
          return;
        }
        default: {
          if (vector instanceof FixedSizeBinaryVector) {
            FixedSizeBinaryVector bytes = (FixedSizeBinaryVector) vector;
            for (int i = 0; i < n; i++) {
              out[i] = outNulls[i] ? 0 : new BigInteger(bytes.get(sel[i])).longValueExact();
            }
            return;
          }
          BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
          ArrowBuf data = fixed.getDataBuffer();
          if (fixed.getTypeWidth() == 8) {
            for (int i = 0; i < n; i++) {
              out[i] = data.getLong((long) sel[i] * 8);
            }
          } else {
            for (int i = 0; i < n; i++) {
              out[i] = data.getInt((long) sel[i] * 4);
            }
          }
        }
      }
    }

    /** Per id of the column's current dictionary, its value as this folder holds it. */
    private long[] dictionaryCodes(int c, VectorHolder holder) {
      Dictionary dictionary = holder.dictionary();
      if (dictionaries[c] == dictionary) {
        return dictionaryCodes[c];
      }
      PrimitiveTypeName physical = holder.descriptor().getPrimitiveType().getPrimitiveTypeName();
      long[] codes = new long[dictionary.getMaxId() + 1];
      for (int id = 0; id < codes.length; id++) {
        switch (kinds[c]) {
          case STRING:
            codes[id] = code(dictionary.decodeToBinary(id).toStringUsingUTF8());
            break;
          case BOOLEAN:
            codes[id] = dictionary.decodeToBoolean(id) ? 1 : 0;
            break;
          default:
            if (physical == PrimitiveTypeName.INT32) {
              codes[id] = dictionary.decodeToInt(id);
            } else if (physical == PrimitiveTypeName.INT64) {
              codes[id] = dictionary.decodeToLong(id);
            } else {
              codes[id] = new BigInteger(dictionary.decodeToBinary(id).getBytes()).longValueExact();
            }
        }
      }
      dictionaries[c] = dictionary;
      dictionaryCodes[c] = codes;
      return codes;
    }

    private int code(String value) {
      Integer code = stringCodes.get(value);
      if (code == null) {
        code = strings.size();
        strings.add(value);
        stringCodes.put(value, code);
      }
      return code;
    }

    /** Stores a Calcite value of column {@code c} at row {@code r}. */
    private void store(int c, int r, Object value) {
      if (value == null) {
        nulls[c][r] = true;
        longs[c][r] = 0;
        return;
      }
      nulls[c][r] = false;
      long v;
      switch (kinds[c]) {
        case STRING:
          v = code(value.toString());
          break;
        case BOOLEAN:
          v = ((Boolean) value) ? 1 : 0;
          break;
        default:
          if (value instanceof BigDecimal) {
            // scaleByPowerOfTen then longValueExact reads a small value without making a BigInteger.
            BigDecimal decimal = (BigDecimal) value;
            int scale = scales[c];
            if (decimal.scale() != scale) {
              decimal = decimal.setScale(scale);
            }
            try {
              v = decimal.scaleByPowerOfTen(scale).longValueExact();
            } catch (ArithmeticException e) {
              // Wider than a long: only a wide decimal column (row folding) holds such values.
              if (bigColumns == null) {
                bigColumns = new BigDecimal[kinds.length][];
              }
              if (bigColumns[c] == null) {
                bigColumns[c] = new BigDecimal[capacity];
              }
              bigColumns[c][r] = decimal;
              v = 0;
            }
          } else {
            v = ((Number) value).longValue();
          }
      }
      longs[c][r] = v;
    }

    // --- folding ---------------------------------------------------------------------------------

    private void foldLoaded(int n) {
      batchNumber++;
      int m;
      if (condition == null) {
        for (int i = 0; i < n; i++) {
          kept[i] = i;
        }
        m = n;
      } else {
        condDepth = 0;
        byte[] result = cond(condition, n);
        m = 0;
        for (int i = 0; i < n; i++) {
          if (result[i] == T) {
            kept[m++] = i;
          }
        }
      }
      if (m == 0) {
        return;
      }
      assignGroups(m);
      for (int a = 0; a < calls.length; a++) {
        fold(a, m, n);
      }
    }

    private void assignGroups(int m) {
      if (keys.length == 0) {
        if (groupCount == 0) {
          newGroup();
        }
        Arrays.fill(groupOf, 0, m, 0);
        return;
      }
      if (keys.length == 1) {
        long[] key = longs[keys[0]];
        boolean[] keyNull = nulls[keys[0]];
        for (int j = 0; j < m; j++) {
          int i = kept[j];
          if (keyNull[i]) {
            if (nullGroup < 0) {
              nullGroup = newGroup();
              keyNulls[0][nullGroup] = true;
            }
            groupOf[j] = nullGroup;
            continue;
          }
          long value = key[i];
          int g;
          if (value == lastKey && lastGroup >= 0) {
            // Sorted or clustered input: the row's key is the one before's.
            g = lastGroup;
          } else {
            g = packed.putIfAbsent(value, groupCount);
            if (g < 0) {
              g = newGroup();
              keyValues[0][g] = value;
            }
            lastKey = value;
            lastGroup = g;
          }
          groupOf[j] = g;
        }
        return;
      }
      for (int j = 0; j < m; j++) {
        int i = kept[j];
        boolean anyNull = false;
        boolean narrow = keys.length == 2;
        for (int k = 0; k < keys.length; k++) {
          anyNull |= nulls[keys[k]][i];
          long v = longs[keys[k]][i];
          narrow &= v == (int) v;
        }
        if (narrow && !anyNull) {
          long a = longs[keys[0]][i];
          long b = longs[keys[1]][i];
          long packedKey = (a << 32) | (b & 0xFFFFFFFFL);
          int g = packed.putIfAbsent(packedKey, groupCount);
          if (g < 0) {
            g = newGroup();
            keyValues[0][g] = a;
            keyValues[1][g] = b;
          }
          groupOf[j] = g;
          continue;
        }
        groupOf[j] = generalGroupOf(i);
      }
    }

    /**
     * The group of row {@code i}'s keys in the table of general keys (several keys, NULLs, values
     * beyond 32 bits): their hash places the group, and a probe compares the row's keys with the
     * group's own, so no key object is made per row.
     */
    private int generalGroupOf(int i) {
      int mask = general.length - 1;
      int slot = (int) rowHash(i) & mask;
      while (true) {
        int stored = general[slot];
        if (stored == 0) {
          break;
        }
        if (sameKeys(stored - 1, i)) {
          return stored - 1;
        }
        slot = (slot + 1) & mask;
      }
      int g = newGroup();
      for (int k = 0; k < keys.length; k++) {
        boolean isNull = nulls[keys[k]][i];
        keyNulls[k][g] = isNull;
        keyValues[k][g] = isNull ? 0 : longs[keys[k]][i];
      }
      general[slot] = g + 1;
      if (++generalCount * 2 > general.length) {
        int[] bigger = new int[general.length * 2];
        int biggerMask = bigger.length - 1;
        for (int stored : general) {
          if (stored != 0) {
            int at = (int) groupHash(stored - 1) & biggerMask;
            while (bigger[at] != 0) {
              at = (at + 1) & biggerMask;
            }
            bigger[at] = stored;
          }
        }
        general = bigger;
      }
      return g;
    }

    private boolean sameKeys(int g, int i) {
      for (int k = 0; k < keys.length; k++) {
        boolean isNull = nulls[keys[k]][i];
        if (keyNulls[k][g] != isNull || !isNull && keyValues[k][g] != longs[keys[k]][i]) {
          return false;
        }
      }
      return true;
    }

    private long rowHash(int i) {
      long h = 0;
      for (int k = 0; k < keys.length; k++) {
        h = mixIn(h, nulls[keys[k]][i], longs[keys[k]][i]);
      }
      return h ^ (h >>> 32);
    }

    private long groupHash(int g) {
      long h = 0;
      for (int k = 0; k < keys.length; k++) {
        h = mixIn(h, keyNulls[k][g], keyValues[k][g]);
      }
      return h ^ (h >>> 32);
    }

    private int newGroup() {
      int g = groupCount++;
      if (g >= groupCapacity) {
        int size = groupCapacity * 2;
        for (int k = 0; k < keys.length; k++) {
          keyValues[k] = Arrays.copyOf(keyValues[k], size);
          keyNulls[k] = Arrays.copyOf(keyNulls[k], size);
        }
        for (int a = 0; a < calls.length; a++) {
          counts[a] = Arrays.copyOf(counts[a], size);
          sums[a] = Arrays.copyOf(sums[a], size);
          seen[a] = Arrays.copyOf(seen[a], size);
          if (bigs[a] != null) {
            bigs[a] = Arrays.copyOf(bigs[a], size);
          }
        }
        groupCapacity = size;
      }
      return g;
    }

    private void setBig(int a, int g, BigDecimal value) {
      if (bigs[a] == null) {
        bigs[a] = new BigDecimal[groupCapacity];
      }
      bigs[a][g] = value;
    }

    private void fold(int a, int m, int n) {
      Call call = calls[a];
      int[] groups = groupOf;
      if (call.kind == SqlKind.COUNT) {
        long[] count = counts[a];
        if (call.arg == null && call.countColumn < 0) {
          for (int j = 0; j < m; j++) {
            count[groups[j]]++;
          }
          return;
        }
        boolean[] isNull;
        if (call.countColumn >= 0) {
          isNull = nulls[call.countColumn];
        } else {
          isNull = eval(call.arg, n).nulls;
        }
        for (int j = 0; j < m; j++) {
          if (!isNull[kept[j]]) {
            count[groups[j]]++;
          }
        }
        return;
      }
      Values values = eval(call.arg, n);
      long[] sum = sums[a];
      boolean[] any = seen[a];
      if (call.kind == SqlKind.SUM || call.kind == SqlKind.SUM0) {
        for (int j = 0; j < m; j++) {
          int i = kept[j];
          if (values.nulls[i]) {
            continue;
          }
          int g = groups[j];
          any[g] = true;
          if (values.isBig(i)) {
            addBig(a, g, values.big[i]);
            continue;
          }
          long s = sum[g];
          long r = s + values.v[i];
          if (((s ^ r) & (values.v[i] ^ r)) < 0) {
            // Overflow: the long so far moves to the exact part.
            addBig(a, g, BigDecimal.valueOf(s, values.scale));
            sum[g] = values.v[i];
          } else {
            sum[g] = r;
          }
        }
        return;
      }
      boolean min = call.kind == SqlKind.MIN;
      for (int j = 0; j < m; j++) {
        int i = kept[j];
        if (values.nulls[i]) {
          continue;
        }
        int g = groups[j];
        BigDecimal currentBig = bigs[a] == null ? null : bigs[a][g];
        if (values.isBig(i) || currentBig != null) {
          BigDecimal value = values.bigAt(i);
          BigDecimal current = !any[g] ? null : currentBig != null ? currentBig : BigDecimal.valueOf(sum[g], values.scale);
          if (current == null || (min ? value.compareTo(current) < 0 : value.compareTo(current) > 0)) {
            if (values.isBig(i)) {
              setBig(a, g, value);
            } else {
              setBig(a, g, null);
              sum[g] = values.v[i];
            }
          }
          any[g] = true;
          continue;
        }
        long v = values.v[i];
        if (!any[g] || (min ? v < sum[g] : v > sum[g])) {
          sum[g] = v;
          any[g] = true;
        }
      }
    }

    private void addBig(int a, int g, BigDecimal value) {
      BigDecimal current = bigs[a] == null ? null : bigs[a][g];
      setBig(a, g, current == null ? value : current.add(value));
    }

    // --- expressions -----------------------------------------------------------------------------

    private Values eval(Num num, int n) {
      Values out = values.get(num.digest);
      if (out == null) {
        out = new Values();
        out.scale = num.scale;
        values.put(num.digest, out);
      }
      if (out.batchNumber == batchNumber) {
        return out;
      }
      out.batchNumber = batchNumber;
      out.anyBig = false;
      if (num.op == Num.COLUMN) {
        // The column's own arrays: read only.
        out.v = longs[num.column];
        out.nulls = nulls[num.column];
        if (bigColumns != null && bigColumns[num.column] != null) {
          out.big = bigColumns[num.column];
          out.anyBig = true;
        }
        return out;
      }
      out.ensure(n);
      switch (num.op) {
        case Num.LITERAL:
          Arrays.fill(out.v, 0, n, num.literal);
          Arrays.fill(out.nulls, 0, n, false);
          return out;
        case Num.RESCALE: {
          Values in = eval(num.left, n);
          long factor = POW10[num.scale - num.left.scale];
          for (int i = 0; i < n; i++) {
            out.nulls[i] = in.nulls[i];
            if (in.nulls[i]) {
              continue;
            }
            if (!in.isBig(i)) {
              long v = in.v[i];
              long hi = Math.multiplyHigh(v, factor);
              long lo = v * factor;
              if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
                out.v[i] = lo;
                continue;
              }
            }
            out.setBig(i, in.bigAt(i).setScale(num.scale), n);
          }
          return out;
        }
        default: {
          Values left = eval(num.left, n);
          Values right = eval(num.right, n);
          int op = num.op;
          long leftFactor = op == Num.TIMES ? 1 : POW10[num.scale - num.left.scale];
          long rightFactor = op == Num.TIMES ? 1 : POW10[num.scale - num.right.scale];
          for (int i = 0; i < n; i++) {
            boolean isNull = left.nulls[i] || right.nulls[i];
            out.nulls[i] = isNull;
            if (isNull) {
              continue;
            }
            if (!left.isBig(i) && !right.isBig(i)) {
              try {
                long l = leftFactor == 1 ? left.v[i] : Math.multiplyExact(left.v[i], leftFactor);
                long r = rightFactor == 1 ? right.v[i] : Math.multiplyExact(right.v[i], rightFactor);
                out.v[i] = op == Num.PLUS ? Math.addExact(l, r) : op == Num.MINUS ? Math.subtractExact(l, r) : Math.multiplyExact(l, r);
                continue;
              } catch (ArithmeticException e) {
                // Beyond a long: computed exactly below.
              }
            }
            BigDecimal l = left.bigAt(i);
            BigDecimal r = right.bigAt(i);
            BigDecimal result = op == Num.PLUS ? l.add(r) : op == Num.MINUS ? l.subtract(r) : l.multiply(r);
            out.setBig(i, result.setScale(num.scale), n);
          }
          return out;
        }
      }
    }

    private byte[] cond(Cond cond, int n) {
      if (condScratch.length <= condDepth) {
        condScratch = Arrays.copyOf(condScratch, condDepth + 4);
      }
      byte[] out = condScratch[condDepth];
      if (out == null || out.length < n) {
        out = new byte[Math.max(n, capacity)];
        condScratch[condDepth] = out;
      }
      condDepth++;
      try {
        switch (cond.op) {
          case Cond.TRUE:
            Arrays.fill(out, 0, n, T);
            return out;
          case Cond.FALSE:
            Arrays.fill(out, 0, n, F);
            return out;
          case Cond.UNKNOWN:
            Arrays.fill(out, 0, n, U);
            return out;
          case Cond.AND:
          case Cond.OR: {
            boolean and = cond.op == Cond.AND;
            Arrays.fill(out, 0, n, and ? T : F);
            for (Cond child : cond.children) {
              byte[] c = cond(child, n);
              for (int i = 0; i < n; i++) {
                byte a = out[i];
                byte b = c[i];
                if (and) {
                  out[i] = a == F || b == F ? F : a == U || b == U ? U : T;
                } else {
                  out[i] = a == T || b == T ? T : a == U || b == U ? U : F;
                }
              }
            }
            return out;
          }
          case Cond.NOT: {
            byte[] c = cond(cond.children[0], n);
            for (int i = 0; i < n; i++) {
              out[i] = c[i] == U ? U : c[i] == T ? F : T;
            }
            return out;
          }
          case Cond.IS_NULL:
          case Cond.IS_NOT_NULL: {
            Values v = eval(cond.left, n);
            boolean wantNull = cond.op == Cond.IS_NULL;
            for (int i = 0; i < n; i++) {
              out[i] = v.nulls[i] == wantNull ? T : F;
            }
            return out;
          }
          default: {
            Values l = eval(cond.left, n);
            Values r = eval(cond.right, n);
            int diff = cond.left.scale - cond.right.scale;
            for (int i = 0; i < n; i++) {
              if (l.nulls[i] || r.nulls[i]) {
                out[i] = U;
                continue;
              }
              int cmp;
              if (diff == 0 && !l.isBig(i) && !r.isBig(i)) {
                cmp = Long.compare(l.v[i], r.v[i]);
              } else {
                cmp = l.bigAt(i).compareTo(r.bigAt(i));
              }
              boolean result;
              switch (cond.op) {
                case Cond.EQ:
                  result = cmp == 0;
                  break;
                case Cond.NE:
                  result = cmp != 0;
                  break;
                case Cond.LT:
                  result = cmp < 0;
                  break;
                case Cond.LE:
                  result = cmp <= 0;
                  break;
                case Cond.GT:
                  result = cmp > 0;
                  break;
                default:
                  result = cmp >= 0;
                  break;
              }
              out[i] = result ? T : F;
            }
            return out;
          }
        }
      } finally {
        condDepth--;
      }
    }
  }

  /** Open-addressing map from long keys to group numbers (no boxing). */
  private static final class LongIntMap {
    /** The longest probe sequence before a spread table switches to a full mix. */
    private static final int MAX_PROBES = 64;

    /**
     * Two longs per slot, side by side so that a probe reads one cache line: the key, then its
     * value plus one (0 for an empty slot).
     */
    private long[] slots = new long[128];
    private int mask = 63;
    private int size;
    /**
     * Whether keys are placed by a full 64-bit mix; else by {@code HashMap}'s spread, which keeps
     * consecutive keys (a scan sorted by its key, as TPC-H's lineitem by l_orderkey) in consecutive
     * slots. A probe sequence of {@link #MAX_PROBES} switches a spread table to the mix.
     */
    private boolean mixed;

    /** @param spread whether to start with the spread (single keys) instead of the mix (packed pairs) */
    LongIntMap(boolean spread) {
      this.mixed = !spread;
    }

    /** The value of {@code key}; if there is none, puts {@code value} and returns -1. */
    int putIfAbsent(long key, int value) {
      int slot = position(key);
      int probes = 0;
      while (true) {
        long stored = slots[slot + 1];
        if (stored == 0) {
          break;
        }
        if (slots[slot] == key) {
          return (int) stored - 1;
        }
        if (++probes == MAX_PROBES && !mixed) {
          mixed = true;
          rehash(slots.length);
          return putIfAbsent(key, value);
        }
        slot = (slot + 2) & (mask << 1 | 1);
      }
      slots[slot] = key;
      slots[slot + 1] = value + 1L;
      if (++size * 2 > mask + 1) {
        rehash(slots.length * 2);
      }
      return -1;
    }

    private void rehash(int length) {
      long[] old = slots;
      slots = new long[length];
      mask = length / 2 - 1;
      int wrap = mask << 1 | 1;
      for (int i = 0; i < old.length; i += 2) {
        if (old[i + 1] != 0) {
          int slot = position(old[i]);
          while (slots[slot + 1] != 0) {
            slot = (slot + 2) & wrap;
          }
          slots[slot] = old[i];
          slots[slot + 1] = old[i + 1];
        }
      }
    }

    /** The index in {@link #slots} of the key's home slot. */
    private int position(long key) {
      int h;
      if (mixed) {
        long x = key * 0x9E3779B97F4A7C15L;
        h = (int) (x ^ (x >>> 32));
      } else {
        h = (int) (key ^ (key >>> 32));
        h ^= h >>> 16;
      }
      return (h & mask) << 1;
    }
  }
}
