/**
 * Parse trees of SQE's own statements: DDL, MERGE with any number of WHEN clauses, session and
 * utility statements, and the time-travel table reference. The generated parser in
 * {@code io.sqe.engine.sql.parser} builds them; each one unparses back to SQL that parses to an
 * equal tree.
 *
 * <p>Like Calcite's own DDL nodes, statement nodes are not rebuilt by a {@code SqlShuttle}: take
 * their parts (the query of a CTAS, the condition of a DELETE) and rewrite those. The exceptions
 * are {@link io.sqe.engine.sql.ddl.SqlTableVersion}, which sits inside queries, and
 * {@link io.sqe.engine.sql.ddl.SqlMergeStatement} with its clauses, whose expressions are planned
 * like a query's.
 */
package io.sqe.engine.sql.ddl;
