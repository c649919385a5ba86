import assert from "node:assert/strict";
import { type OutboundRequest, pinnedPost } from "../../src/outbound/pinned_post.ts";

// A test CA and a certificate it signed for `hooks.example` (valid to 2126; test use only).
const TEST_CA = `-----BEGIN CERTIFICATE-----
MIIBizCCATGgAwIBAgIUd++npU8jvAZuzRQobXg1YL5Wmc8wCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPVGVzdCB3ZWJob29rIENBMCAXDTI2MTEyMjEwNTYxM1oYDzIx
MjYxMDI5MTA1NjEzWjAaMRgwFgYDVQQDDA9UZXN0IHdlYmhvb2sgQ0EwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAQPfUIfBNIx0O/mP0paiv0nxNQOM1YzctadElv1
qD4FMxDiHMyXYcZCU0+vxB/1w1FclP/uaCATJff8rMcLM0Q0o1MwUTAdBgNVHQ4E
FgQUWX72Z5MAifJIWwhMKL64bmKXOukwHwYDVR0jBBgwFoAUWX72Z5MAifJIWwhM
KL64bmKXOukwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA7WGR
+wQpBlB8YG8nSTIs18dW9caXvCTJHGtzqKlIa44CIAqQcKlz3PL6J+0hz1j4O+CC
qO024gHWBwMq4uns0ZEX
-----END CERTIFICATE-----
`;
const HOOKS_CERT = `-----BEGIN CERTIFICATE-----
MIIBwDCCAWegAwIBAgIURrUw/o5SQ62YLsH43z75bLKwtHIwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPVGVzdCB3ZWJob29rIENBMCAXDTI2MTEyMjEwNTYxM1oYDzIx
MjYxMDI5MTA1NjEzWjAYMRYwFAYDVQQDDA1ob29rcy5leGFtcGxlMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEEODEccCKf3i0vAWnzVMO6CxTueRWnAqbR3POehU0
vS6a2OLmi2DrEsQOVXzriuX40SRZmq+bD9QlVoPH79KqkaOBijCBhzAYBgNVHREE
ETAPgg1ob29rcy5leGFtcGxlMAkGA1UdEwQCMAAwCwYDVR0PBAQDAgeAMBMGA1Ud
JQQMMAoGCCsGAQUFBwMBMB0GA1UdDgQWBBRREl51yHYFzYpVhEE48P9rs32qMzAf
BgNVHSMEGDAWgBRZfvZnkwCJ8khbCEwovrhuYpc66TAKBggqhkjOPQQDAgNHADBE
AiAWM3TB9Zi2ANWerz4vujdW/So/Ydecy+12DOpC0ApYBgIgbSw49WiclwRIGxd+
3+v59fdW2gUA5WcqKToCQx0GUi0=
-----END CERTIFICATE-----
`;
const HOOKS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHB4HIpxIDiOArtIb
sZu2YfaHu7DHnlXTyJ6M9CMsD2WhRANCAAQQ4MRxwIp/eLS8BafNUw7oLFO55Fac
CptHc856FTS9LprY4uaLYOsSxA5VfOuK5fjRJFmar5sP1CVWg8fv0qqR
-----END PRIVATE KEY-----
`;

function request(url: string, addresses: string[], signal = new AbortController().signal) {
  return {
    url: new URL(url),
    addresses,
    headers: { "Content-Type": "application/json", "X-Signature": "t=1,v1=abc" },
    body: `{"event":"shipment.booked","note":"Gaborone – Francistown"}`,
    signal,
  } satisfies OutboundRequest;
}

interface Seen {
  host: string | null;
  path: string;
  signature: string | null;
  body: string;
}

async function withServer(
  tls: boolean,
  status: number,
  body: (port: number, seen: Seen[]) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    onListen() {},
    ...(tls ? { cert: HOOKS_CERT, key: HOOKS_KEY } : {}),
  }, async (req) => {
    const url = new URL(req.url);
    seen.push({
      host: req.headers.get("host"),
      path: url.pathname + url.search,
      signature: req.headers.get("x-signature"),
      body: await req.text(),
    });
    return new Response(null, { status });
  });
  try {
    await body(server.addr.port, seen);
  } finally {
    await server.shutdown();
  }
}

Deno.test("pinned post: connects to the checked address, whatever the name resolves to", () =>
  withServer(false, 202, async (port, seen) => {
    // hooks.example resolves nowhere: only the address given is dialled.
    const r = await pinnedPost(request(`http://hooks.example:${port}/in?x=1`, ["127.0.0.1"]));
    assert.equal(r.status, 202);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.host, `hooks.example:${port}`);
    assert.equal(seen[0]!.path, "/in?x=1");
    assert.equal(seen[0]!.signature, "t=1,v1=abc");
    assert.equal(seen[0]!.body, request("http://x", []).body, "the body arrives byte for byte");
  }));

Deno.test("pinned post: TLS is verified against the URL's name, not the address", () =>
  withServer(true, 200, async (port, seen) => {
    const r = await pinnedPost(request(`https://hooks.example:${port}/billing`, ["127.0.0.1"]), {
      caCerts: [TEST_CA],
    });
    assert.equal(r.status, 200);
    assert.equal(seen[0]!.host, `hooks.example:${port}`);
    await assert.rejects(
      pinnedPost(request(`https://other.example:${port}/billing`, ["127.0.0.1"]), {
        caCerts: [TEST_CA],
      }),
      "a certificate for another name is refused",
    );
    await assert.rejects(
      pinnedPost(request(`https://hooks.example:${port}/billing`, ["127.0.0.1"])),
      "a certificate from an untrusted issuer is refused",
    );
    assert.equal(seen.length, 1, "nothing was sent over a refused connection");
  }));

Deno.test("pinned post: the approved addresses are tried in turn", () =>
  withServer(false, 204, async (port, seen) => {
    // Nothing listens on 127.0.0.2 (the server is bound to 127.0.0.1 only).
    const r = await pinnedPost(
      request(`http://hooks.example:${port}/`, ["127.0.0.2", "127.0.0.1"]),
    );
    assert.equal(r.status, 204);
    assert.equal(seen.length, 1);
    await assert.rejects(pinnedPost(request(`http://hooks.example:${port}/`, [])), /no approved/);
  }));

Deno.test("pinned post: a redirect is answered as its status, never followed", () =>
  withServer(false, 302, async (port, seen) => {
    const r = await pinnedPost(request(`http://hooks.example:${port}/`, ["127.0.0.1"]));
    assert.equal(r.status, 302);
    assert.equal(seen.length, 1);
  }));

/** A raw TCP peer: reads the request head, then answers `reply` (or nothing, when null). */
async function withRawPeer(
  reply: string | null,
  body: (port: number, received: Promise<void>) => Promise<void>,
): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let conn: Deno.Conn | null = null;
  let signalReceived = () => {};
  const received = new Promise<void>((r) => (signalReceived = r));
  const serving = (async () => {
    conn = await listener.accept();
    const buffer = new Uint8Array(4096);
    let text = "";
    while (!text.includes("\r\n\r\n")) {
      const n = await conn.read(buffer);
      if (n === null) return;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    signalReceived();
    if (reply !== null) {
      await conn.write(new TextEncoder().encode(reply));
      conn.close();
    }
  })();
  try {
    await body((listener.addr as Deno.NetAddr).port, received);
  } finally {
    listener.close();
    try {
      (conn as Deno.Conn | null)?.close();
    } catch {
      // closed by the peer's end already
    }
    await serving.catch(() => {});
  }
}

Deno.test("pinned post: interim 1xx heads are skipped; the final status counts", () =>
  withRawPeer(
    "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    async (port) => {
      const r = await pinnedPost(request(`http://hooks.example:${port}/`, ["127.0.0.1"]));
      assert.equal(r.status, 200);
    },
  ));

Deno.test("pinned post: an answer that is not HTTP, or none, is an error", async () => {
  await withRawPeer("SSH-2.0-OpenSSH_9.2\r\n\r\n", async (port) => {
    await assert.rejects(
      pinnedPost(request(`http://hooks.example:${port}/`, ["127.0.0.1"])),
      /not an HTTP response/,
    );
  });
  await withRawPeer("", async (port) => {
    await assert.rejects(
      pinnedPost(request(`http://hooks.example:${port}/`, ["127.0.0.1"])),
      /closed without a response/,
    );
  });
});

Deno.test("pinned post: an abort ends an attempt the peer never answers", () =>
  withRawPeer(null, async (port, received) => {
    const abort = new AbortController();
    const sending = pinnedPost(
      request(`http://hooks.example:${port}/`, ["127.0.0.1"], abort.signal),
    );
    await received;
    abort.abort(new Error("timeout"));
    await assert.rejects(sending, /timeout/);
  }));

Deno.test("pinned post: a header that would split the request is refused before connecting", async () => {
  const bad = {
    ...request("http://hooks.example:9/", ["127.0.0.1"]),
    headers: { "X-A": "1\r\nX-B: 2" },
  };
  await assert.rejects(pinnedPost(bad), /bad header: X-A/);
});

Deno.test("pinned post: an abort as the connection opens still ends a TLS attempt the peer never answers", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const abort = new AbortController();
  const peers: Deno.Conn[] = [];
  // The attempt's time-out fires the moment the peer takes the connection, while the sender is
  // between dialling and starting TLS; the peer then never answers the handshake.
  const accepting = listener.accept().then((conn) => peers.push(conn));
  const sending = pinnedPost(
    request(`https://hooks.example:${port}/`, ["127.0.0.1"], abort.signal),
    { caCerts: [TEST_CA] },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Only a bound on a hang, so that the test fails instead of never ending.
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the attempt outlived its abort")), 5_000);
  });
  try {
    await accepting;
    abort.abort(new Error("timeout"));
    await assert.rejects(Promise.race([sending, hung]), /timeout/);
  } finally {
    clearTimeout(timer);
    listener.close();
    for (const peer of peers) peer.close();
    await sending.catch(() => {});
  }
});
