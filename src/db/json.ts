/** Binding JSON the same way on every driver. */
import { type RawBuilder, sql } from "kysely";

/**
 * A jsonb value bound as text and cast in SQL. postgres.js stringifies anything bound to a
 * jsonb parameter (a string twice) while PGlite passes strings through, and neither can bind
 * JSON `null`; binding text sidesteps all three.
 */
export function jsonb<T>(value: T): RawBuilder<T> {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value is not JSON: ${typeof value}`);
  return sql<T>`cast(${text} as text)::jsonb`;
}

/** A JSON text made already (as JSON.stringify answers it), bound as jsonb() binds a value. */
export function jsonbText<T>(text: string): RawBuilder<T> {
  return sql<T>`cast(${text} as text)::jsonb`;
}
