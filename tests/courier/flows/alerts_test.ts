/**
 * The alerts flow (courier 2.9, 4.4), on a runtime with the alert and evidence file actors alone:
 * resolving with an evidence file stores it content-addressed and keeps its reference as the
 * evidence; an alert that cannot be resolved, or is another courier's, leaves no file behind.
 */
import assert from "node:assert/strict";
import { alertActor } from "../../../actors/courier/alert.ts";
import {
  EVIDENCE_NAME_CHARS_MAX,
  evidenceFileActor,
  evidenceFileId,
} from "../../../actors/courier/evidence_file.ts";
import {
  alertEvidence,
  askAlert,
  raiseAlert,
  resolveAlert,
} from "../../../src/courier/flows/alerts.ts";
import { readEvidence } from "../../../src/courier/flows/evidence.ts";
import { sha256Hex } from "../../../src/domain/secrets.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import type { ActorRuntime } from "../../../src/runtime/runtime.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";

async function withAlerts(work: (runtime: ActorRuntime) => Promise<void>): Promise<void> {
  const t = await openTestRuntime(":memory:", { definitions: [alertActor, evidenceFileActor] });
  try {
    await work(t.runtime);
  } finally {
    await t.close();
  }
}

function raise(runtime: ActorRuntime, tenant: string, key: string) {
  return raiseAlert(runtime, tenant, {
    kind: "no_scan",
    condition_key: key,
    owner: "courier",
    subject: { type: "shipment", id: "WB1" },
    waybill: "WB1",
    message: "no physical scan for 26 hours: WB1",
  });
}

const PHOTO = {
  name: "seal.jpg",
  content_type: "image/jpeg",
  bytes: new TextEncoder().encode("a photo of the broken seal"),
};

async function codeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (e) {
    if (e instanceof Refused) return e.rejection.code;
    throw e;
  }
  return "accepted";
}

Deno.test("alerts flow: a resolution with a file keeps the file's reference as its evidence", () =>
  withAlerts(async (runtime) => {
    const alert = await raise(runtime, "biz_a", "WB1:file");
    const resolved = await resolveAlert(runtime, "biz_a", alert.id, {
      resolution: "seal replaced",
      evidence: "",
      file: PHOTO,
      by: "ops",
    });
    const sha256 = sha256Hex(PHOTO.bytes);
    assert.equal(resolved.status, "resolved");
    assert.equal(resolved.evidence, `file:sha256:${sha256}`);
    assert.deepEqual(resolved.evidence_file, {
      sha256,
      name: "seal.jpg",
      size: PHOTO.bytes.length,
      content_type: "image/jpeg",
    });
    const got = await alertEvidence(runtime, "biz_a", alert.id);
    assert.deepEqual(got.bytes, PHOTO.bytes);
  }));

Deno.test("alerts flow: an alert already resolved, or another courier's, stores no file", () =>
  withAlerts(async (runtime) => {
    const alert = await raise(runtime, "biz_a", "WB1:twice");
    await resolveAlert(runtime, "biz_a", alert.id, {
      resolution: "scanned at the depot",
      evidence: "scan 2026-11-23 09:30",
      by: "ops",
    });
    const withFile = { resolution: "again", evidence: "", file: PHOTO, by: "ops" };
    assert.equal(
      await codeOf(() => resolveAlert(runtime, "biz_a", alert.id, withFile)),
      "alert_already_resolved",
    );
    const fresh = await raise(runtime, "biz_a", "WB1:theirs");
    assert.equal(
      await codeOf(() => resolveAlert(runtime, "biz_b", fresh.id, withFile)),
      "not_found",
    );
    const sha256 = sha256Hex(PHOTO.bytes);
    for (const tenant of ["biz_a", "biz_b"]) {
      assert.equal(await readEvidence(runtime, tenant, sha256), null);
      const r = await runtime.read(evidenceFileActor, tenant, evidenceFileId(tenant, sha256), {
        kind: "get",
      });
      assert.ok(!r.ok || r.reply === undefined || !r.reply.complete, `no file of ${tenant}`);
    }
    // A text resolution has no file to answer.
    assert.equal(await codeOf(() => alertEvidence(runtime, "biz_a", alert.id)), "not_found");
    assert.equal(
      await codeOf(() => askAlert(runtime, "biz_b", alert.id, { kind: "get" })),
      "not_found",
    );
  }));

Deno.test("alerts flow: an evidence file keeps its file name only, never the path the upload sent", () =>
  withAlerts(async (runtime) => {
    const sent = [
      ["C:\\Users\\ops\\Desktop\\seal.jpg", "seal.jpg"],
      ["../../etc/passwd", "passwd"],
      ["../..", "evidence"],
      [`dir/${"n".repeat(EVIDENCE_NAME_CHARS_MAX + 20)}`, "n".repeat(EVIDENCE_NAME_CHARS_MAX)],
    ] as const;
    for (const [i, [name, kept]] of sent.entries()) {
      const alert = await raise(runtime, "biz_a", `WB1:path:${i}`);
      const bytes = new TextEncoder().encode(`a photo of the broken seal ${i}`);
      const resolved = await resolveAlert(runtime, "biz_a", alert.id, {
        resolution: "seal replaced",
        evidence: "",
        file: { ...PHOTO, name, bytes },
        by: "ops",
      });
      assert.equal(resolved.evidence_file?.name, kept, `the alert's file name for ${name}`);
      const stored = await readEvidence(runtime, "biz_a", sha256Hex(bytes));
      assert.equal(stored?.file.name, kept, `the stored file name for ${name}`);
    }
  }));

Deno.test("alerts flow: a text naming a file (file:sha256:<hex>) is evidence only when the courier holds that file", () =>
  withAlerts(async (runtime) => {
    const theirs = await raise(runtime, "biz_b", "WB2:theirs");
    await resolveAlert(runtime, "biz_b", theirs.id, {
      resolution: "seal replaced",
      evidence: "",
      file: PHOTO,
      by: "ops",
    });
    const sha256 = sha256Hex(PHOTO.bytes);
    const alert = await raise(runtime, "biz_a", "WB1:named");
    const named = (hex: string) => ({
      resolution: "seal replaced",
      evidence: `file:sha256:${hex}`,
      by: "ops",
    });
    // No such file, and another courier's: nothing to read back, so no evidence.
    for (const hex of ["ab".repeat(32), sha256, "not-a-hash"]) {
      assert.equal(
        await codeOf(() => resolveAlert(runtime, "biz_a", alert.id, named(hex))),
        "validation_failed",
        hex,
      );
    }
    // Another courier's alert is not found first, whatever the text names.
    assert.equal(
      await codeOf(() => resolveAlert(runtime, "biz_b", alert.id, named(sha256))),
      "not_found",
    );
    const open = await askAlert(runtime, "biz_a", alert.id, { kind: "get" });
    assert.equal(open.status, "open");

    // The courier's own file, named: the alert's evidence is that file, read back as uploaded.
    const mine = await raise(runtime, "biz_a", "WB1:mine");
    await resolveAlert(runtime, "biz_a", mine.id, {
      resolution: "seal replaced",
      evidence: "",
      file: PHOTO,
      by: "ops",
    });
    const resolved = await resolveAlert(runtime, "biz_a", alert.id, named(sha256));
    assert.equal(resolved.status, "resolved");
    assert.equal(resolved.evidence, `file:sha256:${sha256}`);
    assert.deepEqual(resolved.evidence_file, {
      sha256,
      name: "seal.jpg",
      size: PHOTO.bytes.length,
      content_type: "image/jpeg",
    });
    assert.deepEqual((await alertEvidence(runtime, "biz_a", alert.id)).bytes, PHOTO.bytes);
  }));
