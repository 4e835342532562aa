package io.sqe.write.ddl;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.write.WritePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.ZoneOffset;
import java.util.List;
import java.util.StringJoiner;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** An engine with the write path's executors over one catalog, and what DDL tests assert with. */
final class DdlTesting {
  private final QueryEngine engine;
  private Session session;

  DdlTesting(LakehouseCatalog catalog, BufferAllocator allocator, String schema) {
    this.engine = new QueryEngine(new Catalogs(List.of(catalog), catalog.name()), allocator, EngineConfig.DEFAULT, WritePath.executors());
    this.session = new Session(Principal.of("test"), catalog.name(), schema, ZoneOffset.UTC);
  }

  QueryEngine engine() {
    return engine;
  }

  Session session() {
    return session;
  }

  void useSchema(String schema) {
    session = session.withSchema(schema);
  }

  /** Prepares and runs a statement that is not a query, as every client path does. */
  void run(String sql) {
    Prepared prepared = engine.prepare(session, sql);
    engine.run(session, (Prepared.Command) prepared, List.of(), "test");
  }

  /** Runs a query and returns its rows, strings as Java strings. */
  List<List<Object>> query(String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new java.util.ArrayList<>();
    try (QueryExecution execution = engine.execute(session, prepared, List.of(), "test")) {
      while (execution.next()) {
        VectorSchemaRoot root = execution.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new java.util.ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Prepares a statement; runs it later with {@link #runPrepared}. */
  Prepared.Command prepare(String sql) {
    return (Prepared.Command) engine.prepare(session, sql);
  }

  void runPrepared(Prepared.Command command) {
    engine.run(session, command, List.of(), "test");
  }

  /** Asserts that the statement fails with {@code code}, a message containing {@code message}, at the position. */
  void fails(String sql, ErrorCode code, String message, int line, int column) {
    assertThatThrownBy(() -> run(sql))
        .as(sql)
        .isInstanceOfSatisfying(SqeException.class, e -> {
          org.assertj.core.api.Assertions.assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
          org.assertj.core.api.Assertions.assertThat(e.getMessage()).contains(message);
          org.assertj.core.api.Assertions.assertThat(e.position()).as(e.getMessage())
              .contains(new SqeException.SqlPosition(line, column));
        });
  }

  void fails(String sql, ErrorCode code, String message) {
    assertThatThrownBy(() -> run(sql))
        .as(sql)
        .isInstanceOfSatisfying(SqeException.class, e -> {
          org.assertj.core.api.Assertions.assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
          org.assertj.core.api.Assertions.assertThat(e.getMessage()).contains(message);
        });
  }

  /** An Iceberg type written without field ids, e.g. {@code struct<a: required int, b: optional list<optional string>>}. */
  static String describe(Type type) {
    if (type.isStructType()) {
      StringJoiner fields = new StringJoiner(", ", "struct<", ">");
      for (Types.NestedField f : type.asStructType().fields()) {
        fields.add(f.name() + ": " + (f.isOptional() ? "optional " : "required ") + describe(f.type()));
      }
      return fields.toString();
    }
    if (type.isListType()) {
      return "list<" + (type.asListType().isElementOptional() ? "optional " : "required ") + describe(type.asListType().elementType()) + ">";
    }
    if (type.isMapType()) {
      Types.MapType map = type.asMapType();
      return "map<" + describe(map.keyType()) + ", " + (map.isValueOptional() ? "optional " : "required ") + describe(map.valueType()) + ">";
    }
    return type.toString();
  }

  /** Appends rows as one Parquet file through Iceberg's generic writer (unpartitioned tables). */
  static void append(Table table, List<Record> rows) {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).dataSchema(table.schema()).build();
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = writers.newDataWriter(files.newOutputFile(), table.spec(), null);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
  }
}
