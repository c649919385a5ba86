import assert from "node:assert/strict";
import { readConfig } from "../../src/config.ts";
import { createLogger, infoLine, requestLine, stdoutDestination } from "../../src/observe/log.ts";
import { logSweep } from "../../src/server.ts";

/** A file that keeps what is written to it, a write at a time. */
function fakeFile() {
  const writes: string[] = [];
  const decoder = new TextDecoder();
  return {
    writes,
    writeSync(p: Uint8Array): number {
      writes.push(decoder.decode(p));
      return p.length;
    },
  };
}

Deno.test("stdoutDestination() holds lines and writes them together, all of them on flush", () => {
  const file = fakeFile();
  const out = stdoutDestination(file);
  const log = createLogger("info", out, { environment: "live" });
  log.info({ request_id: "r1" }, "request");
  log.info({ request_id: "r2" }, "request");
  assert.equal(file.writes.length, 0);
  out.flush();
  assert.equal(file.writes.length, 1);
  const lines = file.writes[0]!.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => [l.request_id, l.environment, l.msg]), [
    ["r1", "live", "request"],
    ["r2", "live", "request"],
  ]);
  out.flush();
  assert.equal(file.writes.length, 1, "an empty flush writes nothing");
});

Deno.test("stdoutDestination() writes at once when the lines held pass its buffer", () => {
  const file = fakeFile();
  const out = stdoutDestination(file);
  const line = `${"x".repeat(999)}\n`;
  for (let i = 0; i < 17; i++) out.write(line);
  assert.equal(file.writes.length, 1);
  assert.equal(file.writes[0]!.length, 17 * 1000);
  out.flush();
});

Deno.test("stdoutDestination() writes UTF-8 whole, in a short write and in one over its buffer", () => {
  const file = fakeFile();
  const out = stdoutDestination(file);
  const short = "caf\u00e9 \u{1F69A} \u2014 ok\n";
  out.write(short);
  out.flush();
  // Past what its own buffer holds encoded (three bytes a character at most): encoded apart.
  const long = `${"\u20AC".repeat(40_000)}\n`;
  out.write(long);
  assert.deepEqual(file.writes, [short, long]);
});

Deno.test("createLogger() writes nothing below its level", () => {
  const file = fakeFile();
  const out = stdoutDestination(file);
  const log = createLogger("warn", out);
  log.info({ a: 1 }, "quiet");
  log.warn({ a: 2 }, "heard");
  out.flush();
  assert.deepEqual(file.writes.join("").trimEnd().split("\n").map((l) => JSON.parse(l).msg), [
    "heard",
  ]);
});

Deno.test("config: LOG_LEVEL is info by default and must name a level", () => {
  assert.equal(readConfig({}).LOG_LEVEL, "info");
  assert.equal(readConfig({ LOG_LEVEL: "silent" }).LOG_LEVEL, "silent");
  assert.throws(() => readConfig({ LOG_LEVEL: "loud" }), /LOG_LEVEL/);
});

Deno.test("logSweep() logs a sweep that completed stalled work, and nothing for none", () => {
  const lines: string[] = [];
  const log = createLogger("info", { write: (l) => void lines.push(l) });
  logSweep(log, "stalled booking sweep", 0);
  logSweep(log, "stalled booking sweep", undefined);
  logSweep(log, "stalled booking sweep", 2);
  assert.deepEqual(lines.map((l) => JSON.parse(l)).map((l) => [l.event, l.sweep, l.completed]), [
    ["sweep_completed", "stalled booking sweep", 2],
  ]);
});

Deno.test("infoLine() writes the line pino writes for the same fields, bindings and message", () => {
  const lines: string[] = [];
  const log = createLogger("info", { write: (l) => lines.push(l) }, { environment: "sandbox" });
  const fields = {
    request_id: "r1",
    route: 'a "quoted" \\ route\n',
    status: 200,
    duration_ms: 1.25,
    tenant_id: null,
    ok: true,
  };
  log.info(fields, "request");
  infoLine(log, fields, "request");
  infoLine(log.child({ part: "x" }), {}, "bare");
  assert.equal(lines.length, 3);
  assert.ok(lines.every((l) => l.endsWith("\n") && l.indexOf("\n") === l.length - 1));
  const [byPino, ours, child] = lines.map((l) => JSON.parse(l));
  assert.equal(typeof ours.time, "number");
  assert.deepEqual({ ...ours, time: 0 }, { ...byPino, time: 0 });
  assert.deepEqual(Object.keys(ours), Object.keys(byPino));
  assert.deepEqual({ ...child, time: 0 }, {
    level: 30,
    time: 0,
    environment: "sandbox",
    part: "x",
    msg: "bare",
  });
});

Deno.test("requestLine() writes the line pino writes for the same fields, bindings and message", () => {
  const lines: string[] = [];
  const log = createLogger("info", { write: (l) => lines.push(l) }, { environment: "live" });
  const cases = [
    {
      request_id: "0f8fad5b-d9cb-469f-a165-70867728950e",
      method: "GET",
      route: "/api/business/shipments/:reference",
      status: 200,
      duration_ms: 0.37,
      tenant_id: "biz_1",
      credential: "business_key",
    },
    {
      request_id: "trace-abc.1:2",
      method: "POST",
      route: 'a "quoted" \\ route\n',
      status: 422,
      duration_ms: 12,
      tenant_id: 'odd "tenant"',
      credential: null,
    },
    {
      request_id: "x",
      method: "DELETE",
      route: "unmatched",
      status: 404,
      duration_ms: 1234.56,
      tenant_id: null,
      credential: "operator",
    },
  ];
  for (const fields of cases) {
    log.info(fields, "request");
    requestLine(log, fields);
    // Twice: the second line's strings come from those kept by the first.
    requestLine(log, fields);
  }
  assert.equal(lines.length, 9);
  for (let i = 0; i < cases.length; i++) {
    const [byPino, ours, again] = lines.slice(i * 3, i * 3 + 3).map((l) => JSON.parse(l));
    assert.equal(typeof ours.time, "number");
    assert.deepEqual({ ...ours, time: 0 }, { ...byPino, time: 0 });
    assert.deepEqual(Object.keys(ours), Object.keys(byPino));
    assert.deepEqual({ ...again, time: 0 }, { ...byPino, time: 0 });
  }
  const quiet: string[] = [];
  requestLine(createLogger("warn", { write: (l) => quiet.push(l) }), cases[0]!);
  assert.deepEqual(quiet, []);
});

Deno.test("infoLine() writes nothing when the logger is above info", () => {
  const lines: string[] = [];
  infoLine(createLogger("warn", { write: (l) => lines.push(l) }), { a: 1 }, "request");
  assert.deepEqual(lines, []);
});
