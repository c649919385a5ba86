/**
 * What the billing flows share (courier 2.6, 4.2): who acts, the client account asked for one
 * money fact with its refusal thrown as a domain refusal, amounts read in a currency's minor
 * units, and the rule that a reference books once.
 */
import {
  asPosting,
  type CourierClient,
  courierClientActor,
  type CourierClientCommand,
  type CourierClientReply,
} from "../../../../actors/courier/courier_client.ts";
import { asClient } from "../../../../actors/courier/courier_client.ts";
import { refuse, Refused } from "../../../runtime/actor.ts";
import type { ActorRuntime, AskOptions } from "../../../runtime/runtime.ts";
import { formatMinor, toMinor } from "../../../domain/money.ts";

/** Who acts on a client's billing: the courier (its tenant) and the principal's name. */
export interface BillingCaller {
  readonly courier: string;
  readonly by: string;
}

/** What the account answered, and whether it was the answer to the same fact sent before. */
export interface Answered {
  readonly reply: CourierClientReply;
  readonly replayed: boolean;
}

/** Asks the client account; a refusal (another courier's client: not found) is thrown. */
export async function askAccount(
  runtime: ActorRuntime,
  courier: string,
  client: string,
  command: CourierClientCommand,
  options: AskOptions = {},
): Promise<Answered> {
  const r = await runtime.ask(courierClientActor, courier, client, command, options);
  if (!r.ok) throw new Refused(r);
  return r;
}

/** The client account as committed; another courier's client is not found (thrown). */
export async function readAccount(
  runtime: ActorRuntime,
  courier: string,
  client: string,
): Promise<CourierClient> {
  const r = await runtime.read(courierClientActor, courier, client, { kind: "get" });
  if (!r.ok) throw new Refused(r);
  return asClient(r.reply);
}

/** Refuses a request field as bad input (CONTRACT errors: 422 validation_failed naming it). */
export function refuseField(path: string, message: string): never {
  return refuse("validation_failed", `invalid request: ${path}: ${message}`, {
    errors: [{ path, message }],
  });
}

/** A decimal amount in minor units of `currency`, or a refusal naming the field. */
export function minorOf(
  amount: number | string,
  currency: string,
  path: string,
  sign: "positive" | "non-zero",
): number {
  const r = toMinor(amount, currency);
  if (!r.ok) return refuseField(path, r.message);
  if (sign === "positive" ? r.minor <= 0 : r.minor === 0) refuseField(path, `must be ${sign}`);
  return r.minor;
}

/**
 * A reference books once (spec: courier 2.6 rule 2): sent again with the same figures it answers
 * the first entry; with other figures it is refused, never answered as if they were booked.
 */
export function assertSameFacts(
  r: Answered,
  reference: string,
  sent: { amount_minor: number; currency: string; corrects?: string },
  field = "reference",
): void {
  if (!r.replayed) return;
  const e = asPosting(r.reply).entry;
  if (
    e.amount_minor === sent.amount_minor && e.currency === sent.currency &&
    (sent.corrects === undefined || e.corrects === sent.corrects)
  ) return;
  const was = `${formatMinor(e.amount_minor, e.currency)} ${e.currency}` +
    (e.corrects === null ? "" : ` on ${e.corrects}`);
  refuse(
    "reference_conflict",
    `${field} already booked another ${e.kind} entry (${was}): ${reference}`,
  );
}
