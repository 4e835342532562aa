package io.sqe.flight.trino;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sqe.catalog.types.TrinoType;
import java.io.IOException;

/** Writes a Trino type's signature object: {@code {"rawType": ..., "arguments": [{"kind": ..., "value": ...}]}}. */
final class TypeSignatures {
  private TypeSignatures() {}

  static void write(JsonGenerator json, TrinoType type) throws IOException {
    json.writeStartObject();
    json.writeStringField("rawType", type.rawType());
    json.writeArrayFieldStart("arguments");
    for (Object argument : type.arguments()) {
      json.writeStartObject();
      if (argument instanceof Long) {
        json.writeStringField("kind", "LONG");
        json.writeNumberField("value", (Long) argument);
      } else if (argument instanceof TrinoType) {
        json.writeStringField("kind", "TYPE");
        json.writeFieldName("value");
        write(json, (TrinoType) argument);
      } else {
        TrinoType.NamedType field = (TrinoType.NamedType) argument;
        json.writeStringField("kind", "NAMED_TYPE");
        json.writeObjectFieldStart("value");
        if (field.name() != null) {
          json.writeObjectFieldStart("fieldName");
          json.writeStringField("name", field.name());
          json.writeEndObject();
        }
        json.writeFieldName("typeSignature");
        write(json, field.type());
        json.writeEndObject();
      }
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();
  }
}
