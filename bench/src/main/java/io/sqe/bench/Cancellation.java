package io.sqe.bench;

/**
 * Stops one execution from another thread. The engine registers how to stop its query once the
 * query is under way; a cancel that comes earlier runs the action as soon as it is registered.
 */
final class Cancellation {
  private boolean cancelled;
  private Runnable action;

  synchronized void cancel() {
    if (cancelled) {
      return;
    }
    cancelled = true;
    if (action != null) {
      action.run();
    }
  }

  synchronized void onCancel(Runnable stop) {
    action = stop;
    if (cancelled) {
      stop.run();
    }
  }

  synchronized boolean isCancelled() {
    return cancelled;
  }
}
