import assert from "node:assert/strict";
import {
  checkDeliveryTarget,
  checkWebhookUrl,
  isPrivateAddress,
  type Resolve,
} from "../../src/outbound/url_guard.ts";

const PUBLIC_V4 = "93.184.215.14";
const PUBLIC_V6 = "2606:2800:21f:cb07:6820:80da:af6b:8b2c";

/** A resolver from a fixed table that records every name it is asked for (no real DNS). */
function dns(table: Record<string, string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    return Promise.resolve(table[host] ?? []);
  };
  return Object.assign(resolve, { asked });
}

function target(url: string, resolve: Resolve, allowLoopback = false) {
  return checkDeliveryTarget(url, { allowLoopback, resolve });
}

function refusedMessage(verdict: { ok: boolean; message?: string }): string {
  assert.equal(verdict.ok, false);
  return verdict.message ?? "";
}

Deno.test("isPrivateAddress: refused IPv4 ranges and their edges", () => {
  const refused = [
    "0.0.0.0",
    "0.255.255.255",
    "10.0.0.1",
    "100.64.0.0",
    "100.100.100.200",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.0.1",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "203.0.113.9",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
  ];
  for (const address of refused) assert.equal(isPrivateAddress(address), true, address);
  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    PUBLIC_V4,
    "11.0.0.1",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.1",
    "169.253.255.255",
    "169.255.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.167.255.255",
    "192.169.0.1",
    "223.255.255.255",
  ];
  for (const address of allowed) assert.equal(isPrivateAddress(address), false, address);
});

Deno.test("isPrivateAddress: IPv6 ranges, mapped, NAT64 and 6to4 forms", () => {
  const refused = [
    "::",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "::127.0.0.1",
    "fe80::1",
    "FE80::1",
    "febf:ffff::1",
    "fec0::1",
    "fc00::1",
    "fd12:3456:789a::1",
    "fd00:ec2::254",
    "fd00:ec2:0:0:0:0:0:254",
    "ff02::1",
    "ff05::1:3",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "::ffff:c0a8:101",
    "0:0:0:0:0:ffff:192.168.1.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:1::808:808",
    "2002:c0a8:101::1",
    "2002:7f00:1::",
    "2001:db8::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "100::1",
    "1::",
  ];
  for (const address of refused) assert.equal(isPrivateAddress(address), true, address);
  const allowed = [
    PUBLIC_V6,
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ];
  for (const address of allowed) assert.equal(isPrivateAddress(address), false, address);
});

Deno.test("isPrivateAddress: malformed addresses fail closed; host names are not addresses", () => {
  for (
    const text of [
      "1::2::3",
      "fe80::1%eth0",
      "12345::1",
      "::ffff:300.1.1.1",
      "1:2:3:4:5:6:7:8:9",
      "1.2.3",
      "01.2.3.4",
    ]
  ) {
    assert.equal(isPrivateAddress(text), true, text);
  }
  for (const name of ["example.com", "hooks.example.com", "1.example.com"]) {
    assert.equal(isPrivateAddress(name), false, name);
  }
});

Deno.test("checkWebhookUrl: static checks keep refusing what they refused", () => {
  assert.equal(checkWebhookUrl("https://hooks.example.com/x", { allowLoopback: false }).ok, true);
  const refused = [
    "not a url",
    "http://hooks.example.com/x",
    "https://user:pass@hooks.example.com/x",
    "https://10.0.0.5/x",
    "https://169.254.169.254/",
    "https://localhost/x",
    "https://localhost./x",
    "https://api.localhost/x",
    "https://metadata.google.internal/x",
    "https://metadata.google.internal./x",
    // The URL parser writes these as 127.0.0.1 and [::ffff:7f00:1].
    "https://0x7f000001/x",
    "https://2130706433/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://[fd00:ec2::254]/",
    "https://[fe80::1]/x",
    "ftp://hooks.example.com/x",
  ];
  for (const url of refused) {
    assert.equal(checkWebhookUrl(url, { allowLoopback: false }).ok, false, url);
  }
});

Deno.test("checkWebhookUrl: other spellings of loopback, private and metadata addresses are refused", () => {
  // The URL parser writes each as the address it means; the guard sees that address.
  const refused = {
    "https://127.1/x": "127.0.0.1",
    "https://0x7f.0.0.1/x": "127.0.0.1",
    "https://017700000001/x": "127.0.0.1",
    "https://0177.0.0.1/x": "127.0.0.1",
    "https://127.0.0.1./x": "127.0.0.1",
    "https://127.0.0.1#@hooks.example.com/x": "127.0.0.1",
    "https://0.0.0.0/x": "0.0.0.0",
    "https://0/x": "0.0.0.0",
    "https://[::]/x": "::",
    "https://[::1]/x": "::1",
    "https://[::ffff:7f00:1]/x": "::ffff:7f00:1",
    "https://[0:0:0:0:0:ffff:a9fe:a9fe]/x": "::ffff:a9fe:a9fe",
    "https://[64:ff9b::a9fe:a9fe]/x": "64:ff9b::a9fe:a9fe",
    "https://[2002:a9fe:a9fe::]/x": "2002:a9fe:a9fe::",
    "https://[fd00::1]/x": "fd00::1",
    "https://100.64.0.1/x": "100.64.0.1",
    "https://224.0.0.1/x": "224.0.0.1",
  };
  for (const [url, address] of Object.entries(refused)) {
    const message = refusedMessage(checkWebhookUrl(url, { allowLoopback: false }));
    assert.equal(message, `not a public address: ${address}`, url);
  }
  // A zone index is no part of a URL's host: not a URL at all.
  assert.match(
    refusedMessage(checkWebhookUrl("https://[fe80::1%25eth0]/x", { allowLoopback: false })),
    /^not a URL/,
  );
  // Credentials are refused before the host is looked at, loopback allowance or not.
  for (const allowLoopback of [false, true]) {
    const verdict = checkWebhookUrl("http://evil@127.0.0.1:8080/x", { allowLoopback });
    assert.equal(refusedMessage(verdict), "credentials are not allowed in the URL");
  }
});

Deno.test("checkWebhookUrl: names that cannot be public hosts are refused by name", () => {
  const refused = [
    // Single-label names: ICANN never delegates a dotless name (SAC053), so these are local.
    "https://intranet/h",
    "https://ip6-localhost/h",
    "https://ip6-loopback./h",
    // RFC 6761 special-use names.
    "https://foo.localhost/h",
    "https://foo.test/h",
    "https://foo.invalid/h",
    "https://foo.example/h",
    // RFC 6762 multicast DNS, and the private-use names it lists (appendix G).
    "https://foo.local/h",
    "https://foo.cluster.local/h",
    "https://foo.intranet/h",
    "https://foo.internal/h",
    "https://host.docker.internal/h",
    "https://FOO.Internal./h",
    "https://foo.private/h",
    "https://foo.corp/h",
    "https://foo.home/h",
    "https://foo.lan/h",
    // RFC 8375 home networks; RFC 7686 Tor; RFC 9476 non-DNS names.
    "https://printer.home.arpa/h",
    "https://x.onion/h",
    "https://x.alt/h",
    // Kubernetes in-cluster names and /etc/hosts conventions: undelegated, internal.
    "https://kubernetes.default.svc/h",
    "https://localhost.localdomain/h",
    "https://mail.mail/h",
  ];
  for (const url of refused) {
    const verdict = checkWebhookUrl(url, { allowLoopback: false });
    assert.match(refusedMessage(verdict), /not a public host name/, url);
  }
  const accepted = [
    "https://hooks.example.com/x",
    "https://corp.example.com/x",
    "https://local.example.org/x",
    "https://internal.example.net/x",
    "https://hooks.example.com./x",
    "https://xn--bcher-kva.com/x",
  ];
  for (const url of accepted) {
    assert.equal(checkWebhookUrl(url, { allowLoopback: false }).ok, true, url);
  }
});

Deno.test("checkWebhookUrl: a name with an empty label is no host name and is refused when saved", () => {
  // spec: courier 8, public HTTPS only: `localhost..` ends in an empty label, so the check of its
  // last label saw "" and let it through; no resolver takes such a name, so it could never be
  // delivered to.
  const refused = [
    "https://localhost../h",
    "https://metadata.google.internal../h",
    "https://foo.internal../h",
    "https://hooks..example.com/h",
    "https://hooks.example.com../h",
  ];
  for (const url of refused) {
    const verdict = checkWebhookUrl(url, { allowLoopback: false });
    assert.match(refusedMessage(verdict), /not a public host name: .*empty label/, url);
  }
  // One trailing dot is the fully qualified form of a name, still accepted.
  assert.equal(checkWebhookUrl("https://hooks.example.com./h", { allowLoopback: false }).ok, true);
});

Deno.test("checkDeliveryTarget: public names built to resolve inward are refused at the attempt", async () => {
  // nip.io and localtest.me are public names whose addresses are private: only the lookup at
  // each attempt can see that (and a name may change its answer after it is saved).
  const resolve = dns({
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "10.0.0.1.nip.io": ["10.0.0.1"],
    "169.254.169.254.nip.io": ["169.254.169.254"],
    "localtest.me": ["127.0.0.1", "::1"],
  });
  for (
    const host of ["127.0.0.1.nip.io", "10.0.0.1.nip.io", "169.254.169.254.nip.io", "localtest.me"]
  ) {
    assert.equal(checkWebhookUrl(`https://${host}/h`, { allowLoopback: false }).ok, true, host);
    const message = refusedMessage(await target(`https://${host}/h`, resolve));
    assert.match(message, /non-public address/, host);
  }
});

Deno.test("checkDeliveryTarget: a public name with public addresses is accepted", async () => {
  const resolve = dns({ "hooks.example.com": [PUBLIC_V4, PUBLIC_V6, PUBLIC_V4] });
  const verdict = await target("https://hooks.example.com/courier", resolve);
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.addresses, [PUBLIC_V4, PUBLIC_V6]);
  assert.deepEqual(resolve.asked, ["hooks.example.com"]);
});

Deno.test("checkDeliveryTarget: a public name resolving to a private address is refused, the address unsaid", async () => {
  // The refusal is the attempt's error, which the tenant reads in its outbox: the private
  // address our resolver found (a private zone the tenant cannot query) stays with us.
  const resolve = dns({
    "rebind.example.com": ["10.0.0.7"],
    "odd.example.com": [PUBLIC_V4, "not-an-address"],
  });
  const message = refusedMessage(await target("https://rebind.example.com/hook", resolve));
  assert.equal(message, "host resolves to a non-public address: rebind.example.com");
  const odd = refusedMessage(await target("https://odd.example.com/hook", resolve));
  assert.equal(odd, "host resolves to a non-public address: odd.example.com");
});

Deno.test("checkDeliveryTarget: is re-checked at every attempt (DNS rebinding)", async () => {
  let answer = [PUBLIC_V4];
  const resolve = () => Promise.resolve(answer);
  assert.equal((await target("https://flip.example.com/", resolve)).ok, true);
  answer = ["127.0.0.1"];
  assert.equal((await target("https://flip.example.com/", resolve)).ok, false);
});

Deno.test("checkDeliveryTarget: one private address among public ones refuses the name", async () => {
  const resolve = dns({
    "mixed4.example.com": [PUBLIC_V4, "192.168.0.10"],
    "mixed6.example.com": [PUBLIC_V6, "fd00::1"],
    "mixed46.example.com": [PUBLIC_V4, "::1"],
  });
  for (const host of ["mixed4", "mixed6", "mixed46"]) {
    const message = refusedMessage(await target(`https://${host}.example.com/`, resolve));
    assert.match(
      message,
      /^host resolves to a non-public address: mixed\d+\.example\.com$/,
    );
  }
  assert.deepEqual(resolve.asked, [
    "mixed4.example.com",
    "mixed6.example.com",
    "mixed46.example.com",
  ]);
});

Deno.test("checkDeliveryTarget: cloud metadata addresses are refused, as names or literals", async () => {
  const resolve = dns({
    "meta4.example.com": ["169.254.169.254"],
    "meta6.example.com": ["fd00:ec2::254"],
    "meta-mapped.example.com": ["::ffff:169.254.169.254"],
  });
  for (const host of ["meta4", "meta6", "meta-mapped"]) {
    assert.equal((await target(`https://${host}.example.com/`, resolve)).ok, false, host);
  }
  for (const url of ["https://169.254.169.254/latest/meta-data/", "https://[fd00:ec2::254]/"]) {
    assert.equal((await target(url, resolve)).ok, false, url);
  }
  assert.equal((await target("https://metadata.google.internal/", resolve)).ok, false);
  // Refused before any lookup.
  assert.deepEqual(resolve.asked, [
    "meta4.example.com",
    "meta6.example.com",
    "meta-mapped.example.com",
  ]);
});

Deno.test("checkDeliveryTarget: IPv6 forms of internal addresses are refused", async () => {
  const forms = [
    "::1",
    "::",
    "::ffff:7f00:1",
    "::ffff:127.0.0.1",
    "::FFFF:7F00:1",
    "fe80::1",
    "fc00::5",
    "ff02::1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::10.1.2.3",
  ];
  for (const address of forms) {
    const verdict = await target("https://v6.example.com/", () => Promise.resolve([address]));
    assert.equal(verdict.ok, false, address);
  }
  const literal = await target("https://[2606:4700:4700::1111]/", dns({}));
  assert.equal(literal.ok, true);
  assert.deepEqual(literal.addresses, ["2606:4700:4700::1111"]);
});

Deno.test("checkDeliveryTarget: names resolving to nothing or to garbage are refused", async () => {
  assert.match(
    refusedMessage(await target("https://nowhere.example.com/", dns({}))),
    /resolves to no address: nowhere\.example\.com/,
  );
  const failing = () => Promise.reject(new Error("lookup timed out"));
  assert.match(
    refusedMessage(await target("https://slow.example.com/", failing)),
    /could not resolve host: slow\.example\.com: lookup timed out/,
  );
  const garbage = dns({ "odd.example.com": ["not-an-address"] });
  assert.equal((await target("https://odd.example.com/", garbage)).ok, false);
});

Deno.test("checkDeliveryTarget: static refusals and IP literals need no lookup", async () => {
  const resolve = dns({});
  for (const url of ["http://hooks.example.com/", "https://u:p@hooks.example.com/", "nope"]) {
    assert.equal((await target(url, resolve)).ok, false, url);
  }
  const literal = await target(`https://${PUBLIC_V4}/hook`, resolve);
  assert.equal(literal.ok, true);
  assert.deepEqual(literal.addresses, [PUBLIC_V4]);
  assert.deepEqual(resolve.asked, []);
});

Deno.test("checkDeliveryTarget: loopback only with the flag, and only http 127.0.0.1 or localhost", async () => {
  const resolve = dns({ "public-loop.example.com": ["127.0.0.1"] });
  for (const url of ["http://127.0.0.1:8080/hook", "http://localhost:9000/hook"]) {
    assert.equal((await target(url, resolve, false)).ok, false, url);
    const allowed = await target(url, resolve, true);
    assert.equal(allowed.ok, true, url);
  }
  assert.deepEqual((await target("http://127.0.0.1:8080/", resolve, true)).addresses, [
    "127.0.0.1",
  ]);
  const stillRefused = [
    "https://127.0.0.1:8443/",
    "https://localhost:8443/",
    "http://127.0.0.2:8080/",
    "http://[::1]:8080/",
    "http://0.0.0.0:8080/",
    "http://hooks.example.com/",
    "https://public-loop.example.com/",
  ];
  for (const url of stillRefused) {
    assert.equal((await target(url, resolve, true)).ok, false, url);
  }
  assert.deepEqual(resolve.asked, ["public-loop.example.com"]);
});

Deno.test("url guard: control characters and ports other than HTTPS's are refused; the checked URL is kept", () => {
  for (
    const raw of [
      "https://a.example.com/\tx",
      "https://a.example.com/x\r\n",
      "https://a\u007f.example.com/",
    ]
  ) {
    assert.match(
      refusedMessage(checkWebhookUrl(raw, { allowLoopback: false })),
      /control characters/,
    );
  }
  assert.match(
    refusedMessage(checkWebhookUrl("https://a.example.com:8443/", { allowLoopback: false })),
    /HTTPS port \(443\) or a port the operator allows: 8443/,
  );
  const ok = checkWebhookUrl("https://A.example.com:443/x", { allowLoopback: false });
  assert.equal(ok.ok && ok.url.href, "https://a.example.com/x");
  // Loopback delivery in tests keeps its port.
  const loop = checkWebhookUrl("http://127.0.0.1:9999/hook", { allowLoopback: true });
  assert.equal(loop.ok, true);
});
