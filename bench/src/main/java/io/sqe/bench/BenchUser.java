package io.sqe.bench;

import io.sqe.flight.auth.UserStore;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;

/** The user the benchmarks log in as. */
final class BenchUser {
  static final String NAME = "bench";

  private BenchUser() {}

  /** A fresh random password for the bench user, created on the first run over a data directory. */
  static String password(UserStore users) throws IOException {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    char[] chars = password.toCharArray();
    try {
      if (users.principal(NAME).isPresent()) {
        users.setPassword(NAME, chars);
      } else {
        users.addUser(NAME, chars, Set.of(UserStore.ADMIN_ROLE));
      }
    } finally {
      Arrays.fill(chars, '\0');
    }
    return password;
  }
}
