package io.sqe.flight.trino;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes a Trino {@code QueryResults} object: id, infoUri, nextUri, columns with their types and
 * type signatures, stats, error, warnings, updateType, updateCount and data (the encoded pages,
 * copied as they are).
 */
final class QueryResultsWriter {
  private static final JsonFactory JSON = JsonFactory.builder().build();
  private static final byte[] DATA_FIELD = ",\"data\":".getBytes(StandardCharsets.US_ASCII);

  private QueryResultsWriter() {}

  /**
   * The statement's figures as Trino's {@code stats} carries them.
   *
   * @param totalSplits files the statement's scans planned (Trino's splits), for progress
   * @param completedSplits files they have read
   */
  record Figures(
      long elapsedMillis, long queuedMillis, long processedRows, long processedBytes, long peakMemoryBytes,
      long totalSplits, long completedSplits) {}

  static byte[] write(String id, String infoUri, String nextUri, TrinoQuery.Progress progress, Figures figures) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(progress.data() == null ? 1024 : progress.data().length + 4096);
    try (JsonGenerator json = JSON.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT)) {
      json.writeStartObject();
      json.writeStringField("id", id);
      json.writeStringField("infoUri", infoUri);
      if (nextUri != null) {
        json.writeStringField("nextUri", nextUri);
      }
      if (progress.columns() != null) {
        json.writeArrayFieldStart("columns");
        for (TrinoQuery.Column column : progress.columns()) {
          json.writeStartObject();
          json.writeStringField("name", column.name());
          json.writeStringField("type", column.type().displayName());
          json.writeFieldName("typeSignature");
          TypeSignatures.write(json, column.type());
          json.writeEndObject();
        }
        json.writeEndArray();
      }
      writeStats(json, progress, figures);
      if (progress.error() != null) {
        json.writeFieldName("error");
        progress.error().write(json);
      }
      json.writeArrayFieldStart("warnings");
      json.writeEndArray();
      if (progress.updateType() != null) {
        json.writeStringField("updateType", progress.updateType());
      }
      if (progress.updateCount() != null) {
        json.writeNumberField("updateCount", progress.updateCount());
      }
      json.flush();
      // The rows are JSON already: copied in as they are, last, so the generator never holds them.
      if (progress.data() != null) {
        out.write(DATA_FIELD);
        out.write(progress.data());
      }
      out.write('}');
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void writeStats(JsonGenerator json, TrinoQuery.Progress progress, Figures figures) throws IOException {
    TrinoQuery.State state = progress.state();
    json.writeObjectFieldStart("stats");
    json.writeStringField("state", state.name());
    json.writeBooleanField("queued", state == TrinoQuery.State.QUEUED);
    json.writeBooleanField("scheduled", state != TrinoQuery.State.QUEUED);
    if (figures.totalSplits() > 0) {
      double percent = state == TrinoQuery.State.FINISHED ? 100 : Math.min(100, 100.0 * figures.completedSplits() / figures.totalSplits());
      json.writeNumberField("progressPercentage", percent);
    }
    json.writeNumberField("nodes", 1);
    json.writeNumberField("totalSplits", figures.totalSplits());
    json.writeNumberField("queuedSplits", 0);
    json.writeNumberField("runningSplits", Math.max(0, figures.totalSplits() - figures.completedSplits()));
    json.writeNumberField("completedSplits", figures.completedSplits());
    json.writeNumberField("planningTimeMillis", 0);
    json.writeNumberField("analysisTimeMillis", 0);
    json.writeNumberField("cpuTimeMillis", figures.elapsedMillis());
    json.writeNumberField("wallTimeMillis", figures.elapsedMillis());
    json.writeNumberField("queuedTimeMillis", figures.queuedMillis());
    json.writeNumberField("elapsedTimeMillis", figures.elapsedMillis());
    json.writeNumberField("finishingTimeMillis", 0);
    json.writeNumberField("physicalInputTimeMillis", 0);
    json.writeNumberField("processedRows", figures.processedRows());
    json.writeNumberField("processedBytes", figures.processedBytes());
    json.writeNumberField("physicalInputBytes", figures.processedBytes());
    json.writeNumberField("physicalWrittenBytes", 0);
    json.writeNumberField("internalNetworkInputBytes", 0);
    json.writeNumberField("peakMemoryBytes", figures.peakMemoryBytes());
    json.writeNumberField("spilledBytes", 0);
    json.writeEndObject();
  }
}
