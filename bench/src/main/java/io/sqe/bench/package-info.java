/** Benchmarks: TPC-H through Flight SQL against DuckDB over the same files. */
package io.sqe.bench;
