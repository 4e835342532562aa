package io.sqe.engine.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class ParameterValuesTest {
  private final RelDataType uuidType = new SqeJavaTypeFactory().createSqlType(SqlTypeName.UUID);

  @Test
  void uuidBoundAsSixteenBytes() {
    UUID uuid = UUID.fromString("f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    byte[] bytes =
        ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();
    assertThat(ParameterValues.toInternal(bytes, uuidType, 0)).isEqualTo(uuid);
    assertThat(ParameterValues.toInternal(uuid.toString(), uuidType, 0)).isEqualTo(uuid);
    assertThat(ParameterValues.toInternal(uuid, uuidType, 0)).isEqualTo(uuid);
  }

  @Test
  void badUuidIsAnInvalidArgumentThatShowsTheValue() {
    assertThatThrownBy(() -> ParameterValues.toInternal(new byte[] {1, 2, 3}, uuidType, 1))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).isEqualTo("Parameter 2 (0x010203) is not a valid UUID NOT NULL");
        });
    assertThatThrownBy(() -> ParameterValues.toInternal("not-a-uuid", uuidType, 0))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }
}
