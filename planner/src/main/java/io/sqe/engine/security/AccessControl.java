package io.sqe.engine.security;

import io.sqe.engine.session.ObjectVisibility;
import io.sqe.engine.session.Principal;

/**
 * The access policy the engine enforces when it plans a statement: what a principal may do with
 * each table and schema. It also decides what metadata listings show.
 */
public interface AccessControl extends ObjectVisibility {
  /** No policy: every principal may do everything. */
  AccessControl ALLOW_ALL =
      new AccessControl() {
        @Override
        public TableAccess tableAccess(Principal principal, String catalog, String schema, String table) {
          return TableAccess.ALL;
        }

        @Override
        public boolean ownsSchema(Principal principal, String catalog, String schema) {
          return true;
        }

        @Override
        public boolean canSeeSchema(Principal principal, String catalog, String schema) {
          return true;
        }
      };

  /** What {@code principal} may do with the table or view {@code catalog.schema.table}. */
  TableAccess tableAccess(Principal principal, String catalog, String schema, String table);

  /** Whether {@code principal} may create and drop the schema, and tables and views in it. */
  boolean ownsSchema(Principal principal, String catalog, String schema);

  @Override
  default boolean canSeeTable(Principal principal, String catalog, String schema, String table) {
    return tableAccess(principal, catalog, schema, table).visible();
  }

  /**
   * A principal whose access to the table hides, masks or filters anything sees no stored row
   * count: counted under the filter or not, counts of the table as stored would tell what the
   * policy keeps from them.
   */
  @Override
  default boolean canSeeRowCount(Principal principal, String catalog, String schema, String table) {
    TableAccess access = tableAccess(principal, catalog, schema, table);
    return access.visible() && !access.restricts();
  }

  @Override
  default boolean hidesColumns(Principal principal, String catalog, String schema, String table) {
    return !tableAccess(principal, catalog, schema, table).hiddenColumns().isEmpty();
  }

  @Override
  default boolean canSeeColumn(Principal principal, String catalog, String schema, String table, String column) {
    TableAccess access = tableAccess(principal, catalog, schema, table);
    return access.visible() && !access.hiddenColumns().contains(column);
  }
}
