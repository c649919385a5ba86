/**
 * Business webhook tests without the trip actor: a test-only actor whose every report adds one
 * item to the business webhook outbox in its commit, as the trip and wallet actors do, run as a
 * feature of its own beside the product's.
 */
import assert from "node:assert/strict";
import { accept, type ActorDefinition } from "../../src/runtime/actor.ts";
import type { Feature } from "../../src/feature.ts";
import type { LogDestination } from "../../src/observe/log.ts";
import { FEATURES } from "../../src/features.ts";
import {
  BUSINESS_WEBHOOK_OUTBOX,
  type BusinessWebhookItem,
} from "../../src/business/rules/webhook_events.ts";
import { type CreatedBusiness, type TestEnv, withTestEnv } from "../helpers/test_env.ts";

type Report = { readonly kind: "report"; readonly item: BusinessWebhookItem };
type Reported = { readonly kind: "reported"; readonly item: BusinessWebhookItem };

/** Reports each fact it is told, adding it to the business webhook outbox in the same commit. */
export const webhookSourceActor: ActorDefinition<number, Report, Reported, number> = {
  type: "test_webhook_source",
  version: 1,
  initial: 0,
  decide(_state, c) {
    if (c.kind === "timer") return accept([]);
    return accept([{ kind: "reported", item: c.item }], (n) => n);
  },
  evolve: (n) => n + 1,
  outbox: (e) => [{ outbox: BUSINESS_WEBHOOK_OUTBOX, payload: e.item }],
};

const sourceFeature: Feature = {
  name: "test_webhook_source",
  actors: [webhookSourceActor],
  routers: [],
  start: () => ({}),
};

/** Runs `fn` in an environment with the test source beside every product feature. */
export function withWebhookEnv(
  fn: (t: TestEnv) => Promise<void>,
  options: { readonly log?: LogDestination } = {},
): Promise<void> {
  return withTestEnv(fn, { features: [...FEATURES, sourceFeature], ...options });
}

/** A trip fact of `business`, as a trip actor would add it. */
export function tripItem(
  business: string,
  eventId: string,
  overrides: Partial<BusinessWebhookItem> = {},
): BusinessWebhookItem {
  return {
    business_id: business,
    event_id: eventId,
    event: "trip.created",
    external_reference: "ORDER-77",
    occurred_at: Date.UTC(2026, 10, 29, 8, 0, 0),
    data: { id: 41, reference: "ARY-41", status: "pending", external_reference: "ORDER-77" },
    ...overrides,
  };
}

/** Commits one report on the tenant `tenant`'s source (its outbox item made in the commit). */
export async function report(t: TestEnv, tenant: string, item: BusinessWebhookItem) {
  const r = await t.env.runtime.ask(webhookSourceActor, tenant, "source", { kind: "report", item });
  assert.ok(r.ok, JSON.stringify(r));
}

/** Sets the business's webhook URL with its integration key (PATCH /business/profile). */
export async function setWebhookUrl(t: TestEnv, b: CreatedBusiness, url: string | null) {
  const r = await t.call("PATCH", "/business/profile", {
    key: b.api_key,
    body: { webhook_url: url },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}
