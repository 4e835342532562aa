package io.sqe.engine.session;

/**
 * Which schemas, tables, views and columns a principal may see in metadata (information_schema
 * and the Flight SQL metadata commands). Every listing asks here, so an access policy plugs in
 * at this one place.
 */
public interface ObjectVisibility {
  /** Everything is visible to everyone: there is no access policy yet. */
  ObjectVisibility ALL =
      new ObjectVisibility() {
        @Override
        public boolean canSeeSchema(Principal principal, String catalog, String schema) {
          return true;
        }

        @Override
        public boolean canSeeTable(Principal principal, String catalog, String schema, String table) {
          return true;
        }

        @Override
        public boolean canSeeColumn(Principal principal, String catalog, String schema, String table, String column) {
          return true;
        }
      };

  boolean canSeeSchema(Principal principal, String catalog, String schema);

  /** Whether the principal may see a table or view. */
  boolean canSeeTable(Principal principal, String catalog, String schema, String table);

  boolean canSeeColumn(Principal principal, String catalog, String schema, String table, String column);

  /**
   * Whether the principal may see a table's row count as stored (information_schema.tables): by
   * default whoever sees the table; a policy may say otherwise for a principal who reads less.
   */
  default boolean canSeeRowCount(Principal principal, String catalog, String schema, String table) {
    return canSeeTable(principal, catalog, schema, table);
  }

  /** Whether the principal's access to a table or view hides some of its columns from them. */
  default boolean hidesColumns(Principal principal, String catalog, String schema, String table) {
    return false;
  }
}
