/**
 * SQE's endpoint for Trino's client protocol (v1 over HTTP): the statement resource, the session
 * a client's headers carry, Trino's types, value encodings and error codes.
 */
package io.sqe.flight.trino;
