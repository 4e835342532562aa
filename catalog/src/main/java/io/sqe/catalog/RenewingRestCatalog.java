package io.sqe.catalog;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Iceberg's REST catalog client, except that a table is never handed out with vended storage
 * credentials about to expire that its FileIO cannot renew (see {@link VendedCredentials}).
 */
final class RenewingRestCatalog extends RESTCatalog {
  @Override
  public Table loadTable(TableIdentifier id) {
    return VendedCredentials.loadWithLiveCredentials(id, super::loadTable, super::invalidateTable);
  }
}
