package io.sqe.flight.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for TLS tests: a CA, certificates it signs for 127.0.0.1
 * (server) or a named client, written as PEM files (keys as PKCS#8, as gRPC needs) and as a JKS
 * trust store.
 */
public final class TestCertificates {
  private static int serial = 1;

  private final X500Name caName;
  private final KeyPair caKeys;
  private final X509Certificate ca;

  /** A certificate and its private key, as files. */
  public record Issued(Path certificate, Path privateKey) {}

  private TestCertificates(X500Name caName, KeyPair caKeys, X509Certificate ca) {
    this.caName = caName;
    this.caKeys = caKeys;
    this.ca = ca;
  }

  public static TestCertificates newAuthority(String name) {
    KeyPair keys = rsa();
    X500Name subject = new X500Name("CN=" + name);
    return new TestCertificates(subject, keys, sign(subject, keys, subject, keys, true, null));
  }

  public Path writeCertificate(Path file) throws IOException {
    Files.writeString(file, pem("CERTIFICATE", encoded(ca)));
    return file;
  }

  /** A JKS trust store holding this CA, with the given password. */
  public Path writeTrustStore(Path file, String password) throws IOException {
    try {
      KeyStore store = KeyStore.getInstance("JKS");
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      try (OutputStream out = Files.newOutputStream(file)) {
        store.store(out, password.toCharArray());
      }
      return file;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A server certificate for 127.0.0.1 and localhost. */
  public Issued issueServer(Path directory, String name) throws IOException {
    KeyPair keys = rsa();
    GeneralNames names =
        new GeneralNames(
            new GeneralName[] {new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")});
    return write(directory, name, keys, sign(new X500Name("CN=" + name), keys, caName, caKeys, false, names));
  }

  /** A client certificate for mutual TLS. */
  public Issued issueClient(Path directory, String name) throws IOException {
    KeyPair keys = rsa();
    return write(directory, name, keys, sign(new X500Name("CN=" + name), keys, caName, caKeys, false, null));
  }

  private static Issued write(Path directory, String name, KeyPair keys, X509Certificate certificate) throws IOException {
    Path cert = directory.resolve(name + ".crt");
    Path key = directory.resolve(name + ".key");
    Files.writeString(cert, pem("CERTIFICATE", encoded(certificate)));
    // RSA private keys encode as PKCS#8 in Java: "BEGIN PRIVATE KEY".
    Files.writeString(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
    return new Issued(cert, key);
  }

  private static X509Certificate sign(
      X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys, boolean authority, GeneralNames names) {
    try {
      Instant now = Instant.now();
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              issuer,
              BigInteger.valueOf(nextSerial()),
              Date.from(now.minus(Duration.ofHours(1))),
              Date.from(now.plus(Duration.ofDays(2))),
              subject,
              subjectKeys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
      if (authority) {
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      }
      if (names != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, names);
      }
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate())));
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static synchronized int nextSerial() {
    return serial++;
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] encoded(X509Certificate certificate) {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
