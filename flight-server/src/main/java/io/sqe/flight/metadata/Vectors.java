package io.sqe.flight.metadata;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Fills metadata roots: a root per answer, cells written by column name (null stays null). */
final class Vectors {
  private Vectors() {}

  /** Writes one row of a root. */
  @FunctionalInterface
  interface RowWriter {
    void write(VectorSchemaRoot root, int row);
  }

  /**
   * A new root with the schema and {@code rows} rows, each written by {@code writer}; the root is
   * closed if writing fails, and otherwise belongs to the caller.
   */
  static VectorSchemaRoot fill(Schema schema, BufferAllocator allocator, int rows, RowWriter writer) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    try {
      root.allocateNew();
      for (int row = 0; row < rows; row++) {
        writer.write(root, row);
      }
      root.setRowCount(rows);
      return root;
    } catch (RuntimeException | Error e) {
      root.close();
      throw e;
    }
  }

  static void setString(VectorSchemaRoot root, String column, int row, String value) {
    VarCharVector vector = (VarCharVector) root.getVector(column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  static void setBytes(VectorSchemaRoot root, String column, int row, byte[] value) {
    VarBinaryVector vector = (VarBinaryVector) root.getVector(column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value);
    }
  }

  static void setInt(VectorSchemaRoot root, String column, int row, Integer value) {
    IntVector vector = (IntVector) root.getVector(column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value);
    }
  }

  static void setBoolean(VectorSchemaRoot root, String column, int row, Boolean value) {
    BitVector vector = (BitVector) root.getVector(column);
    if (value == null) {
      vector.setNull(row);
    } else {
      vector.setSafe(row, value ? 1 : 0);
    }
  }
}
