/**
 * The platform's flows without HTTP: a runtime over in-memory KV with the platform's actors, the
 * in-process bus and a manual clock, and callers built as the guards would find them.
 */
import { accessOf, type Business } from "../../../actors/platform/business/mod.ts";
import { PLATFORM_ACTORS } from "../../../actors/platform/mod.ts";
import { MemoryBus } from "../../../src/bus/memory_bus.ts";
import { importDataKey } from "../../../src/domain/secrets.ts";
import type { EnvironmentName } from "../../../src/environment.ts";
import { Refused, type Rejection } from "../../../src/runtime/actor.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { KvActorStore } from "../../../src/runtime/kv_store.ts";
import { ActorRuntime } from "../../../src/runtime/runtime.ts";
import type { BusinessPrincipal, StaffPrincipal } from "../../../src/platform/identity.ts";
import {
  type BusinessCreated,
  businessOf,
  createBusiness,
} from "../../../src/platform/flows/businesses.ts";
import type { SignInAttempt } from "../../../src/platform/flows/sessions.ts";
import type { PortalRole } from "../../../src/platform/rules/scopes.ts";

export interface PlatformDeps {
  readonly name: EnvironmentName;
  readonly runtime: ActorRuntime;
  readonly clock: ManualClock;
  readonly bus: MemoryBus;
  readonly dataKey: CryptoKey;
  readonly allowLoopbackWebhooks: boolean;
  pump(): Promise<void>;
}

/** Runs `body` with fresh platform deps of environment `name`, closed after. */
export async function withPlatform(
  body: (deps: PlatformDeps) => Promise<void>,
  name: EnvironmentName = "live",
): Promise<void> {
  const store = await KvActorStore.open(":memory:");
  const bus = new MemoryBus();
  const clock = new ManualClock();
  const runtime = new ActorRuntime({ env: name, store, bus, clock, definitions: PLATFORM_ACTORS });
  const dataKey = await importDataKey(new Uint8Array(32));
  try {
    await body({
      name,
      runtime,
      clock,
      bus,
      dataKey,
      allowLoopbackWebhooks: false,
      pump: () => Promise.resolve(),
    });
  } finally {
    await runtime.close();
    await bus.drain();
    store.close();
  }
}

/** A new business and the business as it stands. */
export async function newBusiness(
  deps: PlatformDeps,
  overrides: Partial<Parameters<typeof createBusiness>[1]> = {},
): Promise<{ created: BusinessCreated; business: Business }> {
  const created = await createBusiness(deps, {
    name: "Kgalagadi Couriers",
    plan: "starter",
    currency: "BWP",
    country: "BW",
    owner_email: `owner-${crypto.randomUUID()}@example.com`,
    ...overrides,
  });
  return { created, business: await businessOf(deps.runtime, created.id) };
}

/** The integration key of `b` calling. */
export function keyCaller(b: Business): BusinessPrincipal {
  return {
    kind: "business_key",
    business: accessOf(b),
    legacy: false,
    scopes: [],
    key_hash: b.api_key.hash,
    webhook_key_id: b.webhook_secret.key_id,
  };
}

/** A person of `b` signed in (the owner when no id is named). */
export function staffCaller(b: Business, staffId?: string): StaffPrincipal {
  const s = staffId === undefined
    ? b.staff.find((p) => p.role === "owner")!
    : b.staff.find((p) => p.id === staffId)!;
  return {
    kind: "staff",
    business: accessOf(b),
    staff_id: s.id,
    role: s.role as PortalRole,
    scopes: [],
    session_epoch: s.session_epoch,
    session_hash: `session-of-${s.id}`,
    api_key_hash: b.api_key.hash,
    webhook_key_id: b.webhook_secret.key_id,
  };
}

/** Whether `e` is the domain refusal `code` (for assert.rejects); its rejection for more checks. */
export function refusedAs(code: string, more?: (r: Rejection) => boolean) {
  return (e: unknown): boolean =>
    e instanceof Refused && e.rejection.code === code && (more?.(e.rejection) ?? true);
}

/** A sign-in attempt that records what the flow said of it. */
export function countedAttempt(): SignInAttempt & { said: string[] } {
  const said: string[] = [];
  return {
    said,
    failed: () => void said.push("failed"),
    succeeded: () => void said.push("succeeded"),
  };
}
