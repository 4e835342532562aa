/** TPC-H data generated in process and written as Iceberg tables, and the 22 TPC-H queries. */
package io.sqe.sample.tpch;
