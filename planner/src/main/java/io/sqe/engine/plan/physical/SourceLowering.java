package io.sqe.engine.plan.physical;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.iceberg.IcebergMetadataTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.adapter.enumerable.EnumerableInterpreter;
import org.apache.calcite.adapter.enumerable.EnumerableRel;
import org.apache.calcite.adapter.enumerable.EnumerableUnion;
import org.apache.calcite.adapter.enumerable.EnumerableValues;
import org.apache.calcite.interpreter.Bindables;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.schema.ProjectableFilterableTable;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * The columnar form of the plan's sources that are not data files: VALUES, UNION ALL of inputs
 * that lower, and the tables whose rows Java code makes (Iceberg metadata tables, and
 * information_schema, whose conditions are handed to the table as the row runtime hands them, then
 * evaluated again on its rows).
 */
final class SourceLowering {
  private SourceLowering() {}

  /** {@code rel}'s columnar form when it is such a source, else null. */
  static SqeRel lower(RelNode rel) {
    RelTraitSet traits = rel.getTraitSet().replace(SqeRel.CONVENTION);
    if (rel instanceof EnumerableValues values) {
      return values(traits, values);
    }
    if (rel instanceof EnumerableUnion union && union.all) {
      return union(traits, union);
    }
    if (rel instanceof TableScan scan && rel instanceof EnumerableRel && scan.getRowType().getFieldCount() > 0) {
      IcebergMetadataTable metadata = scan.getTable().unwrap(IcebergMetadataTable.class);
      if (metadata != null) {
        return new SqeRowSource(traits, scan, scan.getTable(), scan.getRowType(), List.of(), metadata::enumerate);
      }
      // A whole information_schema table, when no condition or projection reached it.
      ProjectableFilterableTable table = scan.getTable().unwrap(ProjectableFilterableTable.class);
      int width = scan.getRowType().getFieldCount();
      return table == null
          ? null
          : new SqeRowSource(traits, scan, scan.getTable(), scan.getRowType(), List.of(),
              context -> shaped(table.scan(context, new ArrayList<>(), null), width));
    }
    if (rel instanceof EnumerableInterpreter interpreter && interpreter.getInput() instanceof Bindables.BindableTableScan scan) {
      return filterable(traits, scan);
    }
    return null;
  }

  private static SqeRel values(RelTraitSet traits, EnumerableValues values) {
    int width = values.getRowType().getFieldCount();
    if (width == 0) {
      return null;
    }
    List<Object> rows = new ArrayList<>();
    for (List<RexLiteral> tuple : values.getTuples()) {
      Object[] row = new Object[width];
      for (int i = 0; i < width; i++) {
        Optional<Object> value = ColumnarLowering.constant(tuple.get(i));
        if (value.isEmpty()) {
          return null;
        }
        row[i] = value.get() == ColumnarLowering.NULL ? null : value.get();
      }
      rows.add(width == 1 ? row[0] : row);
    }
    return new SqeValues(traits, values, rows);
  }

  /** UNION ALL of inputs that lower, whose columns are of the union's Arrow types. */
  private static SqeRel union(RelTraitSet traits, EnumerableUnion union) {
    List<RelNode> inputs = new ArrayList<>();
    List<RelDataTypeField> fields = union.getRowType().getFieldList();
    for (RelNode input : union.getInputs()) {
      for (int i = 0; i < fields.size(); i++) {
        if (!sameArrowType(fields.get(i).getType(), input.getRowType().getFieldList().get(i).getType())) {
          return null;
        }
      }
      SqeRel lowered = ColumnarLowering.lower(input);
      if (lowered == null) {
        return null;
      }
      inputs.add(lowered);
    }
    return new SqeUnion(traits, inputs);
  }

  static boolean sameArrowType(RelDataType a, RelDataType b) {
    Field x = CalciteTypeMapping.toArrow("x", a);
    Field y = CalciteTypeMapping.toArrow("x", b);
    ArrowType type = x.getType();
    return type.equals(y.getType()) && x.getChildren().isEmpty() && y.getChildren().isEmpty();
  }

  /**
   * An information_schema table: its scan is asked for the columns the conditions and the output
   * read, and given the conditions (it narrows what it loads by them); the conditions are then
   * evaluated on its rows, and the output columns picked.
   */
  private static SqeRel filterable(RelTraitSet traits, Bindables.BindableTableScan scan) {
    ProjectableFilterableTable table = scan.getTable().unwrap(ProjectableFilterableTable.class);
    List<Integer> projects = scan.projects;
    if (table == null || projects.isEmpty()) {
      return null;
    }
    List<RexNode> filters = List.copyOf(scan.filters);
    ImmutableBitSet read = ImmutableBitSet.of(projects).union(org.apache.calcite.plan.RelOptUtil.InputFinder.bits(filters, null));
    int[] needed = read.toArray();
    List<RelDataTypeField> all = scan.getTable().getRowType().getFieldList();
    RelDataType neededType = scan.getCluster().getTypeFactory().createStructType(
        read.asList().stream().map(all::get).toList());
    SqeRel input = new SqeRowSource(traits, scan, scan.getTable(), neededType, filters,
        context -> shaped(table.scan(context, new ArrayList<>(filters), needed.clone()), needed.length));
    RexBuilder rexBuilder = scan.getCluster().getRexBuilder();
    if (!filters.isEmpty()) {
      RexNode condition = RexUtil.composeConjunction(rexBuilder, filters).accept(new RexShuttle() {
        @Override
        public RexNode visitInputRef(RexInputRef ref) {
          return new RexInputRef(read.indexOf(ref.getIndex()), ref.getType());
        }
      });
      input = SqeFilter.of(traits, input, condition);
      if (input == null) {
        return null;
      }
    }
    int[] columns = new int[projects.size()];
    List<RexNode> refs = new ArrayList<>();
    boolean identity = projects.size() == needed.length;
    for (int i = 0; i < columns.length; i++) {
      columns[i] = read.indexOf(projects.get(i));
      refs.add(new RexInputRef(columns[i], neededType.getFieldList().get(columns[i]).getType()));
      identity &= columns[i] == i;
    }
    return identity
        ? input
        : SqeProject.ofColumns(traits, input, refs, columns, new Object[columns.length], scan.getRowType());
  }

  /** A filterable table's rows (always arrays) in Calcite's row shape: a bare value for one column. */
  private static Enumerable<?> shaped(Enumerable<Object[]> rows, int width) {
    return width == 1 ? rows.select(row -> row[0]) : rows;
  }
}
