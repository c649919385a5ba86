/** How a claim states amounts in its refusals and checks its texts. */
import { formatMinor } from "../../../src/domain/money.ts";

/**
 * An amount as a refusal states it: a decimal with its currency, as every answer speaks money
 * (spec: courier 2.2, 9.4), never minor units; a value that is no whole number of minor units
 * as it was given.
 */
export function moneyText(minor: number, currency: string): string {
  return Number.isSafeInteger(minor) ? `${formatMinor(minor, currency)} ${currency}` : `${minor}`;
}

/** A text missing, blank or past `max` characters. */
export function badText(text: string | null, max: number): boolean {
  return text === null || text.trim() === "" || text.length > max;
}
