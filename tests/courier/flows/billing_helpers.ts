/**
 * What the billing flow tests share: a client account made directly on the runtime (no HTTP),
 * charges booked on it, and a refusal expected of a flow.
 */
import assert from "node:assert/strict";
import {
  type ClientSettings,
  courierClientActor,
  type CourierClientCommand,
} from "../../../actors/courier/courier_client.ts";
import { entryAsk } from "../../../actors/courier/client_ledger.ts";
import type { ChargeKind } from "../../../src/courier/rules/ledger.ts";
import type { BillingCaller } from "../../../src/courier/flows/billing/account.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import type { TestEnv } from "../../helpers/test_env.ts";

let clients = 0;

/** A courier (a tenant; its business actor is not needed here) and one client account. */
export async function account(
  t: TestEnv,
  settings: Partial<ClientSettings> = {},
): Promise<{ caller: BillingCaller; client: string }> {
  const n = ++clients;
  const courier = `biz_flows${n}${crypto.randomUUID().slice(0, 8)}`;
  const client = `cli_flows${n}`;
  await must(t, courier, client, {
    kind: "create",
    client: {
      id: client,
      business_id: courier,
      name: "Molapo Pharmacy",
      code: `MOLAPO${n}`,
      email: `accounts${n}.${crypto.randomUUID().slice(0, 8)}@molapo.example`,
      settings: {
        settlement_mode: "credit",
        credit_limit_minor: 500_000,
        payment_days: 30,
        billing_currency: "BWP",
        external_system: null,
        unique_external_reference: false,
        rate_card_id: null,
        ...settings,
      },
      api_key: { hash: `hash-${client}-${courier}`, hint: "abcd", created_at: t.clock.now() },
      users: [],
    },
    by: "test",
  });
  return { caller: { courier, by: "accounts@courier.example" }, client };
}

/** Asks the account; the command must be accepted. */
export async function must(
  t: TestEnv,
  courier: string,
  client: string,
  command: CourierClientCommand,
  options = {},
): Promise<void> {
  const r = await t.env.runtime.ask(courierClientActor, courier, client, command, options);
  assert.ok(r.ok, JSON.stringify(r));
}

/** Books a later charge of `kind` on the account, in BWP unless told. */
export function charge(
  t: TestEnv,
  o: { caller: BillingCaller; client: string },
  reference: string,
  amountMinor: number,
  extra: { kind?: ChargeKind; currency?: string; shipment?: string } = {},
): Promise<void> {
  const source = `test.charge:${extra.kind ?? "waiting"}:${reference}`;
  return must(t, o.caller.courier, o.client, {
    kind: "post_charge",
    reference,
    entry_kind: extra.kind ?? "waiting",
    amount_minor: amountMinor,
    currency: extra.currency ?? "BWP",
    reason: "waited at the stop",
    evidence_path: null,
    source_event: source,
    shipment: extra.shipment ?? null,
    recoverable: false,
    by: "test",
  }, entryAsk(source));
}

/** The flow refuses with `code`; answers the refusal for its message and details. */
export async function refused(
  work: Promise<unknown>,
  code: string,
): Promise<Refused["rejection"]> {
  try {
    await work;
  } catch (e) {
    assert.ok(e instanceof Refused, `expected a refusal ${code}, got ${e}`);
    assert.equal(e.rejection.code, code, e.rejection.message);
    return e.rejection;
  }
  assert.fail(`expected a refusal ${code}, got an answer`);
}

/** The path of the one field a validation refusal names. */
export function fieldOf(r: Refused["rejection"]): string {
  const errors = r.details?.errors as { path: string }[] | undefined;
  assert.equal(errors?.length, 1, JSON.stringify(r));
  return errors[0]!.path;
}
