package io.sqe.engine.exec.join;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.batch.BatchOperator;
import io.sqe.engine.exec.batch.Gather;
import io.sqe.engine.exec.hash.KeyTable;
import java.util.ArrayList;
import java.util.List;
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
 */
public final class HashBuild implements AutoCloseable {
  private final BuildSide rows;
  private final KeyTable table;
  private final Chains chains;

  private HashBuild(BuildSide rows, KeyTable table, Chains chains) {
    this.rows = rows;
    this.table = table;
    this.chains = chains;
  }

  /**
   * Reads {@code input} to its end and closes it, then hands a key column's values to {@code
   * publication} (if any) in {@code publishIn}; past the query's memory limit fails with
   * RESOURCE_EXHAUSTED naming {@code operator}.
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
    List<Field> keyFields = new ArrayList<>();
    for (int key : buildKeys) {
      keyFields.add(buildSchema.getFields().get(key));
    }
    KeyPublication.Collector published = publication == null ? null : new KeyPublication.Collector();
    KeyTable table = null;
    Chains chains = null;
    BuildSide rows = null;
    try {
      table = new KeyTable(keyFields, allocator);
      chains = keysOnly ? null : new Chains(allocator);
      Indexer indexer = new Indexer(table, chains, keyFields, buildKeys, allocator);
      rows = BuildSide.read(input, operator, context, allocator, !keysOnly, (batch, first) -> {
        if (published != null) {
          published.add(batch.getVector(buildKeys[publication.key()]), batch.getRowCount());
        }
        indexer.insert(batch, first);
      });
      HashBuild build = new HashBuild(rows, table, chains);
      context.stats().joinTableBuilt();
      if (published != null) {
        published.publish(publication, publishIn);
      }
      return build;
    } catch (OutOfMemoryException e) {
      close(rows, table, chains);
      throw BuildSide.exceeded(operator, context, allocator, e);
    } catch (RuntimeException | Error e) {
      close(rows, table, chains);
      throw e;
    } finally {
      input.close();
    }
  }

  /** The rows read, numbered across their batches. */
  public BuildSide rows() {
    return rows;
  }

  /** The build rows of each probe row's key, with scratch of their own: one per prober. */
  public Matches matches(int[] probeKeys) {
    return new KeyMatches(table.finder(), chains, probeKeys.clone());
  }

  @Override
  public void close() {
    close(rows, table, chains);
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
