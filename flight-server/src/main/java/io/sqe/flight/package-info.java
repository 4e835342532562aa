/** The Flight SQL server: the producer, authentication, configuration and {@code main}. */
package io.sqe.flight;
