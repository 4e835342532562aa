package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.Gather;
import io.sqe.engine.exec.hash.KeyTable;
import io.sqe.engine.exec.spill.SpilledRun;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A hash join's build side, read and indexed: its rows ({@link BuildSide}), its keys in a {@link
 * KeyTable} and each key's rows in a chain, all under the query's allocator. A NULL key never
 * matches, so rows with one stay out of the table. A semi or anti join without a residual
 * condition keeps the keys only. Once read it never changes: the parts of a parallel pipeline
 * probe one build concurrently, each through its own {@link #matches}.
 *
 * <p>A build side read with {@link Spilling} that passes its budget (a quarter of the query's
 * memory limit, or less when the query's other operators leave less) is not indexed: its rows (or
 * keys) go to spill partitions by a seeded hash of their keys ({@link SpilledPartitions}), and it
 * hands back those runs ({@link #spilled}) for the join to pair with its probe side's.
 */
public final class HashBuild implements AutoCloseable {
  /** Keys per batch when a keys-only build side's key table is written out. */
  private static final int KEY_BATCH_ROWS = 1024;

  private final BuildSide rows;
  private final KeyTable table;
  private final Chains chains;
  private final Spilled spilled;

  private HashBuild(BuildSide rows, KeyTable table, Chains chains, Spilled spilled) {
    this.rows = rows;
    this.table = table;
    this.chains = chains;
    this.spilled = spilled;
  }

  /**
   * Reads {@code input} to its end and closes it, then hands a key column's values to {@code
   * publication} (if any) in {@code publishIn}; past the query's memory limit fails with
   * RESOURCE_EXHAUSTED naming {@code operator}. It never spills.
   *
   * @param keysOnly keep the keys alone (a semi or anti join without a residual condition)
   */
  public static HashBuild read(
      BatchOperator input,
      int[] buildKeys,
      Schema buildSchema,
      boolean keysOnly,
      KeyPublication publication,
      QueryContext publishIn,
      String operator,
      QueryContext context,
      BufferAllocator allocator) {
    return read(input, buildKeys, buildSchema, keysOnly, publication, publishIn, operator, null, context, allocator);
  }

  /**
   * As {@link #read(BatchOperator, int[], Schema, boolean, KeyPublication, QueryContext, String,
   * QueryContext, BufferAllocator)}, but past its budget, when {@code spilling} allows it, the
   * build side spills to partitions ({@link #spilled}) instead of failing. Every build key is
   * published, spilled or not: a dynamic filter missing one would drop rows that match.
   *
   * @param spilling how the build side spills; null for never
   */
  public static HashBuild read(
      BatchOperator input,
      int[] buildKeys,
      Schema buildSchema,
      boolean keysOnly,
      KeyPublication publication,
      QueryContext publishIn,
      String operator,
      Spilling spilling,
      QueryContext context,
      BufferAllocator allocator) {
    KeyPublication.Collector published = publication == null ? null : new KeyPublication.Collector();
    Reader reader = null;
    try {
      reader = new Reader(buildKeys, buildSchema, keysOnly, spilling, context, allocator);
      for (VectorSchemaRoot batch = input.next(); batch != null; batch = input.next()) {
        if (batch.getRowCount() == 0) {
          batch.close();
          continue;
        }
        if (published != null) {
          published.add(batch.getVector(buildKeys[publication.key()]), batch.getRowCount());
        }
        reader.add(batch);
        context.checkCancelled();
      }
      HashBuild build = reader.finish();
      if (build.spilled == null) {
        context.stats().joinTableBuilt();
      }
      if (published != null) {
        published.publish(publication, publishIn);
      }
      return build;
    } catch (OutOfMemoryException e) {
      close(reader);
      throw exceeded(operator, spilling == null ? 0 : spilling.splits(), context, allocator, e);
    } catch (RuntimeException | Error e) {
      close(reader);
      throw e;
    } finally {
      input.close();
    }
  }

  private static void close(Reader reader) {
    if (reader != null) {
      reader.close();
    }
  }

  /**
   * The error of a hash join whose build side needs more memory than the query may hold, even
   * after its rows were split {@code splits} times into spill partitions.
   */
  public static SqeException exceeded(String operator, int splits, QueryContext context, BufferAllocator allocator, OutOfMemoryException e) {
    SqeException exceeded = BuildSide.exceeded(operator, context, allocator, e);
    if (splits == 0) {
      return exceeded;
    }
    return new SqeException(
        ErrorCode.RESOURCE_EXHAUSTED,
        exceeded.getMessage() + ", even with its rows spilled to disk and split " + splits + " times by key",
        e);
  }

  /** The runs of a build side that spilled; null for one read and indexed. */
  public Spilled spilled() {
    return spilled;
  }

  /** The rows read, numbered across their batches. */
  public BuildSide rows() {
    requireIndexed();
    return rows;
  }

  /** The build rows of each probe row's key, with scratch of their own: one per prober. */
  public Matches matches(int[] probeKeys) {
    requireIndexed();
    return new KeyMatches(table.finder(), chains, probeKeys.clone());
  }

  private void requireIndexed() {
    if (spilled != null) {
      throw new IllegalStateException("The build side spilled: its partitions are joined one by one");
    }
  }

  /** Releases the rows and the key table, or deletes the spilled runs not deleted yet. */
  @Override
  public void close() {
    try {
      close(rows, table, chains);
    } finally {
      if (spilled != null) {
        spilled.deleteAll();
      }
    }
  }

  private static void close(BuildSide rows, KeyTable table, Chains chains) {
    try (BuildSide r = rows; KeyTable t = table; Chains c = chains) {
      // Each closed even when another's close fails.
    }
  }

  private static List<FieldVector> columns(VectorSchemaRoot batch, int[] indexes) {
    List<FieldVector> columns = new ArrayList<>(indexes.length);
    for (int index : indexes) {
      columns.add(batch.getVector(index));
    }
    return columns;
  }

  /**
   * How a build side spills past its budget: to {@code partitions} partitions by a hash of its keys
   * seeded with {@code seed}, keeping the rows with a NULL key when {@code keepNullKeys} (the join
   * returns them unmatched). Its rows were split {@code splits} times on the way here; at {@code
   * maxSplits} they are not split again, and past the query's memory the query fails.
   */
  public record Spilling(int partitions, long seed, boolean keepNullKeys, int splits, int maxSplits) {
    boolean maySpill() {
      return splits < maxSplits;
    }
  }

  /**
   * A spilled build side: one run per partition (null where no row went), of {@code schema} (the
   * build schema, or the keys alone), whose key columns are {@code keys}. The join deletes each run
   * once joined ({@link #delete}); closing the build deletes the others.
   */
  public static final class Spilled {
    private final SpilledRun[] runs;
    private final Schema schema;
    private final int[] keys;

    Spilled(SpilledRun[] runs, Schema schema, int[] keys) {
      this.runs = runs;
      this.schema = schema;
      this.keys = keys;
    }

    public int partitions() {
      return runs.length;
    }

    /** The run of {@code partition}; null when no row went there, or it was deleted. */
    public SpilledRun run(int partition) {
      return runs[partition];
    }

    public Schema schema() {
      return schema;
    }

    public int[] keys() {
      return keys.clone();
    }

    /** Deletes the run of {@code partition}, once joined. */
    public void delete(int partition) {
      if (runs[partition] != null) {
        runs[partition].delete();
        runs[partition] = null;
      }
    }

    void deleteAll() {
      for (int p = 0; p < runs.length; p++) {
        delete(p);
      }
    }
  }

  /**
   * Reads a build side batch by batch: indexes each, until (with {@link Spilling}) the build passes
   * its budget, then moves what it holds to spill partitions and sends the batches after it there.
   */
  private static final class Reader implements AutoCloseable {
    private final int[] buildKeys;
    private final Schema buildSchema;
    private final List<Field> keyFields;
    private final boolean keysOnly;
    private final Spilling spilling;
    private final QueryContext context;
    private final BufferAllocator allocator;
    private final long base;
    private BuildSide rows;
    private KeyTable table;
    private Chains chains;
    private Indexer indexer;
    /** The build side's partitions while it is written, once it spilled. */
    private SpilledPartitions partitions;
    private Schema partitionSchema;
    private int[] partitionKeys;

    Reader(int[] buildKeys, Schema buildSchema, boolean keysOnly, Spilling spilling, QueryContext context, BufferAllocator allocator) {
      this.buildKeys = buildKeys;
      this.buildSchema = buildSchema;
      this.keyFields = new ArrayList<>();
      for (int key : buildKeys) {
        keyFields.add(buildSchema.getFields().get(key));
      }
      this.keysOnly = keysOnly;
      this.spilling = spilling;
      this.context = context;
      this.allocator = allocator;
      this.rows = new BuildSide();
      try {
        this.table = new KeyTable(keyFields, allocator);
        this.chains = keysOnly ? null : new Chains(allocator);
      } catch (RuntimeException | Error e) {
        close();
        throw e;
      }
      this.indexer = new Indexer(table, chains, keyFields, buildKeys, allocator);
      this.base = allocator.getAllocatedMemory();
    }

    /** Takes {@code batch}, which it closes. */
    void add(VectorSchemaRoot batch) {
      if (partitions != null) {
        try (batch) {
          partitions.add(keysOnly ? keysOf(batch) : batch);
        }
        return;
      }
      boolean maySpill = spilling != null && spilling.maySpill();
      long bytes = bytes(batch);
      int first;
      try {
        first = keysOnly ? rows.countReleased(batch.getRowCount()) : rows.add(batch);
        indexer.insert(batch, first);
      } catch (OutOfMemoryException e) {
        if (!maySpill) {
          throw e;
        }
        // The key table holds the keys before the one that did not fit: with the batch's, all of them.
        spill(keysOnly ? keysOf(batch) : null);
      } finally {
        if (keysOnly) {
          batch.close();
        }
      }
      if (maySpill && partitions == null && overBudget(bytes)) {
        spill(null);
      }
    }

    /** A view of the batch's key columns, not to be closed: the batch owns them. */
    private VectorSchemaRoot keysOf(VectorSchemaRoot batch) {
      return new VectorSchemaRoot(keyFields, columns(batch, buildKeys), batch.getRowCount());
    }

    /**
     * Whether the build side takes more than a quarter of the query's memory limit, or leaves less
     * than half of it to its inputs' scans (which decode and prefetch batches on their own threads),
     * the probe side and the operators above, or too little for two more batches like the last
     * ({@code bytes}).
     */
    private boolean overBudget(long bytes) {
      long limit = allocator.getLimit();
      long headroom = allocator.getHeadroom();
      return allocator.getAllocatedMemory() - base > limit / 4 || headroom < limit / 2 || headroom < 2 * bytes;
    }

    /**
     * Moves the build rows read so far to spill partitions, the rows read next going there too, and
     * frees the key table: with keys only, its keys are what is written, and {@code keysOf} (the
     * keys of a batch not all indexed; null for none).
     */
    private void spill(VectorSchemaRoot keysOf) {
      partitionSchema = keysOnly ? new Schema(keyFields) : buildSchema;
      partitionKeys = new int[buildKeys.length];
      for (int k = 0; k < partitionKeys.length; k++) {
        partitionKeys[k] = keysOnly ? k : buildKeys[k];
      }
      partitions = new SpilledPartitions(
          context.spill(), partitionSchema, partitionKeys, spilling.partitions(), spilling.seed(), spilling.keepNullKeys(), allocator.getLimit() / 16, allocator);
      indexer = null;
      if (keysOnly) {
        for (int from = 0; from < table.size(); from += KEY_BATCH_ROWS) {
          int count = Math.min(KEY_BATCH_ROWS, table.size() - from);
          try (VectorSchemaRoot written = VectorSchemaRoot.create(partitionSchema, allocator)) {
            for (FieldVector vector : written.getFieldVectors()) {
              vector.setInitialCapacity(count);
              vector.allocateNew();
            }
            table.copyKeys(from, count, written.getFieldVectors());
            written.setRowCount(count);
            partitions.add(written);
          }
          context.checkCancelled();
        }
        if (keysOf != null) {
          partitions.add(keysOf);
        }
      } else {
        // The table goes first and each batch once written: the partitions' batches need the room.
        table.close();
        table = null;
        chains.close();
        chains = null;
        for (VectorSchemaRoot batch : rows.batches()) {
          partitions.add(batch);
          batch.close();
          context.checkCancelled();
        }
      }
      rows.close();
      rows = null;
      if (table != null) {
        table.close();
        table = null;
      }
    }

    /** The build side read: indexed, or its partitions' runs once it spilled. */
    HashBuild finish() {
      if (partitions == null) {
        HashBuild build = new HashBuild(rows, table, chains, null);
        rows = null;
        table = null;
        chains = null;
        return build;
      }
      SpilledRun[] runs = partitions.finish();
      partitions.close();
      partitions = null;
      return new HashBuild(null, null, null, new Spilled(runs, partitionSchema, partitionKeys));
    }

    @Override
    public void close() {
      try (SpilledPartitions p = partitions) {
        HashBuild.close(rows, table, chains);
      } finally {
        rows = null;
        table = null;
        chains = null;
        partitions = null;
      }
    }

    /** The memory {@code batch} holds: its buffers' capacities, which is what the allocator counts. */
    private static long bytes(VectorSchemaRoot batch) {
      long bytes = 0;
      for (FieldVector vector : batch.getFieldVectors()) {
        for (ArrowBuf buffer : vector.getFieldBuffers()) {
          bytes += buffer.capacity();
        }
      }
      return bytes;
    }
  }

  /** Puts each build batch's rows into the key table and their chains. */
  private static final class Indexer {
    private final KeyTable table;
    private final Chains chains;
    private final List<Field> keyFields;
    private final int[] buildKeys;
    private final BufferAllocator allocator;
    private int[] ids = new int[0];

    Indexer(KeyTable table, Chains chains, List<Field> keyFields, int[] buildKeys, BufferAllocator allocator) {
      this.table = table;
      this.chains = chains;
      this.keyFields = keyFields;
      this.buildKeys = buildKeys;
      this.allocator = allocator;
    }

    /**
     * A NULL key never matches, so rows with one stay out of the table: a batch that has some has
     * its other rows' keys gathered first.
     */
    void insert(VectorSchemaRoot batch, int first) {
      int rows = batch.getRowCount();
      if (ids.length < rows) {
        ids = new int[rows];
      }
      List<FieldVector> keys = columns(batch, buildKeys);
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

    private static boolean anyNull(List<FieldVector> keys, int row) {
      for (FieldVector key : keys) {
        if (key.isNull(row)) {
          return true;
        }
      }
      return false;
    }
  }

  /** The build rows of a probe row's key: its chain, or with keys only, a stand-in row when the key is there. */
  private static final class KeyMatches implements Matches {
    private final KeyTable.Finder finder;
    private final Chains chains;
    private final int[] keys;
    private int[] ids = new int[0];

    KeyMatches(KeyTable.Finder finder, Chains chains, int[] keys) {
      this.finder = finder;
      this.chains = chains;
      this.keys = keys;
    }

    @Override
    public void probe(VectorSchemaRoot batch) {
      int rows = batch.getRowCount();
      if (ids.length < rows) {
        ids = new int[rows];
      }
      finder.find(columns(batch, keys), rows, ids);
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
