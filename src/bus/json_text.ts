/**
 * The JSON text of an event, made once. The runtime writes each event's JSON to measure it when
 * the event is decided; the projection of the change into the query side wrote it again (most
 * of its CPU, when a business booking's trip_created repeated the whole trip). An event is never
 * changed once decided (the bus freezes it, frozen.ts), so its text holds for as long as the
 * object lives; a WeakMap keeps it no longer than that.
 */

const texts = new WeakMap<object, string>();

/** Keeps `text` as the JSON of `value`: call it with what JSON.stringify(value) answered. */
export function keepJsonText(value: unknown, text: string): void {
  if (typeof value === "object" && value !== null) texts.set(value, text);
}

/** JSON.stringify(value), from the kept text when there is one. */
export function jsonTextOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (text !== undefined) texts.set(value, text);
  }
  return text;
}
