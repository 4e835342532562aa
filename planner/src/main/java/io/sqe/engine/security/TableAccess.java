package io.sqe.engine.security;

import static java.util.Objects.requireNonNull;

import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one principal may do with one table or view: its privileges, the columns it may not see,
 * the SQL expressions that replace masked columns, and the row filter (SQL) that keeps only the
 * rows it may see.
 */
public record TableAccess(Set<Privilege> privileges, Set<String> hiddenColumns, Map<String, String> masks, String filter) {
  /** Every privilege, every column and row as stored. */
  public static final TableAccess ALL = new TableAccess(EnumSet.allOf(Privilege.class), Set.of(), Map.of(), null);
  /** Nothing: the object is invisible. */
  public static final TableAccess NONE = new TableAccess(Set.of(), Set.of(), Map.of(), null);

  public TableAccess {
    privileges = privileges.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(privileges));
    hiddenColumns = Set.copyOf(hiddenColumns);
    masks = Map.copyOf(requireNonNull(masks, "masks is null"));
  }

  public boolean has(Privilege privilege) {
    return privileges.contains(privilege);
  }

  /** Whether the principal may see the object at all: any privilege on it. */
  public boolean visible() {
    return !privileges.isEmpty();
  }

  /** Whether reads see something other than the stored rows and columns. */
  public boolean restricts() {
    return !hiddenColumns.isEmpty() || !masks.isEmpty() || filter != null;
  }

  public Optional<String> rowFilter() {
    return Optional.ofNullable(filter);
  }

  /** The same rows and columns with only the privileges also in {@code allowed}. */
  TableAccess limitedTo(Set<Privilege> allowed) {
    Set<Privilege> kept = EnumSet.noneOf(Privilege.class);
    kept.addAll(privileges);
    kept.retainAll(allowed);
    return new TableAccess(kept, hiddenColumns, masks, filter);
  }
}
