package io.sqe.flight.infoschema;

/** The two ways SQE reaches its Iceberg catalog. */
enum CatalogMode {
  /** Iceberg's JDBC catalog on SQLite inside the server's data directory. */
  EMBEDDED,
  /** A real Iceberg REST catalog server on loopback. */
  REST
}
