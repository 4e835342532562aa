package io.sqe.infoschema;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.plan.ViewDefinitions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.view.SQLViewRepresentation;
import org.apache.iceberg.view.View;
import org.apache.iceberg.view.ViewHistoryEntry;
import org.apache.iceberg.view.ViewProperties;

/**
 * What metadata shows of a loaded table or view.
 *
 * @param schema its columns
 * @param comment the {@code comment} property
 * @param createdMillis when it was created, as far as its metadata log reaches back
 * @param lastAlteredMillis a table's current snapshot time (its last metadata change when it has no
 *     snapshot); a view's current version time
 * @param rowCount a table's row count from its snapshot summary (0 without a snapshot); null for a view
 * @param viewDefinition a view's SQL (SQE's dialect preferred); null for a table
 * @param viewReads the tables and views a view's SQL names (catalog, schema, name); empty for a table
 */
public record RelationDetails(
    Schema schema,
    String comment,
    Long createdMillis,
    Long lastAlteredMillis,
    Long rowCount,
    String viewDefinition,
    List<List<String>> viewReads) {
  public RelationDetails {
    requireNonNull(schema, "schema is null");
    viewReads = List.copyOf(viewReads);
  }

  static RelationDetails of(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    Long created = null;
    Long lastAltered = snapshot == null ? null : snapshot.timestampMillis();
    if (table instanceof HasTableOperations) {
      TableMetadata metadata = ((HasTableOperations) table).operations().current();
      created = metadata.previousFiles().isEmpty()
          ? metadata.lastUpdatedMillis()
          : metadata.previousFiles().get(0).timestampMillis();
      lastAltered = lastAltered == null ? metadata.lastUpdatedMillis() : lastAltered;
    }
    long rows = 0;
    if (snapshot != null && snapshot.summary() != null) {
      String total = snapshot.summary().get(SnapshotSummary.TOTAL_RECORDS_PROP);
      rows = total == null ? 0 : Long.parseLong(total);
    }
    return new RelationDetails(
        table.schema(), table.properties().get(TableProperties.COMMENT), created, lastAltered, rows, null, List.of());
  }

  /** A view's details; {@code catalog} and {@code schema} are where it is, the defaults of its SQL's names. */
  static RelationDetails of(View view, String catalog, String schema) {
    List<ViewHistoryEntry> history = view.history();
    long lastAltered = view.currentVersion().timestampMillis();
    return new RelationDetails(
        view.schema(),
        view.properties().get(ViewProperties.COMMENT),
        history.isEmpty() ? lastAltered : history.get(0).timestampMillis(),
        lastAltered,
        null,
        ViewDefinitions.sql(view.currentVersion()).map(SQLViewRepresentation::sql).orElse(null),
        ViewDefinitions.tablesRead(view.currentVersion(), catalog, schema));
  }

  /** The top-level columns in order. */
  public List<ColumnInfo> columns() {
    List<Types.NestedField> fields = schema.columns();
    List<ColumnInfo> columns = new ArrayList<>(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      columns.add(new ColumnInfo(fields.get(i), i + 1));
    }
    return columns;
  }

  /**
   * The identifier fields (Iceberg's primary key) in the order the columns appear; a field nested
   * in a struct is named by its dotted path.
   */
  public List<String> primaryKey() {
    Set<Integer> identifiers = schema.identifierFieldIds();
    List<String> names = new ArrayList<>();
    if (!identifiers.isEmpty()) {
      collectInOrder(schema.asStruct(), identifiers, names);
    }
    return names;
  }

  private void collectInOrder(Types.StructType struct, Set<Integer> wanted, List<String> out) {
    for (Types.NestedField field : struct.fields()) {
      if (wanted.contains(field.fieldId())) {
        out.add(schema.findColumnName(field.fieldId()));
      }
      // Identifier fields may sit in required structs, never in lists or maps.
      if (field.type().isStructType()) {
        collectInOrder(field.type().asStructType(), wanted, out);
      }
    }
  }
}
