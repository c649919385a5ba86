/** The business account's actor set up for its tests: a business made with its owner and keys. */
import assert from "node:assert/strict";
import {
  type Business,
  businessActor,
  type BusinessCommand,
  type BusinessReply,
  type KeyRecord,
  type Plan,
  type WebhookSecret,
} from "../../../actors/platform/business/mod.ts";
import { ActorHarness } from "../../helpers/actor.ts";

export const T0 = Date.parse("2026-11-02T08:00:00Z");

export function key(c: string, created_at = T0): KeyRecord {
  return { hash: c.repeat(64), hint: c.repeat(4), created_at };
}

export function secret(id: string, created_at = T0): WebhookSecret {
  return { iv: `iv-${id}`, data: `sealed-${id}`, key_id: id, created_at };
}

export const OWNER = {
  id: "usr_owner",
  email: "owner@example.com",
  name: "Neo Owner",
  role: "owner",
  password_hash: "pbkdf2$owner",
} as const;

export function create(plan: Plan = "business"): Extract<BusinessCommand, { kind: "create" }> {
  return {
    kind: "create",
    id: "biz_1",
    name: "Kalahari Couriers",
    plan,
    currency: "BWP",
    country: "BW",
    owner: OWNER,
    api_key: key("a"),
    webhook_secret: secret("whk_1"),
  };
}

export function created(plan: Plan = "business") {
  const h = new ActorHarness(businessActor, { now: T0 });
  h.must(create(plan));
  return h;
}

export type Harness = ReturnType<typeof created>;

export function authenticated(h: Harness, hash: string) {
  const reply = h.must({ kind: "authenticate_key", hash }).reply as Exclude<
    BusinessReply,
    Business | undefined
  >;
  assert.ok("principal" in reply);
  return reply;
}

export function staffMember(id: string, role: "admin" | "coordinator" = "coordinator") {
  return { id, email: `${id}@example.com`, name: id, role, password_hash: `hash-${id}` };
}
