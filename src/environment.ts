/**
 * One environment (live or sandbox): its actor store, bus, query database, clock and keys. Live and
 * sandbox are the same code with separate config (ARCHITECTURE "Environments").
 */
import type { Kysely } from "kysely";
import type { Bus } from "./bus/bus.ts";
import type { Database } from "./db/schema.ts";
import type { ActorRuntime } from "./runtime/runtime.ts";
import type { Clock } from "./runtime/clock.ts";
import type { Logger } from "./observe/log.ts";
import type { Metrics } from "./observe/metrics.ts";

export type EnvironmentName = "live" | "sandbox";

/** Something a feature started that stops with the environment (a bus subscriber). */
export interface Reactor {
  close(): Promise<void>;
}

/**
 * What flows, reactors and queries work with: the environment's machinery, no HTTP. A flow
 * takes these (or the part it needs), so a route, a reactor, a sweep or a timer can call it.
 */
export interface Deps {
  readonly name: EnvironmentName;
  readonly runtime: ActorRuntime;
  readonly clock: Clock;
  readonly bus: Bus;
  readonly db: Kysely<Database>;
  /** Seals webhook signing secrets at rest. */
  readonly dataKey: CryptoKey;
  /** Keys a booking's trip reference (bookingReference), derived from the data key. */
  readonly referenceKey: Uint8Array;
  readonly allowLoopbackWebhooks: boolean;
  /**
   * The environment's address (without `/api`) for links made without a request, as a trip
   * webhook's tracking_url: the configured public URL, else this machine's own address.
   */
  readonly linkBase: string;
  /** The environment's log (its lines name the environment). */
  readonly log: Logger;
  /** The environment's own metrics registry (GET /metrics). */
  readonly metrics: Metrics;
  /**
   * Where the world reaches this environment, without `/api` (PUBLIC_URL): links a reactor
   * hands out start with it; absent, they start with `http://localhost` (a developer's machine).
   */
  readonly publicUrl?: string;
  /**
   * Counters are kept in the query side, shared with the other instances on it (issue 43 item
   * 4), not in this instance's memory; absent, in memory.
   */
  readonly sharesCounters?: boolean;
  /** Resolves once the query side holds every change committed before the call. */
  settle(): Promise<void>;
  /**
   * Resolves once the projections hold every change committed before the call, without waiting
   * for outbox handlings as settle() does: what an outbox's handler may wait for.
   */
  projected(): Promise<void>;
  /**
   * The request a flow works for (a route's env has it; a reactor's, a sweep's or a timer's
   * none): the flow asks its commands with it (AskOptions.requestId), so the changes they make
   * name the request, and so does what follows them (an outbound attempt's log line).
   */
  readonly requestId?: string | undefined;
  /**
   * The sandbox as the live environment reaches it (Business API 4.4 credentials): wired by the
   * composition root from the sandbox into live; absent on the sandbox itself and when the
   * sandbox is off (SANDBOX_PORT=0).
   */
  readonly sandboxTwins?: SandboxTwins | undefined;
  /**
   * PBKDF2 iterations of the passwords this environment hashes; absent: PBKDF2_ITERATIONS.
   * Fewer only in tests, which create hundreds of owners and clients.
   */
  readonly passwordIterations?: number | undefined;
}

/** A live account as its sandbox twin copies it (Business API 4.4). */
export interface TwinAccount {
  readonly id: string;
  readonly name: string;
  readonly plan: "starter" | "business" | "enterprise";
  readonly currency: string;
  readonly country: string;
  readonly owner_email: string;
  /**
   * The operator's settings of the live account (add-ons, policies, scopes, limits), as its
   * business actor holds them: the twin's are made the same (Business API 1.3, 9.4).
   */
  readonly settings: Readonly<Record<string, unknown>>;
}

/** A partner sales channel's sandbox grant (Business API 5.9): its key is shown this once. */
export interface StorefrontGrant {
  readonly source: string;
  readonly signing_key: string;
  readonly algorithm: "HS256";
  readonly audience: string;
  readonly issuer: string;
  readonly subject: string;
  readonly events_url: string;
}

/** The twin's credentials, shown this once (kept hashed or sealed in the sandbox). */
export interface TwinCredentials {
  readonly base_url: string;
  readonly api_key: string;
  readonly webhook_secret: string;
  readonly business_id: string;
  /** The twin was made by this call (else its key, secret and channel key were rotated). */
  readonly created: boolean;
  readonly storefront: StorefrontGrant;
}

/**
 * The narrow port from live to the sandbox environment: creates the account's twin the first
 * time, rotates its credentials afterwards. Nothing else of the sandbox is reachable from live.
 */
export interface SandboxTwins {
  provision(account: TwinAccount): Promise<TwinCredentials>;
}

/** Business API 5.2: keys are per environment. */
export function apiKeyPrefix(env: EnvironmentName): string {
  return env === "live" ? "sk_live_" : "sk_sandbox_";
}
