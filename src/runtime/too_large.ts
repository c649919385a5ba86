/**
 * The refusal of a command whose outcome the store cannot keep: the actor's state past its bound,
 * or its change past what one atomic commit of the store takes. It is answered before anything is
 * written, so the actor goes on with its next command as if this one had not come.
 */
import { reject, type Rejection } from "./actor.ts";

export const TOO_LARGE = "too_large";

/** `what` is `size` (in `unit`) where `limit` (a name in src/limits.ts) allows `max`. */
export function tooLarge(
  what: string,
  size: number,
  max: number,
  limit: string,
  unit = "bytes",
): Rejection {
  return reject(TOO_LARGE, `${what} too large to store: ${size} ${unit}, max ${max}`, {
    limit,
    size,
    max,
  });
}
