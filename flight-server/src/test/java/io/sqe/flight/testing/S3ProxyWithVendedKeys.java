package io.sqe.flight.testing;

import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The main class of {@link S3Fixture}'s s3proxy process: s3proxy as its own {@code Main} sets it
 * up, except that besides the fixture's static key it accepts short-lived keys, as an S3 service
 * accepts the temporary credentials its token service hands out. A short-lived access key is
 * {@code vended-<expires-at-ms>-<nonce>}; its secret is an HMAC of the key under a secret this
 * process shares with the fixture (so the fixture mints keys without telling the process), and it
 * is refused (403) from the moment it expires.
 *
 * <p>Runs in s3proxy's JVM with only s3proxy's jar and the test classes on the class path, so it
 * reaches s3proxy by reflection and uses nothing else of the tests.
 */
public final class S3ProxyWithVendedKeys {
  static final String VENDED_PREFIX = "vended-";
  static final String MINTING_SECRET = "sqe.test.minting-secret";
  static final String STATIC_IDENTITY = "s3proxy.identity";
  static final String STATIC_CREDENTIAL = "s3proxy.credential";

  private S3ProxyWithVendedKeys() {}

  public static void main(String[] args) throws Exception {
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
      properties.load(in);
    }
    String identity = properties.getProperty(STATIC_IDENTITY);
    String credential = properties.getProperty(STATIC_CREDENTIAL);
    String mintingSecret = properties.getProperty(MINTING_SECRET);
    properties.setProperty("jclouds.identity", "");
    properties.setProperty("jclouds.credential", "");

    ClassLoader loader = S3ProxyWithVendedKeys.class.getClassLoader();
    Class<?> blobStoreType = loader.loadClass("org.gaul.s3proxy.blobstore.BlobStore");
    Object blobStore = loader.loadClass("org.gaul.s3proxy.BlobStores")
        .getMethod("create", String.class, Properties.class)
        .invoke(null, properties.getProperty("jclouds.provider"), properties);
    Class<?> builderType = loader.loadClass("org.gaul.s3proxy.S3Proxy$Builder");
    Object builder = builderType.getMethod("fromProperties", Properties.class).invoke(null, properties);
    builderType.getMethod("blobStore", blobStoreType).invoke(builder, blobStore);
    Object s3proxy = builderType.getMethod("build").invoke(builder);

    Class<?> grantType = loader.loadClass("org.gaul.s3proxy.AccessGrant");
    var grant = grantType.getConstructor(String.class, blobStoreType);
    Class<?> locatorType = loader.loadClass("org.gaul.s3proxy.BlobStoreLocator");
    InvocationHandler locate = (proxy, method, arguments) -> {
      switch (method.getName()) {
        case "locateBlobStore":
          break;
        case "equals":
          return proxy == arguments[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        default:
          return "vended-keys locator";
      }
      String key = (String) arguments[0];
      if (identity.equals(key)) {
        return grant.newInstance(credential, blobStore);
      }
      if (key != null && key.startsWith(VENDED_PREFIX) && !expired(key)) {
        return grant.newInstance(secretOf(key, mintingSecret), blobStore);
      }
      return null; // s3proxy answers 403 Access Denied
    };
    Object locator = Proxy.newProxyInstance(loader, new Class<?>[] {locatorType}, locate);
    s3proxy.getClass().getMethod("setBlobStoreLocator", locatorType).invoke(s3proxy, locator);
    Method stop = s3proxy.getClass().getMethod("stop");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        stop.invoke(s3proxy);
      } catch (ReflectiveOperationException ignored) {
        // exiting anyway
      }
    }, "s3proxy-stop"));
    s3proxy.getClass().getMethod("start").invoke(s3proxy);
  }

  /** The secret of a short-lived access key. */
  static String secretOf(String accessKey, String mintingSecret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(mintingSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(accessKey.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether a short-lived key has expired, or is malformed. */
  static boolean expired(String accessKey) {
    String[] parts = accessKey.split("-");
    try {
      return parts.length != 3 || System.currentTimeMillis() >= Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      return true;
    }
  }
}
