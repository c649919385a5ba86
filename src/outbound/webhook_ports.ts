/**
 * The ports a webhook address may use besides 443: those the operator allows (PUT
 * /operator/settings `webhook_ports`), never one a request from inside the service could harm.
 */

/**
 * Ports at or above 1024 that are never a webhook receiver's, whatever the operator allows: the
 * Fetch standard's "bad ports" up there, and the usual ports of data stores, message brokers and
 * control planes a request from inside the service could reach and harm (SSRF).
 */
const NEVER_SAFE_PORTS: ReadonlyMap<number, string> = new Map([
  [1433, "SQL Server"],
  [1521, "Oracle"],
  [1719, "H.323"],
  [1720, "H.323"],
  [1723, "PPTP"],
  [2049, "NFS"],
  [2375, "Docker API"],
  [2376, "Docker API"],
  [2379, "etcd"],
  [2380, "etcd"],
  [3306, "MySQL"],
  [3389, "RDP"],
  [3659, "Apple SASL"],
  [4045, "NFS lock"],
  [4190, "ManageSieve"],
  [4222, "NATS"],
  [5060, "SIP"],
  [5061, "SIP"],
  [5432, "PostgreSQL"],
  [5672, "AMQP"],
  [5900, "VNC"],
  [6000, "X11"],
  [6379, "Redis"],
  [6443, "Kubernetes API"],
  [6566, "SANE"],
  [6665, "IRC"],
  [6666, "IRC"],
  [6667, "IRC"],
  [6668, "IRC"],
  [6669, "IRC"],
  [6679, "IRC"],
  [6697, "IRC"],
  [8500, "Consul"],
  [9042, "Cassandra"],
  [9092, "Kafka"],
  [9200, "Elasticsearch"],
  [9300, "Elasticsearch"],
  [10080, "Amanda"],
  [10250, "kubelet"],
  [11211, "memcached"],
  [27017, "MongoDB"],
]);

/** Ports the operator may allow at once: a few receivers' ports, not a range opened. */
export const WEBHOOK_PORTS_MAX = 16;

/**
 * Why `port` may never be allowed for webhooks, or null when the operator may allow it: not a
 * port; a system port (below 1024: SSH 22, SMTP 25, DNS 53... are no webhook's, and 443 needs no
 * allowing); or one of NEVER_SAFE_PORTS.
 */
export function unsafePort(port: number): string | null {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return "not a port";
  if (port === 443) return null;
  if (port < 1024) return "a system port (below 1024) is never a webhook's";
  const service = NEVER_SAFE_PORTS.get(port);
  return service === undefined ? null : `the ${service} port is never a webhook's`;
}

/** Whether an address on `port` (not 443) may be called under `rules`. */
export function portAllowed(
  port: number,
  rules: { allowedPorts?: readonly number[] | undefined },
): boolean {
  return (rules.allowedPorts ?? []).includes(port) && unsafePort(port) === null;
}
