/**
 * A webhook POST sent to an address the target check approved. `fetch` would resolve the name
 * again, and a rebinding name can answer a public address to the check and an inward one to the
 * connection; here the connection goes to a checked address, and TLS is verified against the
 * URL's host name as usual. HTTP/1.1 with `Connection: close`; only the status line is read.
 */

/** One delivery attempt's request, with the addresses its target check approved. */
export interface OutboundRequest {
  readonly url: URL;
  readonly addresses: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly signal: AbortSignal;
}

export type SendFn = (request: OutboundRequest) => Promise<{ readonly status: number }>;

/** A response head longer than this is not a webhook endpoint's answer. */
const HEAD_BYTES_MAX = 16 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export async function pinnedPost(
  request: OutboundRequest,
  options: { readonly caCerts?: string[] } = {},
): Promise<{ status: number }> {
  const { url, signal } = request;
  const tls = url.protocol === "https:";
  if (!tls && url.protocol !== "http:") throw new Error(`not an http(s) URL: ${url.protocol}`);
  const body = new TextEncoder().encode(request.body);
  const head = new TextEncoder().encode(requestHead(request, body.length));
  const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
  let conn: Deno.Conn | null = null;
  const abort = () => {
    try {
      conn?.close();
    } catch {
      // already closed
    }
  };
  // Each connection is held where the abort reaches it as soon as it exists: an abort that fired
  // while it was being opened (the attempt's time-out) closes it at once, or a peer that never
  // answers the TLS handshake would hold the attempt, and the pump waiting on it, for ever.
  const hold = (opened: Deno.Conn): Deno.Conn => {
    conn = opened;
    if (signal.aborted) abort();
    signal.throwIfAborted();
    return opened;
  };
  signal.throwIfAborted();
  signal.addEventListener("abort", abort, { once: true });
  try {
    const dialled = hold(await connectFirst(request.addresses, port, signal));
    // Verified against the name in the URL, not the address dialled.
    const open = tls
      ? hold(
        await Deno.startTls(dialled as Deno.TcpConn, {
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          ...(options.caCerts ? { caCerts: options.caCerts } : {}),
        }),
      )
      : dialled;
    // One write: a head sent apart from its body could wait on the peer's delayed ACK.
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    await writeAll(open, bytes);
    return { status: await readStatus(open) };
  } catch (e) {
    signal.throwIfAborted();
    throw e;
  } finally {
    signal.removeEventListener("abort", abort);
    abort();
  }
}

function requestHead(request: OutboundRequest, bodyBytes: number): string {
  const { url } = request;
  const lines = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    `Content-Length: ${bodyBytes}`,
    "Connection: close",
  ];
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === "host" || lower === "content-length" || lower === "connection") continue;
    // Our own headers, but a CR or LF in one would split the request: refused, not sent.
    if (!TOKEN.test(name) || /[\r\n\0]/.test(value)) throw new Error(`bad header: ${name}`);
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/** Dials the approved addresses in turn; the first that accepts is used. */
async function connectFirst(
  addresses: readonly string[],
  port: number,
  signal: AbortSignal,
): Promise<Deno.Conn> {
  if (addresses.length === 0) throw new Error("no approved address to connect to");
  let last: unknown;
  for (const address of addresses) {
    signal.throwIfAborted();
    try {
      // The signal also ends a dial nobody answers (a dropped SYN waits minutes otherwise).
      const conn = await Deno.connect({
        hostname: address.replace(/^\[|\]$/g, ""),
        port,
        signal,
      });
      if (signal.aborted) {
        conn.close();
        signal.throwIfAborted();
      }
      return conn;
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}

/** The final status of the response: interim 1xx heads are skipped. */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buffer = new Uint8Array(HEAD_BYTES_MAX);
  let filled = 0;
  let start = 0;
  const decoder = new TextDecoder("latin1");
  for (;;) {
    const text = decoder.decode(buffer.subarray(start, filled));
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const match = /^HTTP\/1\.[01] (\d{3})(?: |\r\n)/.exec(text);
      if (!match) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 40))}`);
      const status = Number(match[1]);
      if (status >= 200) return status;
      start += end + 4;
      continue;
    }
    if (filled === buffer.length) throw new Error(`response head over ${HEAD_BYTES_MAX} bytes`);
    const n = await conn.read(buffer.subarray(filled));
    if (n === null) {
      throw new Error(
        filled === start ? "connection closed without a response" : "response head cut short",
      );
    }
    filled += n;
  }
}
