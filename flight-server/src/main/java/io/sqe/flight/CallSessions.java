package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.CatalogCredentials;
import io.sqe.engine.session.Principal;
import io.sqe.flight.auth.SqeAuthenticator;
import io.sqe.engine.SqeException;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.session.SessionManager;
import io.sqe.flight.session.SessionOptions;
import java.util.Optional;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;

/** Finds who makes a Flight call and the client session it belongs to, and answers the session option calls. */
final class CallSessions {
  private final SessionManager sessions;
  private final PrincipalResolver principals;
  private final SessionOptions options;
  private final TransactionBinding binding;

  CallSessions(SessionManager sessions, PrincipalResolver principals, SessionOptions options, TransactionBinding binding) {
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.principals = requireNonNull(principals, "principals is null");
    this.options = requireNonNull(options, "options is null");
    this.binding = requireNonNull(binding, "binding is null");
  }

  Principal principal(CallContext context) {
    return principals.principal(context);
  }

  /**
   * The client session a call belongs to. Refused when the client's token says its transaction is
   * open on another server; the call's answer carries the token re-signed when the call opens or
   * ends a transaction ({@link TransactionBinding}).
   */
  ClientSession session(CallContext context) {
    Principal principal = principals.principal(context);
    CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
    TransactionBinding.Credential credential = binding.credential(context.peerIdentity(), credential(call));
    credential.check();
    ClientSession session;
    try {
      session = sessions.session(credential.sessionKey(), sessionCookie(call), principal);
    } catch (SqeException e) {
      throw FlightErrors.toFlight(e, null);
    }
    applyHeaderDefaults(session, call == null ? null : call.headers());
    if (call != null && credential.rebindable()) {
      call.beforeSendingHeaders(outgoing -> {
        String rebound = credential.rebound(session.session().openTransaction().isPresent());
        if (rebound != null) {
          outgoing.insert("authorization", rebound);
        }
      });
    }
    return session;
  }

  /** The address of the client making the call, as the authenticator recorded it; null if unknown. */
  /** The value of the current call's header {@code name}; null when it has none. */
  static String header(CallContext context, String name) {
    CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
    return call == null ? null : call.headers().get(name);
  }

  static String clientAddress(CallContext context) {
    CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
    return call == null ? null : call.headers().get(SqeAuthenticator.CLIENT_ADDRESS_HEADER);
  }

  private static String credential(CallHeadersMiddleware call) {
    return call == null ? null : call.headers().get("authorization");
  }

  private static String sessionCookie(CallHeadersMiddleware call) {
    return call == null ? null : call.sessionCookie();
  }

  /**
   * The JDBC driver sends unknown connection properties as headers; like Dremio, SQE takes
   * {@code catalog} and {@code schema} headers as the session's defaults on its first call.
   */
  private static void applyHeaderDefaults(ClientSession session, CallHeaders headers) {
    if (headers == null) {
      return;
    }
    String schema = headers.get("schema");
    if (schema != null && !schema.isBlank() && session.session().schema() == null) {
      session.update(s -> s.withSchema(schema.trim()));
    }
  }

  /**
   * Makes the catalog calls of a Flight call carry its user's identity-provider token, for a
   * catalog that passes tokens through; tasks the call hands to other threads carry it too.
   */
  CatalogCredentials.Scope catalogCaller(CallContext context) {
    CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
    Optional<String> token = SqeAuthenticator.providerToken(context.peerIdentity(), call == null ? null : call.headers());
    if (token.isEmpty()) {
      return CatalogCredentials.Scope.NONE;
    }
    try {
      return CatalogCredentials.use(principals.principal(context).user(), token.get());
    } catch (RuntimeException e) {
      // The call itself fails with the reason when it asks for its principal.
      return CatalogCredentials.Scope.NONE;
    }
  }

  void setOptions(SetSessionOptionsRequest request, CallContext context, StreamListener<SetSessionOptionsResult> listener) {
    try {
      ClientSession session = session(context);
      listener.onNext(new SetSessionOptionsResult(options.apply(session, request.getSessionOptions())));
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }

  void getOptions(CallContext context, StreamListener<GetSessionOptionsResult> listener) {
    try {
      listener.onNext(new GetSessionOptionsResult(options.current(session(context))));
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }

  void close(CallContext context, StreamListener<CloseSessionResult> listener) {
    try {
      CallHeadersMiddleware call = context.getMiddleware(CallHeadersMiddleware.KEY);
      String key = binding.credential(context.peerIdentity(), credential(call)).sessionKey();
      sessions.close(key, sessionCookie(call), principals.principal(context));
      listener.onNext(new CloseSessionResult(CloseSessionResult.Status.CLOSED));
      listener.onCompleted();
    } catch (RuntimeException | Error e) {
      listener.onError(FlightErrors.toFlight(e, "session"));
    }
  }
}
