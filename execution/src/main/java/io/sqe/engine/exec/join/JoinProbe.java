package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.TakeColumn;
import io.sqe.engine.exec.expr.Predicate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Streams a join's probe (left) input past its build side: for each probe row, the candidate build
 * rows {@link Matches} names, kept where the residual condition holds, returned by the join type's
 * rules in batches of at most {@value #OUTPUT_ROWS} rows, in probe-row order. Rows are copied once,
 * into the output batch; with a residual condition, the candidate pairs are copied into a batch of
 * their own first, which the condition reads. The build side stays its owner's: this closes only
 * the probe input.
 */
public final class JoinProbe implements AutoCloseable {
  static final int OUTPUT_ROWS = 4096;
  private static final int NOT_STARTED = -2;

  private final BatchOperator probeInput;
  private final BuildSide build;
  private final Matches matches;
  private final JoinType type;
  /** The residual condition over a probe row's columns followed by a build row's; null for none. */
  private final Predicate residual;
  /** The columns of a candidate pair the residual condition reads, the only ones copied for it; null for all. */
  private final int[] residualColumns;
  private final int probeColumns;
  private final Schema pairSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  /** One bit per build row that matched, for RIGHT and FULL joins; null for others. */
  private final ArrowInts buildMatched;

  private VectorSchemaRoot probe;
  private boolean probeDone;
  private int row;
  /** The next candidate of probe row {@link #row}, -1 when it has no more, or NOT_STARTED. */
  private int chain = NOT_STARTED;
  /** Whether probe row {@link #row} matched in an earlier chunk (its candidates spanned chunks). */
  private boolean rowMatched;
  private int unmatchedCursor;

  private final int[] candidateProbe = new int[OUTPUT_ROWS];
  private final int[] candidateBuild = new int[OUTPUT_ROWS];
  private final int[] selection = new int[OUTPUT_ROWS];
  private final boolean[] kept = new boolean[OUTPUT_ROWS];
  /** Per probe row of the current chunk, from its first: whether it matched. */
  private boolean[] matched = new boolean[OUTPUT_ROWS + 1];
  private final int[] outProbe = new int[OUTPUT_ROWS + 1];
  private final int[] outBuild = new int[OUTPUT_ROWS + 1];
  private final int[] buildBatch = new int[OUTPUT_ROWS + 1];
  private final int[] buildRow = new int[OUTPUT_ROWS + 1];
  /** The probe batch's columns and the build side's, ready to copy rows from; null until first used. */
  private final TakeColumn[] probeTakes;
  private final TakeColumn[] buildTakes;

  /**
   * @param probeSchema the probe input's batch schema
   * @param buildSchema the build input's batch schema
   * @param outputSchema the join's: the probe columns, then (but for SEMI and ANTI) the build columns
   */
  public JoinProbe(
      BatchOperator probeInput,
      BuildSide build,
      Matches matches,
      JoinType type,
      Predicate residual,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this.probeInput = requireNonNull(probeInput, "probeInput is null");
    this.build = requireNonNull(build, "build is null");
    this.matches = requireNonNull(matches, "matches is null");
    this.type = requireNonNull(type, "type is null");
    this.residual = residual;
    this.residualColumns = residual == null ? null : residual.columns();
    this.probeColumns = probeSchema.getFields().size();
    List<Field> pairFields = new ArrayList<>(probeSchema.getFields());
    pairFields.addAll(buildSchema.getFields());
    this.pairSchema = new Schema(pairFields);
    this.probeTakes = new TakeColumn[probeColumns];
    this.buildTakes = new TakeColumn[buildSchema.getFields().size()];
    this.outputSchema = requireNonNull(outputSchema, "outputSchema is null");
    this.context = requireNonNull(context, "context is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
    if (type.returnsUnmatchedBuildRows()) {
      buildMatched = new ArrowInts(allocator, 0);
      buildMatched.ensure((build.rowCount() + 31) / 32);
    } else {
      buildMatched = null;
    }
  }

  /** The next output batch, never empty, or null after the last. */
  public VectorSchemaRoot next() {
    if (build.rowCount() == 0 && (type == JoinType.INNER || type == JoinType.SEMI || type == JoinType.RIGHT)) {
      // Nothing can match: the probe side need not be read.
      return null;
    }
    while (true) {
      if (probe == null) {
        if (probeDone) {
          return buildMatched == null ? null : unmatchedBuildRows();
        }
        probe = probeInput.next();
        if (probe == null) {
          probeDone = true;
          continue;
        }
        matches.probe(probe);
        Arrays.fill(probeTakes, null);
        if (matched.length <= probe.getRowCount()) {
          matched = new boolean[probe.getRowCount() + 1];
        }
        row = 0;
        chain = NOT_STARTED;
        rowMatched = false;
      }
      VectorSchemaRoot out = chunk();
      if (row >= probe.getRowCount()) {
        probe.close();
        probe = null;
        Arrays.fill(probeTakes, null);
      }
      if (out != null) {
        return out;
      }
      context.checkCancelled();
    }
  }

  /** The output of the next candidates of the current probe batch, or null if none of them is returned. */
  private VectorSchemaRoot chunk() {
    int rows = probe.getRowCount();
    boolean perRow = type.decidesProbeRows();
    boolean pairs = type.returnsBuildColumns() || residual != null;
    int firstRow = row;
    boolean continuing = chain >= 0;
    matched[0] = continuing && rowMatched;
    int used = continuing && perRow ? 1 : 0;
    int count = 0;
    while (row < rows && used < OUTPUT_ROWS) {
      if (chain == NOT_STARTED) {
        chain = matches.first(row);
        matched[row - firstRow] = false;
        if (perRow) {
          used++;
        }
      }
      if (!pairs) {
        // A semi or anti join without a residual condition: a candidate is a match.
        matched[row - firstRow] = chain >= 0;
        chain = NOT_STARTED;
        row++;
        continue;
      }
      while (chain >= 0 && used < OUTPUT_ROWS) {
        candidateProbe[count] = row;
        candidateBuild[count] = chain;
        count++;
        used++;
        chain = matches.next(chain);
      }
      if (chain >= 0) {
        break;
      }
      chain = NOT_STARTED;
      row++;
    }
    keep(count);
    for (int i = 0; i < count; i++) {
      if (kept[i]) {
        matched[candidateProbe[i] - firstRow] = true;
        if (buildMatched != null) {
          int b = candidateBuild[i];
          buildMatched.set(b >>> 5, buildMatched.get(b >>> 5) | 1 << (b & 31));
        }
      }
    }
    boolean partial = chain >= 0;
    int last = partial ? row : row - 1;
    int out = 0;
    int c = 0;
    for (int p = firstRow; p <= last; p++) {
      while (c < count && candidateProbe[c] == p) {
        if (kept[c] && type.returnsBuildColumns()) {
          outProbe[out] = p;
          outBuild[out++] = candidateBuild[c];
        }
        c++;
      }
      if (p == row && partial) {
        rowMatched = matched[p - firstRow];
        continue;
      }
      boolean hit = matched[p - firstRow];
      boolean returned = switch (type) {
        case LEFT, FULL, ANTI -> !hit;
        case SEMI -> hit;
        default -> false;
      };
      if (returned) {
        outProbe[out] = p;
        outBuild[out++] = -1;
      }
    }
    return out == 0 ? null : gather(outputSchema, type.returnsBuildColumns(), outProbe, outBuild, out);
  }

  /** Sets {@link #kept} for the first {@code count} candidates: where the residual condition holds. */
  private void keep(int count) {
    if (residual == null || count == 0) {
      Arrays.fill(kept, 0, count, true);
      return;
    }
    Arrays.fill(kept, 0, count, false);
    try (VectorSchemaRoot pairs = gather(pairSchema, true, candidateProbe, candidateBuild, count, residualColumns)) {
      for (int i = 0; i < count; i++) {
        selection[i] = i;
      }
      int left = residual.filter(pairs, selection, count);
      for (int i = 0; i < left; i++) {
        kept[selection[i]] = true;
      }
    }
  }

  /** The build rows no probe row matched, with null probe columns, after the probe side ends. */
  private VectorSchemaRoot unmatchedBuildRows() {
    int total = build.rowCount();
    while (unmatchedCursor < total) {
      int out = 0;
      while (unmatchedCursor < total && out < OUTPUT_ROWS) {
        int b = unmatchedCursor++;
        if ((buildMatched.get(b >>> 5) & 1 << (b & 31)) == 0) {
          outProbe[out] = -1;
          outBuild[out++] = b;
        }
      }
      if (out > 0) {
        return gather(outputSchema, true, outProbe, outBuild, out);
      }
      context.checkCancelled();
    }
    return null;
  }

  /**
   * A new batch of {@code schema} whose row {@code i} is probe row {@code probeRows[i]} of the
   * current probe batch followed (when {@code withBuild}) by build row {@code buildRows[i]}; -1 for
   * null columns.
   */
  private VectorSchemaRoot gather(Schema schema, boolean withBuild, int[] probeRows, int[] buildRows, int count) {
    return gather(schema, withBuild, probeRows, buildRows, count, null);
  }

  /**
   * As {@link #gather(Schema, boolean, int[], int[], int)}, filling only {@code columns} (all when
   * null); the others are empty vectors, for a reader of those columns alone.
   */
  private VectorSchemaRoot gather(Schema schema, boolean withBuild, int[] probeRows, int[] buildRows, int count, int[] columns) {
    if (withBuild) {
      locateBuildRows(buildRows, count);
    }
    List<Field> fields = schema.getFields();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      for (Field field : fields) {
        vectors.add(field.createVector(allocator));
      }
      for (int i = 0; i < (columns == null ? fields.size() : columns.length); i++) {
        int c = columns == null ? i : columns[i];
        if (c < probeColumns) {
          probeColumn(c).into(vectors.get(c), null, probeRows, count);
        } else {
          buildColumn(c - probeColumns).into(vectors.get(c), buildBatch, buildRow, count);
        }
      }
      return new VectorSchemaRoot(fields, vectors, count);
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
  }

  /** Sets {@link #buildBatch} and {@link #buildRow} for the first {@code count} of {@code buildRows} (-1: none). */
  private void locateBuildRows(int[] buildRows, int count) {
    int batch = 0;
    for (int i = 0; i < count; i++) {
      int b = buildRows[i];
      if (b >= 0) {
        // Candidates of one probe row are often in one batch: try the last one first.
        if (!build.holds(batch, b)) {
          batch = build.batchOf(b);
        }
        buildBatch[i] = batch;
        buildRow[i] = build.rowInBatch(batch, b);
      } else {
        buildBatch[i] = 0;
        buildRow[i] = -1;
      }
    }
  }

  /** Column {@code c} of the current probe batch, prepared once per batch; of no batch after the probe side ends. */
  private TakeColumn probeColumn(int c) {
    if (probeTakes[c] == null) {
      probeTakes[c] = probe == null ? TakeColumn.of(List.of()) : TakeColumn.of(probe.getVector(c));
    }
    return probeTakes[c];
  }

  /** Column {@code c} of the build side, prepared once: the build side never changes. */
  private TakeColumn buildColumn(int c) {
    if (buildTakes[c] == null) {
      List<FieldVector> column = new ArrayList<>(build.batches().size());
      for (VectorSchemaRoot batch : build.batches()) {
        column.add(batch.getVector(c));
      }
      buildTakes[c] = TakeColumn.of(column);
    }
    return buildTakes[c];
  }

  @Override
  public void close() {
    try (probeInput) {
      if (probe != null) {
        probe.close();
        probe = null;
      }
      if (buildMatched != null) {
        buildMatched.close();
      }
    }
  }
}
