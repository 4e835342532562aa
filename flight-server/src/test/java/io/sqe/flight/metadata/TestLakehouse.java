package io.sqe.flight.metadata;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * Two real embedded Iceberg catalogs on local disk: "lake" with schemas sales, sales_2024,
 * salesx2024 and damaged (one of whose tables has lost its metadata files), and "archive".
 */
final class TestLakehouse {
  /** Every Iceberg type; a required column; a documented column. */
  static final Schema ALL_TYPES =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "flag", Types.BooleanType.get()),
          optional(3, "i", Types.IntegerType.get()),
          optional(4, "f", Types.FloatType.get()),
          optional(5, "d", Types.DoubleType.get()),
          optional(6, "amount", Types.DecimalType.of(12, 2), "Order total in EUR"),
          optional(7, "day", Types.DateType.get()),
          optional(8, "t", Types.TimeType.get()),
          optional(9, "ts", Types.TimestampType.withoutZone()),
          optional(10, "tstz", Types.TimestampType.withZone()),
          optional(11, "s", Types.StringType.get()),
          optional(12, "u", Types.UUIDType.get()),
          optional(13, "fx", Types.FixedType.ofLength(4)),
          optional(14, "b", Types.BinaryType.get()),
          optional(
              15,
              "st",
              Types.StructType.of(
                  required(16, "x", Types.IntegerType.get()), optional(17, "y", Types.StringType.get()))),
          optional(18, "l", Types.ListType.ofOptional(19, Types.LongType.get())),
          optional(20, "m", Types.MapType.ofRequired(21, 22, Types.StringType.get(), Types.DoubleType.get())));

  /** Identifier fields listed out of column order, one of them nested in a required struct. */
  static final Schema CUSTOMERS =
      new Schema(
          List.of(
              required(1, "customer_id", Types.LongType.get()),
              optional(2, "name", Types.StringType.get()),
              required(3, "tenant", Types.StringType.get()),
              required(4, "ext", Types.StructType.of(required(5, "code", Types.IntegerType.get())))),
          Set.of(5, 3, 1));

  static final Schema SIMPLE = new Schema(optional(1, "v", Types.StringType.get()));

  private TestLakehouse() {}

  /** Creates the catalogs, namespaces, tables and views the metadata tests expect. */
  static Catalogs create(Path warehouse) throws IOException {
    LakehouseCatalog lake = IcebergCatalogFactory.embedded("lake", warehouse.resolve("lake"), Duration.ofMinutes(1));
    LakehouseCatalog archive =
        IcebergCatalogFactory.embedded("archive", warehouse.resolve("archive"), Duration.ofMinutes(1));

    for (String ns : List.of("sales", "sales_2024", "salesx2024", "damaged")) {
      lake.namespaces().createNamespace(Namespace.of(ns));
    }
    Catalog iceberg = lake.iceberg();
    iceberg.createTable(TableIdentifier.of("sales", "all_types"), ALL_TYPES);
    iceberg.createTable(TableIdentifier.of("sales", "customers"), CUSTOMERS);
    iceberg.createTable(TableIdentifier.of("sales", "orders"), SIMPLE);
    iceberg.createTable(TableIdentifier.of("sales_2024", "orders"), SIMPLE);
    iceberg.createTable(TableIdentifier.of("salesx2024", "orders"), SIMPLE);
    lake.views()
        .orElseThrow()
        .buildView(TableIdentifier.of("sales", "big_orders"))
        .withSchema(
            new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "amount", Types.DecimalType.of(12, 2), "Order total in EUR")))
        .withQuery("sqe", "SELECT id, amount FROM lake.sales.all_types WHERE amount > 100")
        .withDefaultNamespace(Namespace.of("sales"))
        .create();

    // A table whose metadata is gone: still listed, but it cannot be loaded.
    Table broken = iceberg.createTable(TableIdentifier.of("damaged", "broken"), SIMPLE);
    deleteRecursively(Path.of(URI.create(broken.location())).resolve("metadata"));
    iceberg.createTable(TableIdentifier.of("damaged", "fine"), SIMPLE);

    archive.namespaces().createNamespace(Namespace.of("old"));
    archive.iceberg().createTable(TableIdentifier.of("old", "events"), SIMPLE);

    return new Catalogs(List.of(lake, archive), "lake");
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
