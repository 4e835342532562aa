package io.sqe.catalog;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.catalog.ViewCatalog;
import org.apache.iceberg.rest.RESTSessionCatalog;

/**
 * A REST catalog whose every call carries the credentials of the {@linkplain CatalogCredentials
 * current caller}, through Iceberg's per-session API ({@code RESTSessionCatalog.asCatalog(context)}),
 * so that the catalog's own access control sees the user and not SQE. Calls without a caller use
 * the catalog's configured credentials.
 */
final class PassThroughRestCatalog {
  private PassThroughRestCatalog() {}

  /** A {@link Catalog}, {@link SupportsNamespaces} and {@link ViewCatalog} over {@code sessions}. */
  static Catalog create(RESTSessionCatalog sessions) {
    requireNonNull(sessions, "sessions is null");
    SessionCatalog.SessionContext own = SessionCatalog.SessionContext.createEmpty();
    InvocationHandler handler = new Handler(sessions, own);
    return (Catalog) Proxy.newProxyInstance(
        PassThroughRestCatalog.class.getClassLoader(),
        new Class<?>[] {Catalog.class, SupportsNamespaces.class, ViewCatalog.class, Closeable.class},
        handler);
  }

  private static final class Handler implements InvocationHandler {
    private final RESTSessionCatalog sessions;
    private final SessionCatalog.SessionContext own;

    Handler(RESTSessionCatalog sessions, SessionCatalog.SessionContext own) {
      this.sessions = sessions;
      this.own = own;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "close":
          if (method.getParameterCount() == 0) {
            sessions.close();
            return null;
          }
          break;
        case "toString":
          if (method.getParameterCount() == 0) {
            return "PassThroughRestCatalog[" + sessions.name() + "]";
          }
          break;
        case "hashCode":
          if (method.getParameterCount() == 0) {
            return System.identityHashCode(proxy);
          }
          break;
        case "equals":
          if (method.getParameterCount() == 1) {
            return proxy == args[0];
          }
          break;
        default:
          break;
      }
      SessionCatalog.SessionContext caller = CatalogCredentials.current();
      SessionCatalog.SessionContext context = caller == null ? own : caller;
      Object target = method.getDeclaringClass() == ViewCatalog.class
          ? sessions.asViewCatalog(context)
          : sessions.asCatalog(context);
      try {
        if (method.getName().equals("loadTable") && method.getParameterCount() == 1 && args[0] instanceof TableIdentifier id) {
          Catalog tables = (Catalog) target;
          return VendedCredentials.loadWithLiveCredentials(id, tables::loadTable, tables::invalidateTable);
        }
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
