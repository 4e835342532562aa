/**
 * Reuse of table materializations: the lineage a CREATE [OR REPLACE] TABLE ... AS records in the
 * snapshot it commits, and the check that lets the same statement commit nothing when nothing it
 * reads changed since.
 */
package io.sqe.write.reuse;
