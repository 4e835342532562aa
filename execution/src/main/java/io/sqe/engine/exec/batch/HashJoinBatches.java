package io.sqe.engine.exec.batch;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.exec.hash.KeyTable;
import io.sqe.engine.exec.join.BuildSide;
import io.sqe.engine.exec.join.Chains;
import io.sqe.engine.exec.join.JoinProbe;
import io.sqe.engine.exec.join.JoinType;
import io.sqe.engine.exec.join.KeyPublication;
import io.sqe.engine.exec.join.Matches;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A join on equality keys: the build (right) input is read whole into batches, its keys into a
 * {@link KeyTable} and each key's rows into a chain, all under the query's allocator (past
 * {@code query.max-memory} the query fails with RESOURCE_EXHAUSTED naming this operator); then the
 * probe (left) input opens, after a key column's values went to its scan if the plan wired a
 * dynamic filter ({@link KeyPublication}), and streams past it ({@link JoinProbe}). A NULL key
 * never matches: such build rows join nothing and stay out of the key table (a RIGHT or FULL join
 * still returns them), such probe rows find nothing. A semi or anti join without a residual
 * condition keeps the build side's keys only.
 */
public final class HashJoinBatches implements BatchOperator {
  static final String NAME = "HashJoin";

  /** Opens the probe input once the build side is read (and its keys published). */
  private final Supplier<BatchOperator> probeInput;
  private final KeyPublication publication;
  private final BatchOperator buildInput;
  private final int[] probeKeys;
  private final int[] buildKeys;
  private final JoinType type;
  private final Predicate residual;
  private final Schema probeSchema;
  private final Schema buildSchema;
  private final Schema outputSchema;
  private final QueryContext context;
  private final BufferAllocator allocator;
  private KeyTable table;
  private Chains chains;
  private JoinProbe join;
  private boolean buildClosed;
  private boolean closed;

  /**
   * @param probeKeys the probe input's key columns, equal pairwise to {@code buildKeys}' (same types)
   * @param residual a condition over a probe row's columns, then a build row's, that a matching pair must meet too; null for none
   * @param publication where to hand a key column's build values before the probe input opens; null for nowhere
   */
  public HashJoinBatches(
      Supplier<BatchOperator> probeInput,
      BatchOperator buildInput,
      int[] probeKeys,
      int[] buildKeys,
      JoinType type,
      Predicate residual,
      KeyPublication publication,
      Schema probeSchema,
      Schema buildSchema,
      Schema outputSchema,
      QueryContext context,
      BufferAllocator allocator) {
    this.probeInput = requireNonNull(probeInput, "probeInput is null");
    this.buildInput = requireNonNull(buildInput, "buildInput is null");
    this.probeKeys = probeKeys.clone();
    this.buildKeys = buildKeys.clone();
    if (this.probeKeys.length == 0 || this.probeKeys.length != this.buildKeys.length) {
      throw new IllegalArgumentException("A hash join needs as many probe keys as build keys, at least one");
    }
    this.type = requireNonNull(type, "type is null");
    this.context = requireNonNull(context, "context is null");
    this.residual = residual == null ? null : residual.bind(context::get);
    this.publication = publication;
    this.probeSchema = requireNonNull(probeSchema, "probeSchema is null");
    this.buildSchema = requireNonNull(buildSchema, "buildSchema is null");
    this.outputSchema = requireNonNull(outputSchema, "outputSchema is null");
    this.allocator = requireNonNull(allocator, "allocator is null");
  }

  @Override
  public VectorSchemaRoot next() {
    if (join == null) {
      build();
    }
    return join.next();
  }

  private void build() {
    List<Field> keyFields = new ArrayList<>();
    for (int key : buildKeys) {
      keyFields.add(buildSchema.getFields().get(key));
    }
    boolean keysOnly = (type == JoinType.SEMI || type == JoinType.ANTI) && residual == null;
    KeyPublication.Collector published = publication == null ? null : new KeyPublication.Collector();
    BuildSide build;
    try {
      table = new KeyTable(keyFields, allocator);
      chains = keysOnly ? null : new Chains(allocator);
      int[][] ids = {new int[0]};
      build = BuildSide.read(buildInput, NAME, context, allocator, !keysOnly, (batch, first) -> {
        int rows = batch.getRowCount();
        if (ids[0].length < rows) {
          ids[0] = new int[rows];
        }
        List<FieldVector> keys = columns(batch, buildKeys);
        if (published != null) {
          published.add(keys.get(publication.key()), rows);
        }
        insert(keys, rows, first, keyFields, ids[0]);
      });
    } catch (OutOfMemoryException e) {
      throw BuildSide.exceeded(NAME, context, allocator, e);
    } finally {
      buildClosed = true;
      buildInput.close();
    }
    Matches matches = keysOnly ? new KeyMatches(table, null, probeKeys) : new KeyMatches(table, chains, probeKeys);
    BatchOperator probe;
    try {
      if (published != null) {
        published.publish(publication, context);
      }
      probe = probeInput.get();
    } catch (RuntimeException | Error e) {
      build.close();
      throw e;
    }
    join = new JoinProbe(probe, build, matches, type, residual, probeSchema, buildSchema, outputSchema, context, allocator);
  }

  /**
   * Puts the rows of a build batch into the key table and their chains. A NULL key never matches,
   * so rows with one stay out of the table: a batch that has some has its other rows' keys
   * gathered first.
   */
  private void insert(List<FieldVector> keys, int rows, int first, List<Field> keyFields, int[] ids) {
    boolean nulls = false;
    for (FieldVector key : keys) {
      nulls |= key.getNullCount() > 0;
    }
    if (!nulls) {
      table.insert(keys, rows, ids);
      if (chains != null) {
        for (int r = 0; r < rows; r++) {
          chains.add(ids[r], first + r);
        }
      }
      return;
    }
    int[] kept = new int[rows];
    int count = 0;
    for (int r = 0; r < rows; r++) {
      if (!anyNull(keys, r)) {
        kept[count++] = r;
      }
    }
    if (count == 0) {
      return;
    }
    // A view of the batch's key vectors, not closed: the batch owns them.
    VectorSchemaRoot source = new VectorSchemaRoot(keyFields, keys, rows);
    try (VectorSchemaRoot nonNull = Gather.rows(new Schema(keyFields), allocator, count, i -> source, i -> kept[i])) {
      table.insert(nonNull.getFieldVectors(), count, ids);
    }
    if (chains != null) {
      for (int i = 0; i < count; i++) {
        chains.add(ids[i], first + kept[i]);
      }
    }
  }

  private static List<FieldVector> columns(VectorSchemaRoot batch, int[] indexes) {
    List<FieldVector> columns = new ArrayList<>(indexes.length);
    for (int index : indexes) {
      columns.add(batch.getVector(index));
    }
    return columns;
  }

  private static boolean anyNull(List<FieldVector> keys, int row) {
    for (FieldVector key : keys) {
      if (key.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (join != null) {
        join.close();
      } else if (!buildClosed) {
        buildInput.close();
      }
    } finally {
      try (KeyTable keys = table) {
        if (chains != null) {
          chains.close();
        }
      }
    }
  }

  /** The build rows of a probe row's key: its chain, or with keys only, a stand-in row when the key is there. */
  private static final class KeyMatches implements Matches {
    private final KeyTable table;
    private final Chains chains;
    private final int[] keys;
    private int[] ids = new int[0];

    KeyMatches(KeyTable table, Chains chains, int[] keys) {
      this.table = table;
      this.chains = chains;
      this.keys = keys;
    }

    @Override
    public void probe(VectorSchemaRoot batch) {
      int rows = batch.getRowCount();
      if (ids.length < rows) {
        ids = new int[rows];
      }
      table.find(columns(batch, keys), rows, ids);
    }

    @Override
    public int first(int probeRow) {
      int id = ids[probeRow];
      if (chains == null) {
        return id >= 0 ? 0 : -1;
      }
      return chains.first(id);
    }

    @Override
    public int next(int buildRow) {
      return chains == null ? -1 : chains.next(buildRow);
    }
  }
}
