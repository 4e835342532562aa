package io.sqe.flight.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.util.Text;
import org.apache.arrow.vector.util.ValueVectorUtility;

/** Reads and checks metadata roots in tests. */
final class RootContents {
  private RootContents() {}

  static void validate(VectorSchemaRoot root) {
    for (FieldVector vector : root.getFieldVectors()) {
      validate(vector);
      assertThat(vector.getValueCount()).as(vector.getName()).isEqualTo(root.getRowCount());
    }
  }

  /**
   * Arrow's full validation, except that Arrow 18.3's validator rejects every MapVector as "not a
   * List", so maps are checked through their entries.
   */
  private static void validate(FieldVector vector) {
    if (vector instanceof MapVector map) {
      validate((FieldVector) map.getDataVector());
    } else if (vector instanceof DenseUnionVector union) {
      for (FieldVector child : union.getChildrenFromFields()) {
        validate(child);
      }
    } else {
      ValueVectorUtility.validateFull(vector);
    }
  }

  /** The rows of a root as plain Java values (strings for text). */
  static List<List<Object>> rows(VectorSchemaRoot root) {
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < root.getRowCount(); i++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector vector : root.getFieldVectors()) {
        row.add(plain(vector.getObject(i)));
      }
      rows.add(row);
    }
    return rows;
  }

  private static Object plain(Object value) {
    if (value instanceof Text) {
      return value.toString();
    }
    if (value instanceof List<?> list) {
      return list.stream().map(RootContents::plain).toList();
    }
    return value;
  }
}
