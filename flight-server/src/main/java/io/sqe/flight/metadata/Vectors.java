package io.sqe.flight.metadata;

import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Writes one cell of a metadata root by column name; a null value leaves the cell null. */
final class Vectors {
  private Vectors() {}

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
