import assert from "node:assert/strict";
import { Draining } from "../../src/http/draining.ts";
import { createLogger } from "../../src/observe/log.ts";
import { Metrics } from "../../src/observe/metrics.ts";
import { logLines } from "../helpers/log_lines.ts";

const INFO = {} as Deno.ServeHandlerInfo;

Deno.test("draining: a stop waits for the requests under way and turns new ones away", async () => {
  const draining = new Draining();
  let finish!: () => void;
  const held = new Promise<void>((resolve) => finish = resolve);
  const handler = draining.serve(async (request) => {
    if (request.url.endsWith("/slow")) await held;
    return new Response("done", { status: 201 });
  });
  const slow = handler(new Request("http://s/slow"), INFO);
  assert.equal(draining.underWay, 1);
  let drained = false;
  const drain = draining.drain().then(() => drained = true);
  await Promise.resolve();
  assert.equal(drained, false, "the stop went on with a request under way");

  const late = await handler(
    new Request("http://s/x", { headers: { "X-Request-Id": "late-1" } }),
    INFO,
  );
  assert.equal(late.status, 503);
  assert.equal(late.headers.get("Connection"), "close");
  assert.equal(late.headers.get("X-Request-Id"), "late-1");
  assert.equal(late.headers.get("Retry-After"), "5");
  assert.deepEqual(await late.json(), {
    success: false,
    code: "service_stopping",
    message: "the service is stopping: send the request again shortly",
  });

  finish();
  assert.equal((await slow).status, 201);
  await drain;
  assert.equal(drained, true);
  assert.equal(draining.underWay, 0);
});

Deno.test("draining: a stop with nothing under way goes on at once; a failed request is no longer counted", async () => {
  const draining = new Draining();
  const handler = draining.serve(() => Promise.reject(new Error("broken")));
  await assert.rejects(async () => await handler(new Request("http://s/"), INFO), /broken/);
  assert.equal(draining.underWay, 0);
  await draining.drain();
});

Deno.test("draining: a turned-away request's answer names the environment, in the sandbox's body too", async () => {
  const draining = new Draining();
  const live = draining.serve(() => new Response("done"), "live");
  const sandbox = draining.serve(() => new Response("done"), "sandbox");
  await draining.drain();
  const a = await live(new Request("http://s/x"), INFO);
  const b = await sandbox(new Request("http://s/x"), INFO);
  // spec: business 2.2: X-Service-Environment on every response; sandbox bodies say so.
  assert.equal(a.headers.get("X-Service-Environment"), "live");
  assert.equal((await a.json()).environment, undefined);
  assert.equal(b.headers.get("X-Service-Environment"), "sandbox");
  assert.equal((await b.json()).environment, "sandbox");
});

Deno.test("draining: a turned-away request is logged and counted as any other, with a warning", async () => {
  const lines = logLines();
  const observed = { log: createLogger("info", lines.destination), metrics: new Metrics() };
  const draining = new Draining();
  const handler = draining.serve(() => new Response("done"), "live", observed);
  await draining.drain();
  const r = await handler(
    new Request("http://s/api/x", { method: "POST", headers: { "X-Request-Id": "late-2" } }),
    INFO,
  );
  assert.equal(r.status, 503);
  await r.body?.cancel();
  const all = lines.all();
  const request = all.find((l) => l.msg === "request");
  assert.deepEqual(
    [request?.request_id, request?.method, request?.route, request?.status],
    ["late-2", "POST", "stopping", 503],
  );
  const warned = all.find((l) => l.event === "service_stopping");
  assert.equal(warned?.request_id, "late-2");
  assert.equal(warned?.level, 40);
  const { body } = await observed.metrics.scrape();
  const count = body.split("\n").find((l) =>
    l.startsWith("http_request_duration_seconds_count") && l.includes('route="stopping"')
  );
  assert.ok(count?.includes('status="503"') && count.endsWith(" 1"), count);
});
