/**
 * A live page's socket (src/web/live_socket.ts) with a stand-in page whose check is the real
 * X-Business-API-Key check (GET /business/profile) and whose watched subjects are the real
 * credential's: a credential that ends while it is being checked never keeps a page open.
 */
import assert from "node:assert/strict";
import type { Context } from "hono";
import type { WSContext } from "hono/ws";
import type { AppEnv } from "../../src/http/context.ts";
import { ApiError } from "../../src/http/errors.ts";
import { credentialSubjects } from "../../src/platform/auth/credential_subjects.ts";
import { ChangeFeed } from "../../src/web/feed.ts";
import { CLOSE, LiveConnection, type LivePage } from "../../src/web/live_socket.ts";
import { logLines } from "../helpers/log_lines.ts";
import { until } from "../helpers/receiver.ts";
import { type TestEnv, withTestEnv } from "../helpers/test_env.ts";

/** How long a page that must close is given to do so. */
const WAIT_MS = 5_000;

/** A socket's stand-in: what it was sent and how it was closed. */
function socket() {
  let closed: (c: { code: number; reason: string }) => void = () => {};
  const s = {
    sent: [] as string[],
    closed: new Promise<{ code: number; reason: string }>((resolve) => closed = resolve),
    ws: {
      readyState: 1,
      send: (text: string) => void s.sent.push(text),
      close: (code: number, reason: string) => {
        s.ws.readyState = 3;
        closed({ code, reason });
      },
      raw: undefined,
    },
  };
  return s;
}

/** How the socket closed, or null when it was still open after WAIT_MS. */
function closedWithin(closed: Promise<{ code: number; reason: string }>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), WAIT_MS));
  return Promise.race([closed, late]).finally(() => clearTimeout(timer));
}

/** A page checking `key` as the header is; `between` runs once, after the first check passed. */
function page(t: TestEnv, between: () => Promise<void>): LivePage<{ tenant: string }> {
  let first = true;
  return {
    name: "test page",
    async authenticate(_c, key) {
      const r = await t.call("GET", "/business/profile", { key });
      if (r.status !== 200) throw new ApiError("unauthenticated", "the key is no longer valid");
      if (first) {
        first = false;
        await between();
      }
      return { tenant: r.body.data.id as string };
    },
    tenantOf: (p) => p.tenant,
    watchedSubjects: credentialSubjects,
    feedOf: (sink, env, p) =>
      new ChangeFeed(sink, {
        bus: env.bus,
        env: env.runtime.busPrefix,
        tenant: p.tenant,
        now: () => env.clock.now(),
      }, {
        types: ["shipment"],
        messageOf: () => null,
        behind: { code: CLOSE.behind, reason: "behind" },
      }),
    socketsMax: 10,
    recheckMs: 60 * 60_000,
  };
}

/** The page's auth message for `key`. */
function auth(key: string): string {
  return JSON.stringify({ type: "auth", key });
}

/** A connection of `live` sent `first` as its first message; how it closed (or null). */
async function signIn(
  t: TestEnv,
  live: LivePage<{ tenant: string }>,
  s: ReturnType<typeof socket>,
  first: string,
  requestId = "live-1",
) {
  const vars: Record<string, unknown> = { env: t.env, requestId };
  const c = { get: (name: string) => vars[name] };
  const connection = new LiveConnection(c as unknown as Context<AppEnv>, live, null);
  const events = connection.events();
  const ws = s.ws as unknown as WSContext<WebSocket>;
  events.onOpen?.(new Event("open"), ws);
  events.onMessage?.(new MessageEvent("message", { data: first }), ws);
  const closed = await closedWithin(s.closed);
  events.onClose?.(new CloseEvent("close"), ws);
  return closed;
}

Deno.test("live socket: a key rotated while the page checks it closes the page with 4401, not at the next recheck", () =>
  withTestEnv(async (t) => {
    const business = await t.createBusiness();
    const rotate = async () => {
      const r = await t.call("POST", "/business/api-key/regenerate", { key: business.api_key });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    };
    const s = socket();
    const closed = await signIn(t, page(t, rotate), s, auth(business.api_key));
    assert.equal(closed?.code, CLOSE.unauthenticated, "the page stayed open on a rotated key");
  }));

Deno.test("live socket: a credential refused by the auth message is a log line with its code and the upgrade's request id, never the key", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const s = socket();
    const wrong = "sk_live_not_a_key_0000000000000000";
    const closed = await signIn(t, page(t, () => Promise.resolve()), s, auth(wrong), "upgrade-7");
    assert.equal(closed?.code, CLOSE.unauthenticated);
    // The stand-in's own check (GET /business/profile) leaves its lines too, under its own id.
    const refused = log.all().filter((l) => l.event === "refused" && l.request_id === "upgrade-7");
    assert.deepEqual(
      refused.map((l) => [l.request_id, l.status, l.code]),
      [["upgrade-7", 401, "unauthenticated"]],
    );
    assert.ok(!log.raw.join("").includes(wrong));
  }, { log: log.destination });
});

Deno.test("live socket: a first message that is no auth message is a refusal line too", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    for (const [i, first] of ['{"type":"hello"}', "not json", auth("")].entries()) {
      const live = page(t, () => Promise.resolve());
      const closed = await signIn(t, live, socket(), first, `bad-${i}`);
      assert.equal(closed?.code, CLOSE.unauthenticated);
    }
    const refused = log.all().filter((l) => l.event === "refused");
    assert.deepEqual(refused.map((l) => [l.request_id, l.status, l.code]), [
      ["bad-0", 401, "unauthenticated"],
      ["bad-1", 401, "unauthenticated"],
      ["bad-2", 401, "unauthenticated"],
    ]);
  }, { log: log.destination });
});

Deno.test("live socket: a page refused once stops checking: later changes before its close add no refusal", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const business = await t.createBusiness();
    const s = socket();
    const vars: Record<string, unknown> = { env: t.env, requestId: "once-1" };
    const c = { get: (name: string) => vars[name] };
    const live = page(t, () => Promise.resolve());
    const events = new LiveConnection(c as unknown as Context<AppEnv>, live, null).events();
    const ws = s.ws as unknown as WSContext<WebSocket>;
    events.onOpen?.(new Event("open"), ws);
    events.onMessage?.(new MessageEvent("message", { data: auth(business.api_key) }), ws);
    await until(t, () => s.sent.some((m) => JSON.parse(m).type === "ready"), "ready");
    const regenerate = await t.call("POST", "/business/api-key/regenerate", {
      key: business.api_key,
    });
    assert.equal(regenerate.status, 201);
    assert.equal((await closedWithin(s.closed))?.code, CLOSE.unauthenticated);
    // The close handshake has not ended (no onClose yet); the account changes again meanwhile.
    const patched = await t.call("PATCH", `/operator/businesses/${business.id}`, {
      operator: true,
      body: { courier_platform_enabled: true },
    });
    assert.equal(patched.status, 200);
    await t.settle();
    events.onClose?.(new CloseEvent("close"), ws);
    const refused = log.all().filter((l) => l.event === "refused" && l.request_id === "once-1");
    assert.equal(refused.length, 1, JSON.stringify(refused));
  }, { log: log.destination });
});

Deno.test("live socket: a page refused for too many pages open (4429) is a refusal line too", async () => {
  const log = logLines();
  await withTestEnv(async (t) => {
    const business = await t.createBusiness();
    const live = { ...page(t, () => Promise.resolve()), socketsMax: 1 };
    // The business's one page, left open.
    const s = socket();
    const vars: Record<string, unknown> = { env: t.env, requestId: "open-1" };
    const c = { get: (name: string) => vars[name] };
    const events = new LiveConnection(c as unknown as Context<AppEnv>, live, null).events();
    const ws = s.ws as unknown as WSContext<WebSocket>;
    events.onOpen?.(new Event("open"), ws);
    events.onMessage?.(new MessageEvent("message", { data: auth(business.api_key) }), ws);
    await until(t, () => s.sent.some((m) => JSON.parse(m).type === "ready"), "ready");
    const closed = await signIn(t, live, socket(), auth(business.api_key), "second-1");
    assert.equal(closed?.code, CLOSE.tooMany);
    const refused = log.all().filter((l) => l.event === "refused" && l.request_id === "second-1");
    assert.deepEqual(refused.map((l) => [l.request_id, l.status, l.code]), [
      ["second-1", 429, "rate_limited"],
    ]);
    events.onClose?.(new CloseEvent("close"), ws);
  }, { log: log.destination });
});
