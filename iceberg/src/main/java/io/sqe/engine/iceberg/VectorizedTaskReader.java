package io.sqe.engine.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.runtime.FlatLists;
import io.sqe.engine.iceberg.parquet.ParquetColumnDecoder;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.iceberg.parquet.RowGroupReader;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.arrow.ArrowAllocation;
import org.apache.iceberg.arrow.vectorized.BaseBatchReader;
import org.apache.iceberg.arrow.vectorized.NullabilityHolder;
import org.apache.iceberg.arrow.vectorized.VectorHolder;
import org.apache.iceberg.arrow.vectorized.VectorizedArrowReader;
import org.apache.iceberg.arrow.vectorized.VectorizedReaderBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.TypeWithSchemaVisitor;
import org.apache.iceberg.parquet.VectorizedReader;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a Parquet file scan task column by column with Iceberg's vectorized Arrow reader and turns
 * each batch into Calcite rows with one typed loop per column: no {@code Record} per row, and a
 * dictionary-encoded column's values are converted once per dictionary and shared by its rows.
 *
 * <p>Handles the flat types whose Parquet representation it reads directly, and a row's data file
 * and position; a task with delete files, another metadata column, another file format, a nested
 * type, a TIME, UUID or nanosecond column, or a file whose physical type differs from the table's
 * (type promotion, legacy timestamp encodings) is left to the row reader ({@link #open} returns
 * null).
 */
final class VectorizedTaskReader {
  private static final Logger LOG = LoggerFactory.getLogger(VectorizedTaskReader.class);
  /** Rows per Arrow batch: enough to amortise per-batch work, small enough to stay in cache. */
  static final int BATCH_ROWS = 4096;

  private static final Set<Type.TypeID> SUPPORTED_TYPES =
      Set.of(
          Type.TypeID.BOOLEAN,
          Type.TypeID.INTEGER,
          Type.TypeID.LONG,
          Type.TypeID.FLOAT,
          Type.TypeID.DOUBLE,
          Type.TypeID.STRING,
          Type.TypeID.DATE,
          Type.TypeID.TIMESTAMP,
          Type.TypeID.DECIMAL,
          Type.TypeID.BINARY,
          Type.TypeID.FIXED);

  private VectorizedTaskReader() {}

  /**
   * The metadata columns this reader produces: a row's data file, a constant of the task (in
   * {@code PartitionUtil.constantsMap}), and its position in that file, which Iceberg's position
   * reader counts from the first row of each row group read (its row index offset in the footer),
   * so the positions of a split that starts mid-file, after skipped row groups or of rows the
   * selection keeps are the row reader's ({@code MetadataColumns.ROW_POSITION}).
   */
  private static final Set<Integer> PRODUCED_METADATA =
      Set.of(MetadataColumns.FILE_PATH.fieldId(), MetadataColumns.ROW_POSITION.fieldId());

  /**
   * Whether every column of {@code readSchema} has a type this reader converts, and one at least
   * is a column of the file (whose pages count the rows).
   */
  static boolean supports(Schema readSchema) {
    boolean fileColumn = false;
    for (Types.NestedField field : readSchema.columns()) {
      boolean metadata = MetadataColumns.isMetadataColumn(field.fieldId());
      if ((metadata && !PRODUCED_METADATA.contains(field.fieldId())) || !SUPPORTED_TYPES.contains(field.type().typeId())) {
        return false;
      }
      fileColumn |= !metadata;
    }
    return fileColumn;
  }

  /**
   * The rows of {@code task} in Calcite's shape for the first {@code outputColumns} columns of
   * {@code readSchema} (a bare value for one column, else an {@code Object[]}), or null when this
   * reader does not handle the task. The task's residual prunes row groups; {@code selection}, when
   * not null, drops rows on the vectors before they are built (rows the scan's filter cannot match,
   * and those its LIKE predicates do not keep: see {@link VectorSelection}).
   */
  static CloseableIterator<Object> open(
      FileIO io,
      FileScanTask task,
      Schema readSchema,
      int outputColumns,
      Map<Integer, ?> constants,
      VectorSelection selection) {
    if ((outputColumns == 0 && selection == null)
        || task.file().format() != FileFormat.PARQUET
        || !task.deletes().isEmpty()
        || !supports(readSchema)) {
      return null;
    }
    // The reader builder takes a child allocator of the one it is given and never closes it; given
    // Iceberg's static root, every file read would leave one behind in that root's list of children.
    BufferAllocator allocator = ArrowAllocation.rootAllocator().newChildAllocator("sqe-scan-task", 0, Long.MAX_VALUE);
    boolean[] unsupported = new boolean[1];
    CloseableIterable<VectorHolder[]> batches = batches(io, task, task.residual(), readSchema, constants, allocator, unsupported);
    CloseableIterator<VectorHolder[]> iterator;
    try {
      // Opens the file and builds the reader for its schema.
      iterator = batches.iterator();
    } catch (RuntimeException | Error e) {
      closeAllocator(allocator);
      throw e;
    }
    if (unsupported[0]) {
      try (Rows rows = new Rows(iterator, readSchema, 0, constants, allocator, null)) {
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new Rows(iterator, readSchema, outputColumns, constants, allocator, selection);
  }

  /**
   * The rows of {@code task} that {@code selection} keeps (all when null) as record batches of
   * {@code schema}, the result's Arrow types for the first {@code schema}'s size columns of {@code
   * readSchema}, decoded and gathered with buffers from {@code allocator}, from the row groups
   * {@code residual} (the task's, for a scan) may match; or null when this reader does not handle
   * the task or a column's result type (the caller then reads its rows).
   */
  static CloseableIterator<org.apache.arrow.vector.VectorSchemaRoot> openBatches(
      FileIO io,
      FileScanTask task,
      Expression residual,
      Schema readSchema,
      org.apache.arrow.vector.types.pojo.Schema schema,
      Map<Integer, ?> constants,
      VectorSelection selection,
      BufferAllocator allocator) {
    int outputColumns = schema.getFields().size();
    if (outputColumns == 0
        || task.file().format() != FileFormat.PARQUET
        || !task.deletes().isEmpty()
        || !supports(readSchema)) {
      return null;
    }
    List<Type> types = new ArrayList<>();
    Object[] values = new Object[outputColumns];
    for (int i = 0; i < outputColumns; i++) {
      Types.NestedField field = readSchema.columns().get(i);
      if (!VectorBatches.gathers(field.type(), schema.getFields().get(i))) {
        return null;
      }
      types.add(field.type());
      Object constant = constants.get(field.fieldId());
      values[i] = constant == null ? null : IcebergValueConverters.forType(field.type()).apply(constant);
    }
    // The decoder's vectors count against the query's memory, as the batches gathered from them do.
    BufferAllocator taskAllocator = allocator.newChildAllocator("sqe-scan-task", 0, Long.MAX_VALUE);
    boolean[] unsupported = new boolean[1];
    CloseableIterator<VectorHolder[]> iterator;
    try {
      iterator = batches(io, task, residual, readSchema, constants, taskAllocator, unsupported).iterator();
    } catch (RuntimeException | Error e) {
      closeAllocator(taskAllocator);
      throw e;
    }
    if (unsupported[0]) {
      try {
        iterator.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        closeAllocator(taskAllocator);
      }
      return null;
    }
    return new VectorBatches(iterator, () -> closeAllocator(taskAllocator), schema, types, values, allocator, selection);
  }

  /**
   * Writes the positions of the rows of {@code batch} (of {@code total} rows) that {@code selection}
   * keeps, every row when it is null, into {@code selected}, and returns how many there are.
   */
  static int select(VectorSelection selection, VectorHolder[] batch, int total, int[] selected) {
    if (selection != null) {
      return selection.select(batch, total, selected);
    }
    for (int i = 0; i < total; i++) {
      selected[i] = i;
    }
    return total;
  }

  /**
   * The batches of {@code task} (its split, row groups pruned by its residual), read with vectors
   * from {@code allocator}; {@code unsupported[0]} is set when the file stores a column differently
   * from how this reader reads it (see {@link #buildReader}). SQE picks the row groups by their
   * statistics from the cached footer ({@link ParquetFooters}) and reads them with {@link
   * RowGroupReader} from that footer, unless the file is encrypted or has no field ids (then Iceberg's reader opens the split).
   */
  private static CloseableIterable<VectorHolder[]> batches(
      FileIO io,
      FileScanTask task,
      Expression residual,
      Schema readSchema,
      Map<Integer, ?> constants,
      BufferAllocator allocator,
      boolean[] unsupported) {
    InputFile file = io.newInputFile(task.file());
    if (task.file().keyMetadata() == null) {
      ParquetFooters.RowGroups rowGroups =
          ParquetFooters.rowGroups(file, task.start(), task.length(), readSchema, residual);
      if (rowGroups != null) {
        if (rowGroups.isEmpty()) {
          return CloseableIterable.empty();
        }
        // Vectors are allocated for a whole batch: a small file's batch is only as large as its row groups.
        int batchRows = (int) Math.max(1, Math.min(BATCH_ROWS, rowGroups.largestRowCount()));
        return RowGroupReader.read(
            file, rowGroups, readSchema, fileSchema -> buildReader(readSchema, fileSchema, constants, allocator, unsupported), batchRows);
      }
    }
    return batches(file, task.start(), task.length(), residual, readSchema, constants, allocator, unsupported);
  }

  private static CloseableIterable<VectorHolder[]> batches(
      InputFile file,
      long start,
      long length,
      Expression filter,
      Schema readSchema,
      Map<Integer, ?> constants,
      BufferAllocator allocator,
      boolean[] unsupported) {
    Parquet.ReadBuilder builder = Parquet.read(file).project(readSchema).split(start, length).caseSensitive(true);
    if (filter != null) {
      builder.filter(filter);
    }
    return builder
        .createBatchedReaderFunc(fileSchema -> buildReader(readSchema, fileSchema, constants, allocator, unsupported))
        .recordsPerBatch(BATCH_ROWS)
        .reuseContainers()
        .build();
  }

  /** Closes a task's allocator and the builder's child of it, once the task's vectors are released. */
  static void closeAllocator(BufferAllocator allocator) {
    try {
      for (BufferAllocator child : List.copyOf(allocator.getChildAllocators())) {
        child.close();
      }
      allocator.close();
    } catch (IllegalStateException e) {
      // A vector the reader did not release: not worth failing the query over.
      LOG.warn("Arrow memory left by a vectorized Parquet read: {}", e.getMessage());
    }
  }

  /**
   * The batch reader for one file, or, when the file stores a column differently from how the
   * loops below read it, an empty one with {@code unsupported[0]} set (the caller then closes the
   * file and reads it row by row).
   */
  private static VectorizedReader<?> buildReader(
      Schema readSchema, MessageType fileSchema, Map<Integer, ?> constants, BufferAllocator allocator, boolean[] unsupported) {
    for (Types.NestedField field : readSchema.columns()) {
      if (constants.containsKey(field.fieldId())) {
        continue;
      }
      org.apache.parquet.schema.Type column = fileColumn(fileSchema, field.fieldId());
      if (column != null && (!column.isPrimitive() || column.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED) || !readsDirectly(field.type(), column.asPrimitiveType()))) {
        unsupported[0] = true;
        return new HolderBatchReader(List.of());
      }
    }
    return (VectorizedReader<?>)
        TypeWithSchemaVisitor.visit(
            readSchema.asStruct(),
            fileSchema,
            new TaskReaderBuilder(readSchema, fileSchema, constants, allocator));
  }

  private static org.apache.parquet.schema.Type fileColumn(MessageType fileSchema, int fieldId) {
    for (org.apache.parquet.schema.Type field : fileSchema.getFields()) {
      if (field.getId() != null && field.getId().intValue() == fieldId) {
        return field;
      }
    }
    return null;
  }

  /** Whether the file stores the column the way Iceberg writes this type, which is what the loops below read. */
  private static boolean readsDirectly(Type type, PrimitiveType primitive) {
    PrimitiveTypeName physical = primitive.getPrimitiveTypeName();
    LogicalTypeAnnotation annotation = primitive.getLogicalTypeAnnotation();
    switch (type.typeId()) {
      case BOOLEAN:
        return physical == PrimitiveTypeName.BOOLEAN;
      case INTEGER:
      case DATE:
        return physical == PrimitiveTypeName.INT32;
      case LONG:
        return physical == PrimitiveTypeName.INT64;
      case TIMESTAMP:
        return physical == PrimitiveTypeName.INT64
            && annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
            && ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
      case FLOAT:
        return physical == PrimitiveTypeName.FLOAT;
      case DOUBLE:
        return physical == PrimitiveTypeName.DOUBLE;
      case DECIMAL:
        return annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
            && ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) annotation).getScale() == ((Types.DecimalType) type).scale()
            && physical != PrimitiveTypeName.INT96;
      case STRING:
      case BINARY:
        return physical == PrimitiveTypeName.BINARY;
      case FIXED:
        return physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
      default:
        return false;
    }
  }

  /**
   * Iceberg's reader builder, with the vectors allocated from the task's allocator and SQE's page
   * decoder in place of Iceberg's column reader for each flat
   * column it decodes (it still hands a column chunk it does not decode to Iceberg's reader).
   */
  private static final class TaskReaderBuilder extends VectorizedReaderBuilder {
    private final Schema readSchema;
    private final MessageType fileSchema;
    private final BufferAllocator allocator;

    TaskReaderBuilder(Schema readSchema, MessageType fileSchema, Map<Integer, ?> constants, BufferAllocator allocator) {
      super(readSchema, fileSchema, true, constants, HolderBatchReader::new, (type, value) -> value, allocator);
      this.readSchema = readSchema;
      this.fileSchema = fileSchema;
      this.allocator = allocator;
    }

    @Override
    public VectorizedReader<?> primitive(Type.PrimitiveType expected, PrimitiveType primitive) {
      VectorizedReader<?> reader = super.primitive(expected, primitive);
      if (reader == null || reader.getClass() != VectorizedArrowReader.class) {
        return reader;
      }
      Types.NestedField field = readSchema.findField(primitive.getId().intValue());
      ParquetColumnDecoder decoder = ParquetColumnDecoder.forColumn(fileSchema.getColumnDescription(currentPath()), field, allocator);
      if (decoder == null) {
        return reader;
      }
      reader.close();
      return decoder;
    }
  }

  /** One batch of a file: a vector holder per column, the vectors reused from batch to batch. */
  private static final class HolderBatchReader extends BaseBatchReader<VectorHolder[]> {
    HolderBatchReader(List<VectorizedReader<?>> readers) {
      super(readers);
    }

    @Override
    public VectorHolder[] read(VectorHolder[] reuse, int numRowsToRead) {
      if (reuse == null) {
        closeVectors();
      }
      VectorHolder[] batch = new VectorHolder[readers.length];
      for (int i = 0; i < readers.length; i++) {
        vectorHolders[i] = readers[i].read(vectorHolders[i], numRowsToRead);
        batch[i] = vectorHolders[i];
      }
      return batch;
    }
  }

  /** The rows of one task's batches; each batch is converted whole before the next is read. */
  private static final class Rows implements CloseableIterator<Object> {
    private final CloseableIterator<VectorHolder[]> batches;
    private final BufferAllocator allocator;
    private final Type[] types;
    private final Object[] constants;
    private final int outputColumns;
    /** Drops rows on the vectors before they are built; null to build every row. */
    private final VectorSelection selection;
    /** The positions in the current batch of the rows to build. */
    private int[] selected = new int[0];
    /** Per column, the dictionary last converted and its values in the engine's representation. */
    private final Dictionary[] dictionaries;
    private final Object[][] dictionaryValues;
    private Object[] rows = new Object[0];
    /** Per output column, the converted values of the current batch. */
    private Object[][] columns;
    private int size;
    private int index;

    Rows(
        CloseableIterator<VectorHolder[]> batches,
        Schema readSchema,
        int outputColumns,
        Map<Integer, ?> constants,
        BufferAllocator allocator,
        VectorSelection selection) {
      this.batches = batches;
      this.selection = selection;
      this.allocator = allocator;
      this.outputColumns = outputColumns;
      this.types = new Type[outputColumns];
      this.constants = new Object[outputColumns];
      for (int i = 0; i < outputColumns; i++) {
        Types.NestedField field = readSchema.columns().get(i);
        types[i] = field.type();
        Object constant = constants.get(field.fieldId());
        this.constants[i] = constant == null ? null : IcebergValueConverters.forType(field.type()).apply(constant);
      }
      this.dictionaries = new Dictionary[outputColumns];
      this.dictionaryValues = new Object[outputColumns][];
    }

    @Override
    public boolean hasNext() {
      while (index >= size) {
        if (!batches.hasNext()) {
          return false;
        }
        convert(batches.next());
      }
      return true;
    }

    @Override
    public Object next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Object row = rows[index];
      rows[index++] = null;
      return row;
    }

    @Override
    public void close() throws IOException {
      try {
        batches.close();
      } finally {
        closeAllocator(allocator);
      }
    }

    private void convert(VectorHolder[] batch) {
      int total = batch.length == 0 ? 0 : batch[0].numValues();
      if (rows.length < total) {
        rows = new Object[total];
        columns = new Object[outputColumns][total];
      }
      if (selected.length < total) {
        selected = new int[total];
      }
      int count = select(selection, batch, total, selected);
      size = count;
      index = 0;
      if (count == 0) {
        return;
      }
      if (outputColumns == 0) {
        // Only counted, e.g. by count(*) over the rows the selection keeps.
        Arrays.fill(rows, 0, count, FlatLists.COMPARABLE_EMPTY_LIST);
        return;
      }
      if (outputColumns == 1) {
        fill(batch[0], 0, rows, count);
        return;
      }
      for (int c = 0; c < outputColumns; c++) {
        fill(batch[c], c, columns[c], count);
      }
      for (int r = 0; r < count; r++) {
        Object[] row = new Object[outputColumns];
        for (int c = 0; c < outputColumns; c++) {
          row[c] = columns[c][r];
        }
        rows[r] = row;
      }
    }

    /** Writes column {@code column}'s values at the first {@code count} selected positions into {@code out}. */
    private void fill(VectorHolder holder, int column, Object[] out, int count) {
      if (holder instanceof VectorHolder.ConstantVectorHolder || holder.vector() == null) {
        Object constant = constants[column];
        for (int i = 0; i < count; i++) {
          out[i] = constant;
        }
        return;
      }
      int[] sel = selected;
      NullabilityHolder nulls = holder.nullabilityHolder();
      boolean hasNulls = nulls != null && nulls.hasNulls();
      FieldVector vector = holder.vector();
      Type type = types[column];
      if (holder.isDictionaryEncoded()) {
        Object[] decoded = dictionaryValues(column, holder);
        ArrowBuf ids = vector.getDataBuffer();
        for (int i = 0; i < count; i++) {
          int r = sel[i];
          out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : decoded[ids.getInt((long) r * 4)];
        }
        return;
      }
      switch (type.typeId()) {
        case BOOLEAN: {
          BitVector bits = (BitVector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : bits.get(r) != 0;
          }
          return;
        }
        case INTEGER:
        case DATE: {
          ArrowBuf data = ((BaseFixedWidthVector) vector).getDataBuffer();
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : Integer.valueOf(data.getInt((long) r * 4));
          }
          return;
        }
        case LONG:
        case TIMESTAMP: {
          ArrowBuf data = ((BaseFixedWidthVector) vector).getDataBuffer();
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : Long.valueOf(data.getLong((long) r * 8));
          }
          return;
        }
        case FLOAT: {
          Float4Vector floats = (Float4Vector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : floats.get(r);
          }
          return;
        }
        case DOUBLE: {
          Float8Vector doubles = (Float8Vector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : doubles.get(r);
          }
          return;
        }
        case DECIMAL: {
          int scale = ((Types.DecimalType) type).scale();
          if (vector instanceof FixedSizeBinaryVector) {
            FixedSizeBinaryVector bytes = (FixedSizeBinaryVector) vector;
            for (int i = 0; i < count; i++) {
            int r = sel[i];
              out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : new BigDecimal(new BigInteger(bytes.get(r)), scale);
            }
            return;
          }
          BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
          ArrowBuf data = fixed.getDataBuffer();
          boolean wide = fixed.getTypeWidth() == 8;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            if (hasNulls && nulls.isNullAt(r) == 1) {
              out[i] = null;
            } else {
              long unscaled = wide ? data.getLong((long) r * 8) : data.getInt((long) r * 4);
              out[i] = SmallDecimals.valueOf(unscaled, scale);
            }
          }
          return;
        }
        case STRING: {
          BaseVariableWidthVector strings = (BaseVariableWidthVector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : new String(strings.get(r), StandardCharsets.UTF_8);
          }
          return;
        }
        case BINARY: {
          BaseVariableWidthVector bytes = (BaseVariableWidthVector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : new ByteString(bytes.get(r));
          }
          return;
        }
        case FIXED: {
          FixedSizeBinaryVector bytes = (FixedSizeBinaryVector) vector;
          for (int i = 0; i < count; i++) {
            int r = sel[i];
            out[i] = hasNulls && nulls.isNullAt(r) == 1 ? null : new ByteString(bytes.get(r));
          }
          return;
        }
        default:
          throw new IllegalStateException("No vectorized conversion for " + type);
      }
    }

    /** The values of the column's current dictionary, converted once for all the rows that use it. */
    private Object[] dictionaryValues(int column, VectorHolder holder) {
      Dictionary dictionary = holder.dictionary();
      if (dictionaries[column] == dictionary) {
        return dictionaryValues[column];
      }
      ColumnDescriptor descriptor = holder.descriptor();
      PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
      Type type = types[column];
      Object[] values = new Object[dictionary.getMaxId() + 1];
      for (int id = 0; id < values.length; id++) {
        values[id] = decode(dictionary, id, type, physical);
      }
      dictionaries[column] = dictionary;
      dictionaryValues[column] = values;
      return values;
    }
  }

  /** Value {@code id} of a Parquet dictionary in the engine's run-time representation. */
  static Object decode(Dictionary dictionary, int id, Type type, PrimitiveTypeName physical) {
    switch (type.typeId()) {
      case BOOLEAN:
        return dictionary.decodeToBoolean(id);
      case INTEGER:
      case DATE:
        return dictionary.decodeToInt(id);
      case LONG:
      case TIMESTAMP:
        return dictionary.decodeToLong(id);
      case FLOAT:
        return dictionary.decodeToFloat(id);
      case DOUBLE:
        return dictionary.decodeToDouble(id);
      case DECIMAL: {
        int scale = ((Types.DecimalType) type).scale();
        switch (physical) {
          case INT32:
            return BigDecimal.valueOf(dictionary.decodeToInt(id), scale);
          case INT64:
            return BigDecimal.valueOf(dictionary.decodeToLong(id), scale);
          default:
            return new BigDecimal(new BigInteger(dictionary.decodeToBinary(id).getBytes()), scale);
        }
      }
      case STRING:
        return dictionary.decodeToBinary(id).toStringUsingUTF8();
      case BINARY:
      case FIXED:
        return new ByteString(dictionary.decodeToBinary(id).getBytes());
      default:
        throw new IllegalStateException("No vectorized conversion for " + type);
    }
  }
}
