package io.sqe.engine.sql.functions;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;

/** Trino's bitwise functions over BIGINT (two's complement, 64 bits). */
public final class BitwiseFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private BitwiseFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bit_count", "bitwise_left_shift",
        "bitwise_right_shift", "bitwise_right_shift_arithmetic")) {
      all.addAll(JavaFunctions.scalar(name, BitwiseFunctions.class, MathFunctions.camel(name)));
    }
    return List.copyOf(all);
  }

  // ---- called from generated code

  @Strict
  public static long bitwiseAnd(long x, long y) {
    return x & y;
  }

  @Strict
  public static long bitwiseOr(long x, long y) {
    return x | y;
  }

  @Strict
  public static long bitwiseXor(long x, long y) {
    return x ^ y;
  }

  @Strict
  public static long bitwiseNot(long x) {
    return ~x;
  }

  /** The set bits of {@code x} read as a signed number of {@code bits} bits. */
  @Strict
  public static long bitCount(long x, long bits) {
    if (bits < 2 || bits > 64) {
      throw new IllegalArgumentException("Bits specified in bit_count must be between 2 and 64, got " + bits);
    }
    long low = -(1L << (bits - 1));
    long high = bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1;
    if (x < low || x > high) {
      throw new IllegalArgumentException("Number must be representable with the bits specified. " + x + " cannot be represented with " + bits + " bits");
    }
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    return Long.bitCount(x & mask);
  }

  @Strict
  public static long bitwiseLeftShift(long x, long shift) {
    return shift >= 64 || shift < 0 ? 0 : x << shift;
  }

  @Strict
  public static long bitwiseRightShift(long x, long shift) {
    return shift >= 64 || shift < 0 ? 0 : x >>> shift;
  }

  @Strict
  public static long bitwiseRightShiftArithmetic(long x, long shift) {
    return shift >= 64 || shift < 0 ? (x < 0 ? -1 : 0) : x >> shift;
  }
}
