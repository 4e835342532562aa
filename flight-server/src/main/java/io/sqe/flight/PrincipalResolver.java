package io.sqe.flight;

import io.sqe.engine.session.Principal;
import org.apache.arrow.flight.FlightProducer.CallContext;

/** Who is making the current call, as established by the authenticator. */
@FunctionalInterface
public interface PrincipalResolver {
  Principal principal(CallContext context);
}
