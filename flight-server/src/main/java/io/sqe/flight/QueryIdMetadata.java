package io.sqe.flight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;

/**
 * The {@code app_metadata} of SQE's FlightInfos: a UTF-8 JSON object, {@code {"query_id": "..."}},
 * naming the query for cancelling it (CancelFlightInfo, {@code CALL system.cancel_query}), for
 * PollFlightInfo and for the server's logs.
 */
final class QueryIdMetadata {
  static final String QUERY_ID = "query_id";
  private static final ObjectMapper JSON = new ObjectMapper();

  private QueryIdMetadata() {}

  static byte[] of(String queryId) {
    ObjectNode node = JSON.createObjectNode();
    node.put(QUERY_ID, queryId);
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The query id in {@code appMetadata}, or empty if it holds none. */
  static Optional<String> queryId(byte[] appMetadata) {
    if (appMetadata == null || appMetadata.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode id = JSON.readTree(appMetadata).get(QUERY_ID);
      return id != null && id.isTextual() ? Optional.of(id.asText()) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
