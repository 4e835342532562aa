package io.sqe.flight.auth;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under a random key made when this process starts: a tag that stands for a secret in
 * this process's memory (a remembered password or credential) and is worth nothing outside it, nor
 * after a restart. Thread-safe.
 */
final class ProcessKeyedHash {
  private static final String ALGORITHM = "HmacSHA256";

  private final Mac prototype;

  ProcessKeyedHash() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    try {
      this.prototype = Mac.getInstance(ALGORITHM);
      prototype.init(new SecretKeySpec(key, ALGORITHM));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is missing from this Java runtime", e);
    }
  }

  /** The tag of {@code parts}, in that order. */
  byte[] tag(byte[]... parts) {
    Mac mac;
    try {
      mac = (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(ALGORITHM + " cannot be cloned in this Java runtime", e);
    }
    for (byte[] part : parts) {
      mac.update(part);
    }
    return mac.doFinal();
  }
}
