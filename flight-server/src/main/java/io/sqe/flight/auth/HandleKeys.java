package io.sqe.flight.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.nimbusds.jose.jwk.ECKey;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC keys that sign statement handles (tickets, prepared statement handles), derived from
 * the private parts of the token signing keys: servers given the same signing key file, as
 * servers behind one address must be for tokens, accept each other's handles with nothing more
 * to share or rotate. A key is named by the first bytes of the SHA-256 of its token key's kid.
 */
public final class HandleKeys {
  /** Bytes of a key's id in a handle. */
  public static final int ID_BYTES = 8;
  private static final String ALGORITHM = "HmacSHA256";
  /** Keeps the derived keys apart from any other use of the token keys. */
  private static final byte[] PURPOSE = "sqe statement handle key v1".getBytes(UTF_8);

  private final byte[] signingId;
  private final Map<String, byte[]> keys;

  private HandleKeys(byte[] signingId, Map<String, byte[]> keys) {
    this.signingId = signingId;
    this.keys = keys;
  }

  /**
   * The keys of {@code tokenKeys} that have a private part, the newest signing.
   *
   * @param newest the key that signs tokens, which signs handles too
   */
  static HandleKeys derive(List<ECKey> tokenKeys, ECKey newest) {
    requireNonNull(newest, "newest is null");
    Map<String, byte[]> keys = new LinkedHashMap<>();
    for (ECKey key : tokenKeys) {
      if (key.isPrivate()) {
        keys.put(HexFormat.of().formatHex(id(key)), hmac(key.getD().decode(), PURPOSE));
      }
    }
    return new HandleKeys(id(newest), Map.copyOf(keys));
  }

  /** Keys made from raw secrets, for tests of the handle format. */
  public static HandleKeys of(byte[] secret) {
    byte[] id = Arrays.copyOf(hmac(secret, "id".getBytes(UTF_8)), ID_BYTES);
    return new HandleKeys(id, Map.of(HexFormat.of().formatHex(id), hmac(secret, PURPOSE)));
  }

  private static byte[] id(ECKey key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getKeyID().getBytes(UTF_8));
      return Arrays.copyOf(digest, ID_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
    }
  }

  /** The id of the key that signs new handles. */
  public byte[] signingId() {
    return signingId.clone();
  }

  /** The MAC of {@code data} under the signing key. */
  public byte[] sign(byte[] data) {
    return hmac(keys.get(HexFormat.of().formatHex(signingId)), data);
  }

  /** The MAC of {@code data} under the key named {@code id}; empty when this server has no such key. */
  public Optional<byte[]> mac(byte[] id, byte[] data) {
    byte[] key = keys.get(HexFormat.of().formatHex(id));
    return key == null ? Optional.empty() : Optional.of(hmac(key, data));
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(key, ALGORITHM));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is missing from this Java runtime", e);
    }
  }

  /** Keeps key material out of logs. */
  @Override
  public String toString() {
    return "HandleKeys[" + keys.size() + " keys, signing " + HexFormat.of().formatHex(signingId) + "]";
  }
}
