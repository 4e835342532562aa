package io.sqe.flight.trino;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Key stores in memory from the PEM files of SQE's {@code tls.*} settings, which the Flight
 * endpoint reads as they are: a certificate chain with its PKCS#8 private key, and CA
 * certificates for client certificates. The Trino endpoint and the operations port serve HTTPS
 * with them.
 */
public final class PemKeyStores {
  private static final Pattern PRIVATE_KEY =
      Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
  /** The in-memory stores' password: they never leave this process. */
  public static final String PASSWORD = "in-memory";

  private PemKeyStores() {}

  /** A store holding the server's key under alias {@code server} with its certificate chain. */
  public static KeyStore keyStore(Path certificateChain, Path privateKey) throws IOException, GeneralSecurityException {
    List<Certificate> chain = certificates(certificateChain);
    if (chain.isEmpty()) {
      throw new GeneralSecurityException("No certificate in " + certificateChain);
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("server", privateKey(privateKey, chain.get(0).getPublicKey().getAlgorithm()), PASSWORD.toCharArray(),
        chain.toArray(new Certificate[0]));
    return store;
  }

  /** A store trusting every certificate in {@code file}. */
  static KeyStore trustStore(Path file) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    int i = 0;
    for (Certificate certificate : certificates(file)) {
      store.setCertificateEntry("ca-" + i++, certificate);
    }
    return store;
  }

  private static List<Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      return new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
  }

  private static PrivateKey privateKey(Path file, String algorithm) throws IOException, GeneralSecurityException {
    Matcher pem = PRIVATE_KEY.matcher(Files.readString(file, StandardCharsets.US_ASCII));
    if (!pem.find()) {
      throw new GeneralSecurityException(file + " holds no PKCS#8 private key (BEGIN PRIVATE KEY); convert it with"
          + " openssl pkcs8 -topk8 -nocrypt");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.group(1));
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }
}
