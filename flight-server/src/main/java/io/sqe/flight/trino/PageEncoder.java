package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Encodes result rows into pages of Trino's {@code data}: the rows' JSON arrays separated by
 * commas, written row by row from the Arrow vectors (no tree of values is built), cut into pages
 * of about {@code targetBytes}.
 */
final class PageEncoder {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  /** Where full pages go. */
  @FunctionalInterface
  interface PageSink {
    void page(byte[] rows, long rowCount);
  }

  private final List<ValueEncoder> columns = new ArrayList<>();
  private final long targetBytes;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private JsonGenerator json;
  private long rows;

  PageEncoder(Schema schema, long targetBytes) {
    for (Field field : requireNonNull(schema, "schema is null").getFields()) {
      columns.add(ValueEncoder.of(field));
    }
    this.targetBytes = targetBytes;
  }

  /** Encodes every row of {@code root}, handing each page that reaches the target size to {@code sink}. */
  void encode(VectorSchemaRoot root, PageSink sink) {
    List<FieldVector> vectors = root.getFieldVectors();
    try {
      for (int row = 0; row < root.getRowCount(); row++) {
        if (json == null) {
          json = JSON.createGenerator(buffer);
          // Rows are root-level values here; the page is wrapped in the data array when sent.
          json.setRootValueSeparator(new SerializedString(","));
        }
        json.writeStartArray();
        for (int column = 0; column < vectors.size(); column++) {
          columns.get(column).write(json, vectors.get(column), row);
        }
        json.writeEndArray();
        rows++;
        if ((rows & 0x3F) == 0) {
          json.flush();
          if (buffer.size() >= targetBytes) {
            flush(sink);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Hands the rows encoded so far to {@code sink} as a page, if there are any. */
  void flush(PageSink sink) {
    if (json == null) {
      return;
    }
    try {
      json.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    json = null;
    if (rows > 0) {
      sink.page(buffer.toByteArray(), rows);
    }
    buffer.reset();
    rows = 0;
  }
}
