/**
 * Webhook addresses must be public HTTPS: no credentials, no private, loopback, link-local or
 * metadata address (shopping 2.1; courier 4.6). This is the check of the address as written;
 * delivery repeats it after DNS resolution at every attempt.
 */

export type UrlVerdict = { readonly ok: true; readonly url: URL } | {
  readonly ok: false;
  readonly message: string;
};

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data"]);

export function checkWebhookUrl(raw: string, options: { allowLoopback: boolean }): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `not a URL: ${raw}` };
  }
  if (url.username || url.password) {
    return { ok: false, message: "credentials are not allowed in the URL" };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const loopbackAllowed = options.allowLoopback && url.protocol === "http:" &&
    (host === "127.0.0.1" || host === "localhost");
  if (loopbackAllowed) return { ok: true, url };
  if (url.protocol !== "https:") return { ok: false, message: `must be https: ${url.protocol}` };
  if (host === "localhost" || host.endsWith(".localhost") || METADATA_HOSTS.has(host)) {
    return { ok: false, message: `not a public host: ${host}` };
  }
  if (isPrivateAddress(host)) return { ok: false, message: `not a public address: ${host}` };
  return { ok: true, url };
}

/** True for loopback, private, link-local (incl. cloud metadata), CGNAT, unspecified addresses. */
export function isPrivateAddress(host: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) || a >= 224;
  }
  if (host.includes(":")) {
    const h = host.toLowerCase();
    if (h === "::" || h === "::1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    if (mapped) return isPrivateAddress(mapped[1]!);
    return h.startsWith("fc") || h.startsWith("fd") || h.startsWith("fe80") || h.startsWith("ff");
  }
  return false;
}
