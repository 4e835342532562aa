package io.sqe.engine.sql.functions;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a function method that takes a {@link org.apache.calcite.DataContext} and is called with
 * NULL operands too (such methods are otherwise strict): Trino's {@code format('%s', NULL)} is
 * {@code 'null'}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface TakesNulls {}
