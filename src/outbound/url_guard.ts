/**
 * Webhook addresses must be public HTTPS: no credentials, no private, loopback, link-local or
 * metadata address (shopping 2.1; courier 4.6), on port 443 or another the operator allows
 * (never an unsafe one: webhook_ports.ts). `checkWebhookUrl` checks the address as written
 * (when it is saved); `checkDeliveryTarget` repeats that and checks every address the name
 * resolves to, at every delivery attempt, so a name that later points inward (DNS rebinding) is
 * refused.
 */

import { portAllowed } from "./webhook_ports.ts";

export type UrlVerdict = { readonly ok: true; readonly url: URL } | {
  readonly ok: false;
  readonly message: string;
};

/** What an address is checked against, beside the fixed rules. */
export interface UrlRules {
  /** ALLOW_LOOPBACK_WEBHOOKS: http://127.0.0.1 and http://localhost (tests, local runs). */
  readonly allowLoopback: boolean;
  /**
   * Ports besides 443 the operator allows (PUT /operator/settings `webhook_ports`). A port
   * `unsafePort` names is refused even if listed.
   */
  readonly allowedPorts?: readonly number[] | undefined;
}

/** A resolver: every A and AAAA address of a host name. */
export type Resolve = (host: string) => Promise<string[]>;

/** A delivery attempt gives up on a name that does not resolve within this time. */
export const DNS_RESOLVE_TIMEOUT_MS = 5_000;

/**
 * Last labels of names that can never be public hosts, each for a stated reason (a single-label
 * name, such as `localhost`, `metadata` or `ip6-localhost`, is refused on its own: ICANN SAC053
 * and its 2013 resolution bar dotless names from the public root, so one is always local).
 * Names under a delegated suffix (`example.com`) are left to the lookup at each attempt.
 */
const NON_PUBLIC_SUFFIXES: ReadonlyMap<string, string> = new Map([
  // RFC 6761 section 6: special-use names, never delegated.
  ["localhost", "RFC 6761 loopback name"],
  ["test", "RFC 6761 testing name"],
  ["invalid", "RFC 6761 invalid name"],
  ["example", "RFC 6761 documentation name"],
  // RFC 6762: multicast DNS on the local link (Kubernetes `cluster.local` too).
  ["local", "RFC 6762 link-local (mDNS) name"],
  // RFC 8375: home networks (`home.arpa`); the rest of .arpa is infrastructure (RFC 3172).
  ["arpa", "RFC 3172 infrastructure name (home.arpa: RFC 8375 home networks)"],
  // RFC 7686 Tor onion services; RFC 9476 names resolved outside DNS.
  ["onion", "RFC 7686 onion name"],
  ["alt", "RFC 9476 non-DNS name"],
  // ICANN reserved .internal for private use (board resolution 2024.07.29.06); it is where
  // cloud metadata (metadata.google.internal) and Docker (host.docker.internal) live.
  ["internal", "ICANN private-use name"],
  // ICANN will not delegate these: widely used privately, a name-collision risk (NGPC 2014,
  // board resolution 2018.02.04.12 for .corp, .home, .mail).
  ["corp", "ICANN undelegated private-use name"],
  ["home", "ICANN undelegated private-use name"],
  ["mail", "ICANN undelegated private-use name"],
  // RFC 6762 appendix G: private names in wide use on local networks, not in the root zone.
  ["intranet", "private-use name (RFC 6762 appendix G)"],
  ["private", "private-use name (RFC 6762 appendix G)"],
  ["lan", "private-use name (RFC 6762 appendix G)"],
  // Operating-system and cluster conventions: /etc/hosts `localhost.localdomain`, Kubernetes
  // service names (`<service>.<namespace>.svc`); neither is in the root zone.
  ["localdomain", "local host-file name"],
  ["svc", "Kubernetes in-cluster name"],
]);
/** What `localhost` stands for when loopback webhooks are allowed (tests and local runs). */
const LOOPBACK_ADDRESSES = ["127.0.0.1", "::1"];

/**
 * Checks an address as written. On success `url.href` is what was checked, and what is kept: the
 * URL parser drops tabs and line breaks and normalizes, so the text as sent is never stored.
 */
export function checkWebhookUrl(raw: string, options: UrlRules): UrlVerdict {
  // Control characters: the parser would drop some silently (a kept `\n` reaches a log or a
  // header), so the address is refused rather than half-read.
  // deno-lint-ignore no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(raw);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase();
    return { ok: false, message: `control characters are not allowed in the URL: U+${code}` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `not a URL: ${raw}` };
  }
  if (url.username || url.password) {
    return { ok: false, message: "credentials are not allowed in the URL" };
  }
  const host = hostOf(url);
  if (isAllowedLoopback(url, options)) return { ok: true, url };
  if (url.protocol !== "https:") return { ok: false, message: `must be https: ${url.protocol}` };
  // spec: courier 8, public HTTPS: the HTTPS port (an explicit :443 is dropped by the parser),
  // or another the operator allows.
  if (url.port !== "" && !portAllowed(Number(url.port), options)) {
    return {
      ok: false,
      message: `must use the HTTPS port (443) or a port the operator allows: ${url.port}`,
    };
  }
  if (isPrivateAddress(host)) return { ok: false, message: `not a public address: ${host}` };
  if (!isIpLiteral(host)) {
    const why = nonPublicName(host);
    if (why) return { ok: false, message: `not a public host name: ${host} (${why})` };
  }
  return { ok: true, url };
}

/** Why a host name can never be a public host (courier 8: public HTTPS only), or null. */
function nonPublicName(host: string): string | null {
  const labels = host.replace(/\.$/, "").split(".");
  // spec: courier 8, public HTTPS only: `localhost..` is no host name (one trailing dot is the
  // fully qualified form; an empty label anywhere else hid the last label from the check below).
  if (labels.includes("")) return "an empty label is no host name";
  if (labels.length < 2) return "a single-label name is never public";
  return NON_PUBLIC_SUFFIXES.get(labels.at(-1)!) ?? null;
}

/**
 * The check run before EVERY delivery attempt: the static checks, then every address the host
 * resolves to (A and AAAA). One non-public address refuses the target, as does a name that
 * resolves to nothing. On success `addresses` lists what was checked, for the caller to connect
 * to (connecting by name resolves again, which a rebinding name can still exploit).
 */
export async function checkDeliveryTarget(
  raw: string,
  options: UrlRules & { resolve?: Resolve | undefined },
): Promise<UrlVerdict & { addresses?: string[] }> {
  const verdict = checkWebhookUrl(raw, options);
  if (!verdict.ok) return verdict;
  const { url } = verdict;
  const host = hostOf(url);
  if (isAllowedLoopback(url, options)) {
    return { ok: true, url, addresses: host === "localhost" ? [...LOOPBACK_ADDRESSES] : [host] };
  }
  if (isIpLiteral(host)) return { ok: true, url, addresses: [host] };
  let addresses: string[];
  try {
    addresses = [...new Set(await (options.resolve ?? resolveDns)(host))];
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `could not resolve host: ${host}: ${reason}` };
  }
  if (addresses.length === 0) return { ok: false, message: `host resolves to no address: ${host}` };
  for (const address of addresses) {
    const normal = address.toLowerCase();
    if (!isIpLiteral(normal) || isPrivateAddress(normal)) {
      // The address is not said: this message is the attempt's error, shown to the tenant, and
      // our resolver may answer names of private zones the tenant cannot query itself.
      return { ok: false, message: `host resolves to a non-public address: ${host}` };
    }
  }
  return { ok: true, url, addresses };
}

/**
 * True for every address a webhook must never reach: unspecified, loopback, private, CGNAT,
 * link-local (incl. cloud metadata), benchmarking, documentation, multicast and reserved IPv4;
 * for IPv6 anything outside global unicast 2000::/3 (loopback, ULA fc00::/7 incl. fd00:ec2::254,
 * link-local fe80::/10, multicast ff00::/8), special ranges inside it, and IPv4-mapped, NAT64
 * (64:ff9b::/96) or 6to4 forms of a refused IPv4 address. Text that looks like an address but
 * does not parse counts as private (fail closed); a host name is not an address (false).
 */
export function isPrivateAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h.includes(":")) {
    const v6 = parseIPv6(h);
    return v6 === null || isPrivateV6(v6);
  }
  if (/^[0-9.]+$/.test(h)) {
    const v4 = parseIPv4(h);
    return v4 === null || isPrivateV4(v4);
  }
  return false;
}

/** [network, prefix length] of IPv4 ranges that are not public (RFC 6890 and friends). */
const PRIVATE_V4_RANGES: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // CGNAT (also Alibaba metadata 100.100.100.200)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

/** IPv6 ranges inside 2000::/3 (global unicast) that are not public. */
const PRIVATE_V6_IN_GLOBAL_RANGES: readonly (readonly [string, number])[] = [
  ["2001::", 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking)
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation
];

const PRIVATE_V4 = PRIVATE_V4_RANGES.map(([network, bits]) => {
  const mask = (0xffffffff << (32 - bits)) >>> 0;
  return { network: (parseIPv4(network)! & mask) >>> 0, mask };
});
const PRIVATE_V6_IN_GLOBAL = PRIVATE_V6_IN_GLOBAL_RANGES.map(([network, bits]) => ({
  network: parseIPv6(network)!,
  bits,
}));

function isPrivateV4(address: number): boolean {
  return PRIVATE_V4.some(({ network, mask }) => ((address & mask) >>> 0) === network);
}

function isPrivateV6(address: bigint): boolean {
  const lowV4 = Number(address & 0xffffffffn);
  if (inV6(address, "::ffff:0:0", 96)) return isPrivateV4(lowV4); // IPv4-mapped
  if (inV6(address, "64:ff9b::", 96)) return isPrivateV4(lowV4); // NAT64
  if (inV6(address, "2002::", 16)) return isPrivateV4(Number((address >> 80n) & 0xffffffffn)); // 6to4
  // Outside global unicast: ::, ::1, ::/96, 64:ff9b:1::/48, fc00::/7, fe80::/10, ff00::/8...
  if (!inV6(address, "2000::", 3)) return true;
  return PRIVATE_V6_IN_GLOBAL.some(({ network, bits }) => inV6(address, network, bits));
}

function inV6(address: bigint, network: bigint | string, bits: number): boolean {
  const shift = BigInt(128 - bits);
  const base = typeof network === "string" ? parseIPv6(network)! : network;
  return address >> shift === base >> shift;
}

/** Strict dotted decimal (what URL and resolvers produce); null otherwise. */
function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** RFC 4291 text form (with `::` and a dotted IPv4 tail) to a 128-bit number; null otherwise. */
function parseIPv6(text: string): bigint | null {
  let groups = text;
  let tail: number[] = [];
  const lastColon = groups.lastIndexOf(":");
  if (groups.includes(".", lastColon)) {
    const v4 = parseIPv4(groups.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    const prefix = groups.slice(0, lastColon + 1); // "::ffff:" or "::" or "1:2:3:4:5:6:"
    groups = prefix.endsWith("::") ? prefix : prefix.slice(0, -1);
  }
  const halves = groups.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const fields: number[] = [];
  for (const field of [...head, ...new Array<string>(8 - explicit).fill("0"), ...rest]) {
    if (!/^[0-9a-f]{1,4}$/.test(field)) return null;
    fields.push(parseInt(field, 16));
  }
  let value = 0n;
  for (const field of [...fields, ...tail]) value = (value << 16n) | BigInt(field);
  return value;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

function isIpLiteral(host: string): boolean {
  return host.includes(":") ? parseIPv6(host) !== null : parseIPv4(host) !== null;
}

/** ALLOW_LOOPBACK_WEBHOOKS permits exactly http://127.0.0.1:* and http://localhost:*. */
function isAllowedLoopback(url: URL, options: { allowLoopback: boolean }): boolean {
  const host = hostOf(url);
  return options.allowLoopback && url.protocol === "http:" &&
    (host === "127.0.0.1" || host === "localhost");
}

/** A and AAAA records, merged; a name with neither resolves to nothing. */
async function resolveDns(host: string): Promise<string[]> {
  const signal = AbortSignal.timeout(DNS_RESOLVE_TIMEOUT_MS);
  const results = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  const addresses = results.flatMap((r) => r.status === "fulfilled" ? r.value : []);
  const failure = results.find((r) => r.status === "rejected");
  if (addresses.length === 0 && failure && !isNoRecords(failure.reason)) throw failure.reason;
  return addresses;
}

function isNoRecords(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}
