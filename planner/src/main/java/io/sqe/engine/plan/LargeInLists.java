package io.sqe.engine.plan;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlUtil;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * IN lists of {@link #MIN_VALUES} or more numbers or strings (and NULLs), which Calcite's validator and
 * converter would handle value by value (a cast per value to the column's type, an equality per
 * value, then a simplifier that folds them into a set again: seconds for 100,000 values). Before
 * validation, such a list is replaced by a {@link Sample}: one value of each type the list holds
 * (the widest of each), which the validator checks and coerces as it would the whole list (the
 * list's type is the least restrictive of its values' types, which the widest of each decides).
 * {@link InListConverter} then makes the set of all the values in one step.
 */
final class LargeInLists {
  /** The shortest list handled here; shorter ones go through Calcite as written. */
  static final int MIN_VALUES = 1_000;

  private LargeInLists() {}

  /**
   * Replaces the large IN lists of {@code node} by samples, in place, and returns every sample in
   * it (those of an earlier planning of the same tree too), each marked as not yet converted.
   */
  static List<Sample> sample(SqlNode node, RelDataTypeFactory types) {
    List<Sample> samples = new ArrayList<>();
    Deque<SqlNode> pending = new ArrayDeque<>();
    pending.push(node);
    while (!pending.isEmpty()) {
      SqlNode current = pending.pop();
      if (current instanceof SqlCall) {
        SqlCall call = (SqlCall) current;
        if ((call.getKind() == SqlKind.IN || call.getKind() == SqlKind.NOT_IN) && call.operand(1) instanceof SqlNodeList) {
          SqlNodeList list = call.operand(1);
          if (list instanceof Sample) {
            samples.add(((Sample) list).unconverted());
          } else if (list.size() >= MIN_VALUES && call.operand(0).getKind() != SqlKind.ROW) {
            List<SqlLiteral> values = literals(list);
            if (values != null) {
              Sample sample = new Sample(list, values, types);
              call.setOperand(1, sample);
              samples.add(sample);
            }
          }
          pending.push(call.operand(0));
          continue;
        }
        for (SqlNode operand : call.getOperandList()) {
          if (operand != null) {
            pending.push(operand);
          }
        }
      } else if (current instanceof SqlNodeList) {
        for (SqlNode element : (SqlNodeList) current) {
          if (element != null) {
            pending.push(element);
          }
        }
      }
    }
    return samples;
  }

  /** Fails if a sample of the tree was not converted: its statement would test only the sampled values. */
  static void checkConverted(List<Sample> samples) {
    for (Sample sample : samples) {
      if (!sample.converted) {
        throw new SqeException(
            ErrorCode.NOT_SUPPORTED,
            "An IN list of " + sample.values.size() + " values cannot be planned in this place; write fewer than "
                + MIN_VALUES + " values, or join a table of them");
      }
    }
  }

  /** The values, if all are numbers or all strings, or NULL (no expression, no other type). */
  private static List<SqlLiteral> literals(SqlNodeList list) {
    List<SqlLiteral> values = new ArrayList<>(list.size());
    Boolean numbers = null;
    for (SqlNode value : list) {
      if (SqlUtil.isNullLiteral(value, false)) {
        values.add((SqlLiteral) value);
        continue;
      }
      boolean number = value instanceof SqlNumericLiteral;
      if (numbers != null && number != numbers || !number && !(value instanceof SqlCharStringLiteral)) {
        return null;
      }
      numbers = number;
      values.add((SqlLiteral) value);
    }
    return numbers == null ? null : values;
  }

  /**
   * An IN list cut down to one value of each type among its values, the widest of each, for the
   * validator; it keeps all the values for the converter and writes them all as SQL.
   */
  static final class Sample extends SqlNodeList {
    private final List<SqlLiteral> values;
    private boolean converted;

    Sample(SqlNodeList list, List<SqlLiteral> values, RelDataTypeFactory types) {
      super(representatives(values, types), list.getParserPosition());
      this.values = List.copyOf(values);
    }

    private Sample(Sample sample, List<SqlLiteral> values, SqlParserPos pos) {
      super(sample.getList(), pos);
      this.values = values;
    }

    List<SqlLiteral> values() {
      return values;
    }

    void converted() {
      converted = true;
    }

    Sample unconverted() {
      converted = false;
      return this;
    }

    /** A copy that keeps all the values: the converter must never see a list of samples alone. */
    @Override
    public SqlNodeList clone(SqlParserPos pos) {
      return new Sample(this, values, pos);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
      new SqlNodeList(values, getParserPosition()).unparse(writer, leftPrec, rightPrec);
    }

    /**
     * One value of each type, and for decimals the one with the most integer digits and the one
     * with the most fractional digits: the least restrictive type of these is that of all.
     */
    private static List<SqlNode> representatives(List<SqlLiteral> values, RelDataTypeFactory types) {
      Map<String, SqlLiteral> chosen = new LinkedHashMap<>();
      Map<String, RelDataType> chosenTypes = new LinkedHashMap<>();
      for (SqlLiteral value : values) {
        RelDataType type = value.createSqlType(types);
        SqlTypeName name = type.getSqlTypeName();
        if (name == SqlTypeName.DECIMAL) {
          keepWidest(chosen, chosenTypes, "decimal-digits", value, type, type.getPrecision() - type.getScale());
          keepWidest(chosen, chosenTypes, "decimal-scale", value, type, type.getScale());
        } else {
          keepWidest(chosen, chosenTypes, name.getName(), value, type, type.getPrecision());
        }
      }
      return new ArrayList<>(chosen.values());
    }

    private static void keepWidest(
        Map<String, SqlLiteral> chosen, Map<String, RelDataType> chosenTypes, String key, SqlLiteral value, RelDataType type, int width) {
      RelDataType current = chosenTypes.get(key);
      int currentWidth = current == null ? Integer.MIN_VALUE
          : key.equals("decimal-digits") ? current.getPrecision() - current.getScale()
          : key.equals("decimal-scale") ? current.getScale()
          : current.getPrecision();
      if (width > currentWidth) {
        chosen.put(key, value);
        chosenTypes.put(key, type);
      }
    }
  }
}
