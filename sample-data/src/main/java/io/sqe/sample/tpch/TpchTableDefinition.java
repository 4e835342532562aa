package io.sqe.sample.tpch;

import io.trino.tpch.Customer;
import io.trino.tpch.LineItem;
import io.trino.tpch.Nation;
import io.trino.tpch.Order;
import io.trino.tpch.Part;
import io.trino.tpch.PartSupplier;
import io.trino.tpch.Region;
import io.trino.tpch.Supplier;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * One TPC-H table as an Iceberg table: its schema and how a generated row becomes a record.
 *
 * <p>Money, quantity, discount and tax columns are {@code DECIMAL(15,2)} built from the generator's
 * integer cents (or whole units for quantity), so no value passes through a double. Every column is
 * required, as the TPC-H specification allows no nulls.
 */
final class TpchTableDefinition<E extends TpchEntity> {
  private static final Type MONEY = Types.DecimalType.of(15, 2);

  static final TpchTableDefinition<Nation> NATION =
      new Columns<Nation>()
          .bigint("n_nationkey", Nation::getNationKey)
          .string("n_name", Nation::getName)
          .bigint("n_regionkey", Nation::getRegionKey)
          .string("n_comment", Nation::getComment)
          .define(TpchTable.NATION, false);

  static final TpchTableDefinition<Region> REGION =
      new Columns<Region>()
          .bigint("r_regionkey", Region::getRegionKey)
          .string("r_name", Region::getName)
          .string("r_comment", Region::getComment)
          .define(TpchTable.REGION, false);

  static final TpchTableDefinition<Part> PART =
      new Columns<Part>()
          .bigint("p_partkey", Part::getPartKey)
          .string("p_name", Part::getName)
          .string("p_mfgr", Part::getManufacturer)
          .string("p_brand", Part::getBrand)
          .string("p_type", Part::getType)
          .integer("p_size", Part::getSize)
          .string("p_container", Part::getContainer)
          .decimal("p_retailprice", Part::getRetailPriceInCents)
          .string("p_comment", Part::getComment)
          .define(TpchTable.PART, true);

  static final TpchTableDefinition<Supplier> SUPPLIER =
      new Columns<Supplier>()
          .bigint("s_suppkey", Supplier::getSupplierKey)
          .string("s_name", Supplier::getName)
          .string("s_address", Supplier::getAddress)
          .bigint("s_nationkey", Supplier::getNationKey)
          .string("s_phone", Supplier::getPhone)
          .decimal("s_acctbal", Supplier::getAccountBalanceInCents)
          .string("s_comment", Supplier::getComment)
          .define(TpchTable.SUPPLIER, true);

  static final TpchTableDefinition<PartSupplier> PARTSUPP =
      new Columns<PartSupplier>()
          .bigint("ps_partkey", PartSupplier::getPartKey)
          .bigint("ps_suppkey", PartSupplier::getSupplierKey)
          .integer("ps_availqty", PartSupplier::getAvailableQuantity)
          .decimal("ps_supplycost", PartSupplier::getSupplyCostInCents)
          .string("ps_comment", PartSupplier::getComment)
          .define(TpchTable.PART_SUPPLIER, true);

  static final TpchTableDefinition<Customer> CUSTOMER =
      new Columns<Customer>()
          .bigint("c_custkey", Customer::getCustomerKey)
          .string("c_name", Customer::getName)
          .string("c_address", Customer::getAddress)
          .bigint("c_nationkey", Customer::getNationKey)
          .string("c_phone", Customer::getPhone)
          .decimal("c_acctbal", Customer::getAccountBalanceInCents)
          .string("c_mktsegment", Customer::getMarketSegment)
          .string("c_comment", Customer::getComment)
          .define(TpchTable.CUSTOMER, true);

  static final TpchTableDefinition<Order> ORDERS =
      new Columns<Order>()
          .bigint("o_orderkey", Order::getOrderKey)
          .bigint("o_custkey", Order::getCustomerKey)
          .string("o_orderstatus", order -> String.valueOf(order.getOrderStatus()))
          .decimal("o_totalprice", Order::getTotalPriceInCents)
          .date("o_orderdate", Order::getOrderDate)
          .string("o_orderpriority", Order::getOrderPriority)
          .string("o_clerk", Order::getClerk)
          .integer("o_shippriority", Order::getShipPriority)
          .string("o_comment", Order::getComment)
          .define(TpchTable.ORDERS, true);

  static final TpchTableDefinition<LineItem> LINEITEM =
      new Columns<LineItem>()
          .bigint("l_orderkey", LineItem::getOrderKey)
          .bigint("l_partkey", LineItem::getPartKey)
          .bigint("l_suppkey", LineItem::getSupplierKey)
          .integer("l_linenumber", LineItem::getLineNumber)
          // the generator's quantity is a whole number of units
          .decimal("l_quantity", item -> Math.multiplyExact(item.getQuantity(), 100L))
          .decimal("l_extendedprice", LineItem::getExtendedPriceInCents)
          .decimal("l_discount", LineItem::getDiscountPercent)
          .decimal("l_tax", LineItem::getTaxPercent)
          .string("l_returnflag", LineItem::getReturnFlag)
          .string("l_linestatus", LineItem::getStatus)
          .date("l_shipdate", LineItem::getShipDate)
          .date("l_commitdate", LineItem::getCommitDate)
          .date("l_receiptdate", LineItem::getReceiptDate)
          .string("l_shipinstruct", LineItem::getShipInstructions)
          .string("l_shipmode", LineItem::getShipMode)
          .string("l_comment", LineItem::getComment)
          .define(TpchTable.LINE_ITEM, true);

  /** In the order the loader creates them: dimensions first. */
  static final List<TpchTableDefinition<?>> ALL =
      List.of(NATION, REGION, PART, SUPPLIER, PARTSUPP, CUSTOMER, ORDERS, LINEITEM);

  private final TpchTable<E> source;
  private final Schema schema;
  private final List<Function<E, Object>> values;
  private final boolean splittable;
  private final GenericRecord template;

  private TpchTableDefinition(
      TpchTable<E> source, Schema schema, List<Function<E, Object>> values, boolean splittable) {
    this.source = source;
    this.schema = schema;
    this.values = List.copyOf(values);
    this.splittable = splittable;
    this.template = GenericRecord.create(schema);
  }

  String name() {
    return source.getTableName();
  }

  TpchTable<E> source() {
    return source;
  }

  Schema schema() {
    return schema;
  }

  /** Whether the generator can produce the table in parts; nation and region come in one piece. */
  boolean splittable() {
    return splittable;
  }

  /** The rows of one part (1-based) of {@code partCount} parts of the table. */
  Iterable<Record> records(double scaleFactor, int part, int partCount) {
    Iterable<E> rows = source.createGenerator(scaleFactor, part, partCount);
    return () -> {
      Iterator<E> it = rows.iterator();
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public Record next() {
          return toRecord(it.next());
        }
      };
    };
  }

  Record toRecord(E row) {
    GenericRecord record = template.copy();
    for (int i = 0; i < values.size(); i++) {
      record.set(i, values.get(i).apply(row));
    }
    return record;
  }

  private static final class Columns<E extends TpchEntity> {
    private final List<Types.NestedField> fields = new ArrayList<>();
    private final List<Function<E, Object>> values = new ArrayList<>();

    Columns<E> bigint(String name, ToLongFunction<E> value) {
      return add(name, Types.LongType.get(), row -> value.applyAsLong(row));
    }

    Columns<E> integer(String name, ToIntFunction<E> value) {
      return add(name, Types.IntegerType.get(), row -> value.applyAsInt(row));
    }

    Columns<E> decimal(String name, ToLongFunction<E> hundredths) {
      return add(name, MONEY, row -> BigDecimal.valueOf(hundredths.applyAsLong(row), 2));
    }

    Columns<E> date(String name, ToIntFunction<E> epochDay) {
      return add(name, Types.DateType.get(), row -> LocalDate.ofEpochDay(epochDay.applyAsInt(row)));
    }

    Columns<E> string(String name, Function<E, String> value) {
      return add(name, Types.StringType.get(), value::apply);
    }

    private Columns<E> add(String name, Type type, Function<E, Object> value) {
      fields.add(Types.NestedField.required(fields.size() + 1, name, type));
      values.add(value);
      return this;
    }

    TpchTableDefinition<E> define(TpchTable<E> source, boolean splittable) {
      return new TpchTableDefinition<>(source, new Schema(fields), values, splittable);
    }
  }
}
