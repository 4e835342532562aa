package io.sqe.engine.plan.physical;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class RowwiseCompilerTest {
  private final RelDataTypeFactory types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);

  @Test
  void compiledCodeIsReusedForTheSameExpressionOverTheSameTypes() {
    RelDataType row = row(types.createSqlType(SqlTypeName.VARCHAR, 20));

    Object first = compiled(RowwiseCompiler.compile(upper(row), row, rex));
    Object second = compiled(RowwiseCompiler.compile(upper(row), row, rex));

    assertThat(second).isSameAs(first);
  }

  @Test
  void compiledCodeIsNotSharedAcrossInputTypes() {
    RelDataType text = row(types.createSqlType(SqlTypeName.VARCHAR, 20));
    RelDataType nullableText = row(types.createTypeWithNullability(types.createSqlType(SqlTypeName.VARCHAR, 20), true));

    RexNode overText = upper(text);
    RexNode overNullable = upper(nullableText);

    assertThat(RowwiseCompiler.key(overText, text)).isNotEqualTo(RowwiseCompiler.key(overNullable, nullableText));
    assertThat(compiled(RowwiseCompiler.compile(overNullable, nullableText, rex)))
        .isNotSameAs(compiled(RowwiseCompiler.compile(overText, text, rex)));
  }

  private RelDataType row(RelDataType column) {
    return types.builder().add("s", column).build();
  }

  private RexNode upper(RelDataType row) {
    return rex.makeCall(SqlStdOperatorTable.UPPER, rex.makeInputRef(row.getFieldList().get(0).getType(), 0));
  }

  private static Object compiled(Object code) {
    assertThat(code).as("compiled").isNotNull();
    return code;
  }
}
