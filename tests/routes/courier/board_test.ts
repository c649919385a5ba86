/**
 * The live board's WebSocket (ARCHITECTURE "Boards", courier 4.4) on a real server: who may
 * connect, what a courier receives after a scan, and that nothing of another courier ever
 * arrives (the feed's coalescing and bound: board_feed_test.ts).
 */
import assert from "node:assert/strict";
import { type TestEnv, withTestEnv } from "../../helpers/test_env.ts";
import {
  type Client,
  clientKey,
  type Courier,
  courierWithScopes,
  DOMESTIC,
  newClient,
  newCourier,
  topUp,
} from "../../helpers/courier.ts";
import { subjectOf } from "../../../src/bus/bus.ts";
import { CLOSE } from "../../../routes/courier/board.ts";
import { ANONYMOUS_RATE_LIMIT } from "../../../src/limits.ts";
import { serveLive } from "../../helpers/live_server.ts";

const WAIT_MS = 10_000;
/** How long a socket is watched for messages that must not come. */
const QUIET_MS = 400;

interface Served {
  readonly ws: string;
  readonly http: string;
  close(): Promise<void>;
}

function serve(t: TestEnv): Served {
  const server = serveLive(t.app.fetch);
  return {
    ws: `ws://127.0.0.1:${server.port}/api/business/courier/operations/live`,
    http: `http://127.0.0.1:${server.port}`,
    close: server.close,
  };
}

// deno-lint-ignore no-explicit-any
type Message = any;

/** A board socket from Deno, recording everything it receives. */
class TestBoard {
  readonly ws: WebSocket;
  readonly messages: Message[] = [];
  readonly opened: Promise<boolean>;
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters = new Set<() => void>();

  constructor(url: string, firstMessage?: string, headers?: Record<string, string>) {
    this.ws = headers ? new WebSocket(url, { headers }) : new WebSocket(url);
    this.opened = new Promise((resolve) => {
      this.ws.onopen = () => {
        if (firstMessage !== undefined) this.ws.send(firstMessage);
        resolve(true);
      };
      this.ws.onerror = () => resolve(false);
    });
    this.closed = new Promise((resolve) => {
      this.ws.onclose = (e) => {
        resolve({ code: e.code, reason: e.reason });
        for (const w of this.#waiters) w();
      };
    });
    this.ws.onmessage = (e) => {
      this.messages.push(JSON.parse(e.data));
      for (const w of this.#waiters) w();
    };
  }

  /** The first message (received or to come) that matches. */
  async next(match: (m: Message) => boolean, what: string): Promise<Message> {
    const deadline = Date.now() + WAIT_MS;
    while (true) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      if (this.ws.readyState === WebSocket.CLOSED) assert.fail(`closed before ${what}`);
      if (Date.now() > deadline) assert.fail(`no ${what} within ${WAIT_MS} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 100);
        const waiters = this.#waiters;
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.close();
    await this.closed;
  }
}

async function ready(t: TestEnv): Promise<[Courier, Client]> {
  const courier = await newCourier(t);
  const client = await newClient(t, courier);
  await topUp(t, courier, client, "1000");
  return [courier, client];
}

async function book(t: TestEnv, client: Client): Promise<string> {
  const p = await t.call("POST", "/client/prices", { headers: clientKey(client), body: DOMESTIC });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  const b = await t.call("POST", "/client/book", {
    headers: clientKey(client),
    body: {
      prices_reference: p.body.data.prices_reference,
      service_level: "express",
      dangerous_goods_confirmed: true,
    },
  });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  return b.body.data.waybill;
}

async function scan(t: TestEnv, courier: Courier, waybill: string, event: string) {
  const r = await t.call("POST", `/business/courier/shipments/${waybill}/scans`, {
    key: courier.business.api_key,
    body: { event, holder: "Driver Thabo" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

/** Runs `fn` with a served environment; sockets it opens are closed before the server stops. */
function withServer(fn: (t: TestEnv, s: Served, boards: TestBoard[]) => Promise<void>) {
  return withTestEnv(async (t) => {
    const served = serve(t);
    const boards: TestBoard[] = [];
    try {
      await fn(t, served, boards);
    } finally {
      await Promise.all(boards.map((b) => b.close()));
      await served.close();
    }
  });
}

Deno.test("board socket: a bad key is refused; a good key receives the row after a scan", () =>
  withServer(async (t, s, boards) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client);

    const refused = new TestBoard(`${s.ws}?key=sk_live_not_a_key`);
    boards.push(refused);
    assert.equal(await refused.opened, false, "the handshake is refused");
    await refused.closed;
    assert.deepEqual(refused.messages, []);

    const board = new TestBoard(`${s.ws}?key=${encodeURIComponent(courier.business.api_key)}`);
    boards.push(board);
    assert.equal(await board.opened, true);
    await board.next((m) => m.type === "ready", "ready");
    await scan(t, courier, waybill, "collected");
    const m = await board.next(
      (m) => m.type === "shipment" && m.row.waybill === waybill && m.row.status === "collected",
      "the collected row",
    );
    assert.equal(m.row.custody.holder, "Driver Thabo");
    assert.equal(m.row.last_scan.event, "collected");
    assert.equal(m.row.open_alerts, null);
    assert.equal(typeof m.version, "number");
  }));

Deno.test("board socket: the credential as first message; a wrong one closes with 4401", () =>
  withServer(async (t, s, boards) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client);

    const wrong = new TestBoard(s.ws, JSON.stringify({ type: "auth", key: "sk_live_nope" }));
    boards.push(wrong);
    assert.equal(await wrong.opened, true);
    assert.equal((await wrong.closed).code, CLOSE.unauthenticated);

    const garbled = new TestBoard(s.ws, "hello");
    boards.push(garbled);
    assert.equal((await garbled.closed).code, CLOSE.unauthenticated);

    const auth = JSON.stringify({ type: "auth", key: courier.business.api_key });
    const board = new TestBoard(s.ws, auth);
    boards.push(board);
    await board.next((m) => m.type === "ready", "ready");
    await scan(t, courier, waybill, "received_at_depot");
    await board.next(
      (m) => m.type === "shipment" && m.row.status === "at_origin_facility",
      "the row at the depot",
    );
  }));

Deno.test("board socket: no shipments:view-own or no courier platform closes with 4403", () =>
  withServer(async (t, s, boards) => {
    const courier = await courierWithScopes(t, []);
    const pk = await t.call("POST", `/operator/businesses/${courier.id}/partner-keys`, {
      operator: true,
      body: { partner: "Connector", scopes: ["deliveries"] },
    });
    assert.equal(pk.status, 201, JSON.stringify(pk.body));
    const partnerKey: string = pk.body.data.key;
    const byQuery = new TestBoard(`${s.ws}?key=${encodeURIComponent(partnerKey)}`);
    boards.push(byQuery);
    assert.equal(await byQuery.opened, false, "refused before the upgrade");

    const off = await t.createBusiness(); // the courier platform is off until the operator says
    const partner = new TestBoard(s.ws, JSON.stringify({ type: "auth", key: partnerKey }));
    const platformOff = new TestBoard(s.ws, JSON.stringify({ type: "auth", key: off.api_key }));
    boards.push(partner, platformOff);
    const denied = await partner.closed;
    assert.equal(denied.code, CLOSE.refused);
    assert.match(denied.reason, /shipments:view-own/);
    const disabled = await platformOff.closed;
    assert.equal(disabled.code, CLOSE.refused);
    assert.match(disabled.reason, /courier platform/);
  }));

/** How the board closed, or null when it was still open after WAIT_MS. */
function closedWithin(board: TestBoard): Promise<{ code: number; reason: string } | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), WAIT_MS));
  return Promise.race([board.closed, late]).finally(() => clearTimeout(timer));
}

Deno.test("board socket: a rotated key, a revoked partner key, a signed-out session or the platform switched off stops an open board at once", () =>
  withServer(async (t, s, boards) => {
    const [courier] = await ready(t);
    const open = async (key: string) => {
      const board = new TestBoard(s.ws, JSON.stringify({ type: "auth", key }));
      boards.push(board);
      await board.next((m) => m.type === "ready", "ready");
      return board;
    };
    // Business API 4.3: the previous key is invalid at once, on the board too.
    const byKey = await open(courier.business.api_key);
    const rotated = await t.call("POST", "/business/api-key/regenerate", {
      key: courier.business.api_key,
    });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.equal((await closedWithin(byKey))?.code, CLOSE.unauthenticated);

    const pk = await t.call("POST", `/operator/businesses/${courier.business.id}/partner-keys`, {
      operator: true,
      body: { partner: "Control room", scopes: ["shipments:view-own"] },
    });
    assert.equal(pk.status, 201, JSON.stringify(pk.body));
    const byPartner = await open(pk.body.data.key);
    const revoked = await t.call("DELETE", `/operator/partner-keys/${pk.body.data.id}`, {
      operator: true,
    });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.equal((await closedWithin(byPartner))?.code, CLOSE.unauthenticated);

    const signIn = async () => {
      const r = await t.call("POST", "/business/login", { body: courier.business.owner });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.token as string;
    };
    const token = await signIn();
    const bySession = await open(token);
    assert.equal((await t.call("POST", "/business/logout", { key: token })).status, 200);
    assert.equal((await closedWithin(bySession))?.code, CLOSE.unauthenticated);

    const byOther = await open(await signIn());
    const off = await t.call("PATCH", `/operator/businesses/${courier.business.id}`, {
      operator: true,
      body: { courier_platform_enabled: false },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal((await closedWithin(byOther))?.code, CLOSE.refused);
  }));

Deno.test("board socket: another courier's board receives nothing of this courier", () =>
  withServer(async (t, s, boards) => {
    const [courier, client] = await ready(t);
    const other = await newCourier(t);
    const waybill = await book(t, client);
    const mine = new TestBoard(
      s.ws,
      JSON.stringify({ type: "auth", key: courier.business.api_key }),
    );
    const theirs = new TestBoard(
      s.ws,
      JSON.stringify({ type: "auth", key: other.business.api_key }),
    );
    boards.push(mine, theirs);
    await mine.next((m) => m.type === "ready", "ready");
    await theirs.next((m) => m.type === "ready", "ready");

    // A forged change on this courier's subject that names the other courier is dropped too.
    const env = t.env;
    const prefix = env.runtime.busPrefix;
    await env.bus.publish(subjectOf(prefix, courier.business.id, "shipment", "WBFORGED"), {
      env: prefix,
      tenant: other.business.id,
      type: "shipment",
      id: "WBFORGED",
      version: 1,
      events: [],
      snapshot: {},
    });
    await scan(t, courier, waybill, "collected");
    await mine.next((m) => m.type === "shipment" && m.row.waybill === waybill, "the row");
    await t.settle();
    await new Promise((r) => setTimeout(r, QUIET_MS));
    assert.deepEqual(theirs.messages.map((m) => m.type), ["ready"]);
    assert.ok(!mine.messages.some((m) => m.row?.waybill === "WBFORGED"));
  }));

Deno.test("board routes: no upgrade answers 426; the page and its files are served", () =>
  withServer(async (_t, s) => {
    // spec: business 8: X-RateLimit-* on every response; these count against the address.
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    const plain = await fetch(`${s.http}/api/business/courier/operations/live`);
    assert.equal(plain.status, 426);
    assert.equal((await plain.json()).code, "upgrade_required");
    assert.equal(plain.headers.get("X-RateLimit-Remaining"), String(limit - 1));
    const page = await fetch(`${s.http}/api/business/courier/board`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("X-RateLimit-Remaining"), String(limit - 2));
    assert.ok(Number(page.headers.get("X-RateLimit-Reset")) > 0);
    assert.match(page.headers.get("Content-Type") ?? "", /^text\/html/);
    assert.match(page.headers.get("Content-Security-Policy") ?? "", /default-src 'none'/);
    assert.match(await page.text(), /<table/);
    for (const [file, type] of [["board.js", /javascript/], ["board.css", /text\/css/]] as const) {
      const r = await fetch(`${s.http}/api/business/courier/board/${file}`);
      assert.equal(r.status, 200, file);
      assert.match(r.headers.get("Content-Type") ?? "", type);
      assert.ok(r.headers.has("X-RateLimit-Remaining"), file);
      await r.body?.cancel();
    }
    const other = await fetch(`${s.http}/api/business/courier/board/..%2Fboard.ts`);
    assert.equal(other.status, 404);
    await other.body?.cancel();
    // A name every object has is no file of the page either: 404, never a 500.
    for (const name of ["constructor", "toString", "__proto__"]) {
      const r = await fetch(`${s.http}/api/business/courier/board/${name}`);
      assert.equal(r.status, 404, name);
      await r.body?.cancel();
    }
  }));

/** A WebSocket handshake sent by hand, so that its answer's status and headers can be read. */
async function handshake(
  s: Served,
  query = "",
  extraHeaders = "",
): Promise<{ status: number; headers: Headers; body: string }> {
  const { hostname, port, host } = new URL(s.http);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(new TextEncoder().encode(
      `GET /api/business/courier/operations/live${query} HTTP/1.1\r\nHost: ${host}\r\n` +
        "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
        `${extraHeaders}\r\n`,
    ));
    const reader = new ConnReader(conn);
    const head = new TextDecoder().decode(await reader.until((b) => headEnd(b) >= 0, headEnd));
    const [statusLine = "", ...lines] = head.trimEnd().split("\r\n");
    const headers = new Headers();
    for (const line of lines) {
      const i = line.indexOf(":");
      headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
    }
    const status = Number(statusLine.split(" ")[1]);
    if (status === 101) {
      await closeSocket(conn, reader);
      return { status, headers, body: "" };
    }
    const length = Number(headers.get("content-length") ?? 0);
    const body = new TextDecoder().decode(
      await reader.until((b) => b.length >= length, () => length),
    );
    return { status, headers, body };
  } finally {
    conn.close();
  }
}

/** Where an HTTP head ends (after its blank line), or -1. */
function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i + 4;
    }
  }
  return -1;
}

/** Bytes read from a connection, taken from the front as they are parsed. */
class ConnReader {
  #bytes = new Uint8Array(0);
  constructor(readonly conn: Deno.Conn) {}

  /** Reads until `ready`, then takes the first `take` bytes; all there are at the end of input. */
  async until(ready: (b: Uint8Array) => boolean, take: (b: Uint8Array) => number) {
    const buf = new Uint8Array(16_384);
    while (!ready(this.#bytes)) {
      const n = await this.conn.read(buf);
      if (n === null) break;
      const joined = new Uint8Array(this.#bytes.length + n);
      joined.set(this.#bytes);
      joined.set(buf.subarray(0, n), this.#bytes.length);
      this.#bytes = joined;
    }
    const n = Math.min(Math.max(take(this.#bytes), 0), this.#bytes.length);
    const taken = this.#bytes.subarray(0, n);
    this.#bytes = this.#bytes.subarray(n);
    return taken;
  }
}

/**
 * Ends an accepted upgrade as a browser would (RFC 6455 5.5.1): a masked close frame, then the
 * server's frames read up to its close, so the server sees the socket close cleanly rather than a
 * connection dropped under it.
 */
async function closeSocket(conn: Deno.Conn, reader: ConnReader): Promise<void> {
  // Masked with 1, 2, 3, 4: the payload is the code 1000 (0x03e8, normal closure) xor the mask.
  await conn.write(new Uint8Array([0x88, 0x80 | 2, 1, 2, 3, 4, 0x03 ^ 1, 0xe8 ^ 2]));
  while (true) {
    const frame = await reader.until((b) => frameLength(b) <= b.length, frameLength);
    if (frame.length === 0 || ((frame[0] ?? 0) & 0x0f) === 0x8) return;
  }
}

/** The length of the server's (unmasked) frame at the front of `b`, or Infinity until known. */
function frameLength(b: Uint8Array): number {
  if (b.length < 2) return Infinity;
  const view = new DataView(b.buffer, b.byteOffset, b.length);
  const short = view.getUint8(1) & 0x7f;
  if (short < 126) return 2 + short;
  if (short === 126) return b.length < 4 ? Infinity : 4 + view.getUint16(2);
  return b.length < 10 ? Infinity : 10 + Number(view.getBigUint64(2));
}

Deno.test("board socket: upgrades without a key, or with a wrong one, count against the address and are throttled past its limit", () =>
  withServer(async (t, s) => {
    const courier = await newCourier(t);
    const limit = ANONYMOUS_RATE_LIMIT.perMinute;
    // spec: business 8: rate headers on every response; anyone's calls count per address.
    const first = await handshake(s);
    assert.equal(first.status, 101);
    assert.equal(first.headers.get("X-RateLimit-Remaining"), String(limit - 1));
    const wrong = await handshake(s, "?key=sk_live_not_a_key");
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("X-RateLimit-Remaining"), String(limit - 2));
    // The rest of the address's minute is used up on the page.
    for (let i = 2; i < limit; i++) {
      const r = await fetch(`${s.http}/api/business/courier/board/board.css`);
      assert.equal(r.status, 200, `request ${i + 1}`);
      await r.body?.cancel();
    }
    for (const query of ["", "?key=sk_live_not_a_key"]) {
      const refused = await handshake(s, query);
      assert.equal(refused.status, 429, `upgrade${query}`);
      assert.equal(JSON.parse(refused.body).code, "rate_limited");
      assert.ok(Number(refused.headers.get("Retry-After")) >= 1);
      assert.equal(refused.headers.get("X-RateLimit-Remaining"), "0");
    }
    // The courier's own key counts against the courier, not the address.
    const own = await handshake(s, `?key=${encodeURIComponent(courier.business.api_key)}`);
    assert.equal(own.status, 101);
    // The next minute starts afresh.
    t.clock.advanceBy(60_000);
    assert.equal((await handshake(s)).status, 101);
  }));

Deno.test("board socket: the key in the X-Business-API-Key header of the upgrade, as the document's security says, opens the board; a wrong one is refused before it", () =>
  withServer(async (t, s, boards) => {
    const [courier, client] = await ready(t);
    const waybill = await book(t, client);
    const wrong = await handshake(s, "", "X-Business-API-Key: sk_live_not_a_key\r\n");
    assert.equal(wrong.status, 401);
    assert.equal(JSON.parse(wrong.body).code, "unauthenticated");
    const board = new TestBoard(s.ws, undefined, {
      "X-Business-API-Key": courier.business.api_key,
    });
    boards.push(board);
    await board.next((m) => m.type === "ready", "ready");
    await scan(t, courier, waybill, "collected");
    await board.next((m) => m.type === "shipment" && m.row.waybill === waybill, "the row");
  }));
