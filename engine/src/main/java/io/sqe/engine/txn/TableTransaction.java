package io.sqe.engine.txn;

import io.sqe.engine.iceberg.IcebergTable;
import java.util.List;

/** A transaction with the tables it has staged, which only the engine and the write path see. */
public interface TableTransaction extends Transaction {
  /** The tables the transaction has written so far, as its own statements read them. */
  List<IcebergTable> tables();
}
