package io.sqe.engine.security;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The column rules of one principal's access to an Iceberg table, bound to field ids. A policy
 * names columns as the table's current schema names them; a column keeps its field id, not its
 * name, across renames, so the hidden and masked columns are found by field id in whatever schema
 * a statement reads (an old snapshot's, a branch's, a tag's).
 */
public final class ColumnRules {
  private static final Logger LOG = LoggerFactory.getLogger(ColumnRules.class);

  private final Schema current;
  private final Set<Integer> hidden;
  private final Map<Integer, String> masks;
  private final boolean restricts;

  private ColumnRules(Schema current, Set<Integer> hidden, Map<Integer, String> masks, boolean restricts) {
    this.current = current;
    this.hidden = hidden;
    this.masks = masks;
    this.restricts = restricts;
  }

  /**
   * Binds {@code access}'s column names to the field ids of {@code current}, the table's current
   * schema. A name the current schema lacks is ignored if no schema of the table ever had it (a
   * rule may name columns of many tables); if one did, the column was renamed or dropped since the
   * policy was written, the rule may no longer be applied as meant, and the principal is denied
   * the table until the policy names the column as the table does now.
   *
   * @param schemas every schema the table has had, as its metadata keeps them
   * @param table the table's name, for messages
   * @throws SqeException PERMISSION_DENIED for a policy naming a renamed or dropped column
   */
  public static ColumnRules bind(TableAccess access, Schema current, Iterable<Schema> schemas, String table) {
    requireNonNull(access, "access is null");
    requireNonNull(current, "current is null");
    Set<Integer> hidden = new HashSet<>();
    Map<Integer, String> masks = new HashMap<>();
    for (String name : access.hiddenColumns()) {
      fieldId(name, current, schemas, table).ifPresent(hidden::add);
    }
    for (Map.Entry<String, String> mask : access.masks().entrySet()) {
      fieldId(mask.getKey(), current, schemas, table).ifPresent(id -> masks.put(id, mask.getValue()));
    }
    return new ColumnRules(current, Set.copyOf(hidden), Map.copyOf(masks), access.restricts());
  }

  private static Optional<Integer> fieldId(String name, Schema current, Iterable<Schema> schemas, String table) {
    Types.NestedField field = current.asStruct().field(name);
    if (field != null) {
      return Optional.of(field.fieldId());
    }
    for (Schema schema : schemas) {
      if (schema.asStruct().field(name) != null) {
        // The column's name stays out of the message: it may be one the principal must not learn.
        LOG.warn("The access policy of {} names column '{}', which the table no longer has (renamed or dropped): "
            + "users it applies to are denied the table until the policy names the column as the table does now", table, name);
        throw new SqeException(
            ErrorCode.PERMISSION_DENIED,
            "Access denied: the access policy of " + table + " cannot be applied: it names a column the table no longer has"
                + " (renamed or dropped); an administrator must update the policy");
      }
    }
    return Optional.empty();
  }

  /**
   * Whether the principal may not see or write the column with this field id: a hidden column, or,
   * for a principal whose access restricts anything, a column the current schema no longer has
   * (dropped since an old snapshot was written), which no rule can name any more.
   */
  public boolean hides(int fieldId) {
    return hidden.contains(fieldId) || (restricts && current.findField(fieldId) == null);
  }

  /** The mask of the column with this field id, SQL over the current schema's column names. */
  public Optional<String> mask(int fieldId) {
    return Optional.ofNullable(masks.get(fieldId));
  }

  /** Whether any column is hidden or masked. */
  public boolean restrictsColumns() {
    return !hidden.isEmpty() || !masks.isEmpty();
  }
}
