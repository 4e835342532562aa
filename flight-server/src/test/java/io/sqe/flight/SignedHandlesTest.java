package io.sqe.flight;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.flight.auth.HandleKeys;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The signed form of tickets and prepared statement handles: what it carries, and what it refuses. */
class SignedHandlesTest {
  private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);
  private final SignedHandles handles = new SignedHandles(HandleKeys.of("shared secret".getBytes(UTF_8)));

  private static StatementHandle ticket(String sql, List<List<Object>> parameters) {
    return new StatementHandle(
        StatementHandle.Kind.TICKET, NOW, "a1b2c3d4e5f6", "a1b2c3d4e5f6.q1", "alice", StatementHandle.Scope.SELF_CONTAINED,
        new StatementHandle.Context("lake", "sales", "Europe/Paris", Duration.ofSeconds(30), Map.of("join_reordering", "false"),
            Map.of("p", "SELECT 1")),
        sql, parameters, List.of(new StatementHandle.TableSnapshot("lake", List.of("sales"), "orders", 42L)), null);
  }

  @Test
  void carriesTheStatementItsParametersTheUserAndTheSnapshots() {
    List<Object> row = Arrays.asList(
        null, true, 7, 8L, 1.5, new BigDecimal("-12.345"), "text", new byte[] {1, 2}, LocalDate.of(2026, 12, 6),
        LocalTime.of(10, 11, 12, 13), LocalDateTime.of(2026, 12, 6, 10, 11), Instant.ofEpochSecond(5, 6), (short) 3, (byte) 4, 2.5f);
    StatementHandle handle = ticket("SELECT * FROM orders WHERE id = ?", List.of(row));
    StatementHandle read = handles.decode(handles.encode(handle), "ticket").orElseThrow();
    assertThat(read).usingRecursiveComparison().ignoringFields("parameterSets").isEqualTo(handle);
    assertThat(read.parameterSets().get(0)).usingRecursiveFieldByFieldElementComparator().containsExactlyElementsOf(row);
    assertThat(read.parameterSets().get(0).get(7)).isEqualTo(new byte[] {1, 2});
  }

  @Test
  void anAlteredHandleIsRefused() {
    byte[] bytes = handles.encode(ticket("SELECT 1", List.of()));
    int user = new String(bytes, UTF_8).indexOf("alice");
    bytes[user] = 'b';
    assertThatThrownBy(() -> handles.decode(bytes, "ticket"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("signature does not verify");
  }

  @Test
  void aHandleSignedWithAnotherKeyIsRefused() {
    byte[] foreign = new SignedHandles(HandleKeys.of("another secret".getBytes(UTF_8))).encode(ticket("SELECT 1", List.of()));
    assertThatThrownBy(() -> handles.decode(foreign, "ticket"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("signing-keys.jwks");
  }

  @Test
  void anUnknownFormatVersionIsRefusedAndAnIdOfOldIsNoHandle() {
    byte[] bytes = handles.encode(ticket("SELECT 1", List.of()));
    bytes[1] = 9;
    assertThatThrownBy(() -> handles.decode(bytes, "ticket")).hasMessageContaining("format version 9");
    assertThat(handles.decode("a1b2c3d4e5f6.0b7c1e0e-5a43-4c8e-9d0f-3c8a2f9f7a11".getBytes(UTF_8), "ticket")).isEmpty();
  }

  @Test
  void aStatementTooLargeToCarryIsIssuedServerOnly() {
    String huge = "SELECT '" + "x".repeat(SignedHandles.MAX_BYTES) + "'";
    byte[] bytes = handles.encode(ticket(huge, List.of()));
    assertThat(bytes.length).isLessThan(1_000);
    StatementHandle read = handles.decode(bytes, "ticket").orElseThrow();
    assertThat(read.scope()).isEqualTo(StatementHandle.Scope.SERVER_ONLY);
    assertThat(read.localId()).isEqualTo("a1b2c3d4e5f6.q1");
    assertThat(read.sql()).isNull();
  }

  @Test
  void aParameterOfATypeTheFormatDoesNotCarryMakesItServerOnly() {
    byte[] bytes = handles.encode(ticket("SELECT ?", List.of(List.of(List.of(1, 2)))));
    assertThat(handles.decode(bytes, "ticket").orElseThrow().scope()).isEqualTo(StatementHandle.Scope.SERVER_ONLY);
  }

  @Test
  void aHandleOverTheSizeLimitIsRefusedBeforeItsSignatureIsChecked() {
    byte[] bytes = new byte[SignedHandles.MAX_BYTES + 1];
    bytes[0] = (byte) 0xD5;
    bytes[1] = 1;
    assertThatThrownBy(() -> handles.decode(bytes, "ticket"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("over the");
  }
}
