package io.sqe.write.ddl;

import java.util.Optional;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Finds a column, or a nested field by its dotted path, as queries do: exactly, or else ignoring
 * case, since SQE matches names case-insensitively and other engines may have written upper case.
 */
final class Columns {
  private Columns() {}

  /** The field's full name as the table spells it, if the table has it. */
  static Optional<String> find(Schema schema, SqlIdentifier name) {
    return find(schema, String.join(".", name.names));
  }

  static Optional<String> find(Schema schema, String path) {
    Types.NestedField field = schema.findField(path);
    if (field == null) {
      field = schema.caseInsensitiveFindField(path);
    }
    return field == null ? Optional.empty() : Optional.of(schema.findColumnName(field.fieldId()));
  }

  static String display(SqlIdentifier name) {
    return String.join(".", name.names);
  }
}
