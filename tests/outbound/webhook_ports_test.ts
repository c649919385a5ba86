import assert from "node:assert/strict";
import { checkDeliveryTarget, checkWebhookUrl } from "../../src/outbound/url_guard.ts";
import { unsafePort } from "../../src/outbound/webhook_ports.ts";

const PUBLIC = ["93.184.216.34"];
const resolve = () => Promise.resolve(PUBLIC);

Deno.test("webhook ports: a port is accepted only while the operator allows it", async () => {
  const url = "https://hooks.example.com:8443/h";
  assert.equal(checkWebhookUrl(url, { allowLoopback: false }).ok, false);
  assert.equal(checkWebhookUrl(url, { allowLoopback: false, allowedPorts: [9443] }).ok, false);
  const ok = checkWebhookUrl(url, { allowLoopback: false, allowedPorts: [8443] });
  assert.equal(ok.ok && ok.url.href, url);
  const target = await checkDeliveryTarget(url, {
    allowLoopback: false,
    allowedPorts: [8443],
    resolve,
  });
  assert.deepEqual(target.ok && target.addresses, PUBLIC);
  assert.equal((await checkDeliveryTarget(url, { allowLoopback: false, resolve })).ok, false);
  // 443 needs no allowing, and the other rules still hold on an allowed port.
  assert.equal(checkWebhookUrl("https://hooks.example.com/h", { allowLoopback: false }).ok, true);
  for (const refused of ["http://hooks.example.com:8443/h", "https://10.0.0.1:8443/h"]) {
    assert.equal(
      checkWebhookUrl(refused, { allowLoopback: false, allowedPorts: [8443] }).ok,
      false,
    );
  }
});

Deno.test("webhook ports: system ports and data stores' ports are never allowed, even if listed", async () => {
  for (const port of [1, 22, 25, 53, 80, 110, 1023, 2375, 3306, 5432, 6379, 6443, 11211, 27017]) {
    assert.notEqual(unsafePort(port), null, String(port));
    const url = `https://hooks.example.com:${port}/h`;
    assert.equal(checkWebhookUrl(url, { allowLoopback: false, allowedPorts: [port] }).ok, false);
    const target = await checkDeliveryTarget(url, {
      allowLoopback: false,
      allowedPorts: [port],
      resolve,
    });
    assert.equal(target.ok, false, url);
  }
  for (const port of [0, -1, 1.5, 65_536]) assert.equal(unsafePort(port), "not a port");
  for (const port of [443, 1024, 4443, 8443, 9443, 65_535]) assert.equal(unsafePort(port), null);
  assert.match(unsafePort(6379)!, /Redis/);
});
