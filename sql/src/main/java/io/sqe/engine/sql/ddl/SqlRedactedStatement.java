package io.sqe.engine.sql.ddl;

/**
 * A statement whose text holds a secret, a password: wherever the engine keeps or shows its text
 * (the running statements of SHOW QUERIES, the prepared statement), it uses {@link #redactedText()}.
 * Its unparse writes {@code '***'} in place of the secret, and the secret is not among its operands.
 */
public interface SqlRedactedStatement {
  /** What the text shows in place of the secret: a string literal. */
  String MASKED_SECRET = "'***'";

  /** The statement as SQL, the secret replaced by {@code '***'}. */
  String redactedText();
}
