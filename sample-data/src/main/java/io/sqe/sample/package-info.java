/** Sample data for newcomers, tests and benchmarks: TPC-H generated in process. */
package io.sqe.sample;
