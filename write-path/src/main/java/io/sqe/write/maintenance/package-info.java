/**
 * Table maintenance over Iceberg's own APIs: compaction of small data files, snapshot expiry,
 * orphan file removal. The SQL statements that run them ({@code ALTER TABLE t EXECUTE ...}) are in
 * {@code io.sqe.write.ddl}.
 */
package io.sqe.write.maintenance;
