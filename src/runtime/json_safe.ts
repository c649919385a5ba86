/**
 * The rule for what crosses between instances (a forwarded command, its reply: forwarding.ts):
 * plain JSON values only, so what arrives is what was sent. Null, booleans, strings, finite
 * numbers, arrays and plain objects; an object's undefined field is simply absent on arrival, as
 * is an undefined reply, and -0 arrives as 0 (the same amount). Never a Date, Map, Set, bigint, class instance or non-finite number,
 * which JSON would change or refuse on the way.
 */

/** Throws a TypeError naming where `value` holds what JSON would not carry unchanged. */
export function assertJsonSafe(value: unknown, what: string): void {
  if (value === undefined) return;
  const bad = firstUnsafe(value, what, 0);
  if (bad !== null) throw new TypeError(`${bad} cannot cross between instances as JSON`);
}

/** Nesting past this is refused (bounded walk). */
const DEPTH_MAX = 64;

function firstUnsafe(value: unknown, path: string, depth: number): string | null {
  if (depth > DEPTH_MAX) return `${path} (nested past ${DEPTH_MAX})`;
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      return Number.isFinite(value) ? null : `${path} (${value})`;
    case "object":
      return value === null ? null : objectUnsafe(value, path, depth);
    default:
      return `${path} (a ${typeof value})`;
  }
}

function objectUnsafe(value: object, path: string, depth: number): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // An undefined item would arrive as null.
      if (value[i] === undefined) return `${path}[${i}] (undefined)`;
      const bad = firstUnsafe(value[i], `${path}[${i}]`, depth + 1);
      if (bad !== null) return bad;
    }
    return null;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    return `${path} (a ${value.constructor?.name ?? "class instance"})`;
  }
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const bad = firstUnsafe(v, `${path}.${k}`, depth + 1);
    if (bad !== null) return bad;
  }
  return null;
}
