/** Environment variables -> typed config (CONTRACT "Running"). The only place that reads Deno.env. */
import { z } from "zod";
import { FORWARD_WAIT_MS } from "./limits.ts";
import { LOG_LEVELS } from "./observe/log.ts";

const flag = z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true");

/**
 * The address the world reaches an environment at, without `/api`: `https://track.example.com`.
 * Links the service hands out (tracking_url, the OpenAPI servers) start with it, so they never
 * take a caller's `Host` header (a caller choosing the host would get its own links, labels
 * included, pointing there).
 */
const publicUrl = z.string().transform((v, ctx) => {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    ctx.addIssue({ code: "custom", message: `not a URL: ${v}` });
    return z.NEVER;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    ctx.addIssue({ code: "custom", message: `must be http or https: ${v}` });
    return z.NEVER;
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    ctx.addIssue({
      code: "custom",
      message: `must be a bare address (no query, fragment or user): ${v}`,
    });
    return z.NEVER;
  }
  // A path prefix is kept (a reverse proxy may mount the service under one); no trailing slash.
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
});

const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65_535).default(8081),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().min(1).optional(),
  NATS_URL: z.string().min(1).optional(),
  /**
   * Where actors are stored (ARCHITECTURE "Growing past one machine"): `kv`, a Deno KV file under
   * DATA_DIR; `postgres`, tables in each environment's schema (src/runtime/pg_store.ts) at
   * ACTOR_STORE_URL, else DATABASE_URL.
   */
  ACTOR_STORE: z.enum(["kv", "postgres"]).default("kv"),
  ACTOR_STORE_URL: z.string().min(1).optional(),
  /**
   * Which partitions of actors this instance holds (src/runtime/leases.ts): `whole`, all of them
   * (one instance alone); `leased`, a fair share leased in the actor store, shared with the other
   * instances on that store (issue 43).
   */
  PLACEMENT: z.enum(["whole", "leased"]).default("whole"),
  /** How long a partition's lease lasts unrenewed: a dead instance's are taken within it. */
  LEASE_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
  /** This instance's name among the instances (leased placement); default: host and a random part. */
  INSTANCE_NAME: z.string().min(1).max(100).optional(),
  /**
   * How long an ask for an actor held by another instance keeps looking for its holder while
   * none answers (a lease moving) before it fails 503 `partition_unavailable` (forwarding.ts).
   */
  FORWARD_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(FORWARD_WAIT_MS),
  OPERATOR_TOKEN: z.string().min(16).optional(),
  CLOCK: z.enum(["system", "manual"]).default("system"),
  ALLOW_LOOPBACK_WEBHOOKS: flag.default(false),
  /** Tests only: a refusal a route's OpenAPI entry does not list answers 500 (route.ts). */
  STRICT_REFUSALS: flag.default(false),
  /** Base64 of 32 bytes sealing webhook secrets; generated under DATA_DIR when unset. */
  SECRETS_KEY: z.string().min(40).optional(),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: publicUrl.optional(),
  SANDBOX_PUBLIC_URL: publicUrl.optional(),
  /** The least severe log lines written (one JSON line each on stdout); `silent` writes none. */
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
}).superRefine((c, ctx) => {
  if (c.ACTOR_STORE === "postgres" && !c.ACTOR_STORE_URL && !c.DATABASE_URL) {
    ctx.addIssue({
      code: "custom",
      path: ["ACTOR_STORE"],
      message: "postgres needs ACTOR_STORE_URL or DATABASE_URL",
    });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

/** The Postgres URL of the actor store when it is on Postgres; undefined on Deno KV. */
export function actorStoreUrl(c: Config): string | undefined {
  return c.ACTOR_STORE === "postgres" ? c.ACTOR_STORE_URL ?? c.DATABASE_URL : undefined;
}

/** What a leased placement is made of (src/runtime/leases.ts). */
export interface LeasedSettings {
  readonly instance: string;
  readonly leaseMs: number;
}

/**
 * The leased placement's settings, undefined for one instance alone (PLACEMENT=whole). Unnamed,
 * an instance is its host and a random part: a restarted process is a new holder, whose epochs
 * fence whatever the one before it left in flight.
 */
export function leasedSettingsOf(c: Config, host: string): LeasedSettings | undefined {
  if (c.PLACEMENT !== "leased") return undefined;
  const random = Array.from(
    crypto.getRandomValues(new Uint8Array(4)),
    (b) => b.toString(16).padStart(2, "0"),
  );
  return {
    instance: c.INSTANCE_NAME ?? `${host}-${random.join("")}`,
    leaseMs: c.LEASE_SECONDS * 1000,
  };
}

export function readConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}
