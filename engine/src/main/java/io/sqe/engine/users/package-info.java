/** User management statements (CREATE, ALTER and DROP USER) over the server's local users. */
package io.sqe.engine.users;
