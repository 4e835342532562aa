package io.sqe.flight.ops;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import org.apache.arrow.flight.FlightConstants;

/**
 * Whether the server takes new work: SERVING from start until a shutdown begins, NOT_SERVING from
 * then on. The gRPC health service ({@code grpc.health.v1.Health}) on the Flight port answers from
 * it, for the server as a whole ({@code ""}) and for the Flight service by name.
 */
public final class ServingState {
  private final HealthStatusManager health = new HealthStatusManager();
  private volatile boolean serving;

  /** The health service to add to the gRPC server; it needs no authentication. */
  public BindableService healthService() {
    return health.getHealthService();
  }

  public boolean serving() {
    return serving;
  }

  /** The server listens and takes calls. */
  public void serving(boolean value) {
    serving = value;
    ServingStatus status = value ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
    health.setStatus(FlightConstants.SERVICE, status);
  }
}
