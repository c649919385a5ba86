import assert from "node:assert/strict";
import fc from "fast-check";
import { waybillSequenceActor } from "../../../actors/courier/waybill_sequence.ts";
import {
  newOfferReference,
  SANDBOX_WAYBILLS_FROM,
  WAYBILL_BLOCK,
} from "../../../src/courier/flows/waybills.ts";
import { sequencedWaybill, sequenceText, waybillOf } from "../../../src/courier/rules/waybill.ts";
import { openTestRuntime } from "../../runtime/fixtures.ts";

Deno.test("waybills: the text of a sequence number keeps its order and length", () => {
  fc.assert(
    fc.property(fc.nat(), fc.nat(), (a, b) => {
      const [x, y] = [sequenceText(a), sequenceText(b)];
      assert.equal(x.length, 13);
      assert.equal(Math.sign(a - b), x < y ? -1 : x > y ? 1 : 0);
    }),
  );
  assert.equal(sequenceText(Number.MAX_SAFE_INTEGER).length, 13);
  assert.throws(() => sequenceText(-1), RangeError);
});

Deno.test("waybills: offer references name their waybill; older references keep the derived one", () => {
  assert.equal(sequencedWaybill(`prc_W${sequenceText(1)}`), `WB${sequenceText(1)}`);
  assert.equal(sequencedWaybill(`qt_W${sequenceText(42)}`), `WB${sequenceText(42)}`);
  assert.equal(waybillOf("biz_1", `prc_W${sequenceText(7)}`), `WB${sequenceText(7)}`);
  // A reference made before the sequence (or derived from a request) is not one of them.
  for (const older of ["prc_abcdefghij0123456789", "prc_W222222222222", "prc_crashed1"]) {
    assert.equal(sequencedWaybill(older), null);
    assert.match(waybillOf("biz_1", older), /^WB[A-Z2-9]{12}$/);
  }
});

Deno.test("waybills: offers made at once, across a restart, never share a waybill", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const seen = new Set<string>();
    let last = "";
    for (let run = 0; run < 2; run++) {
      const { runtime, close } = await openTestRuntime(`${dir}/kv.sqlite`, {
        definitions: [waybillSequenceActor],
      });
      // More than a block at once: the callers who find it spent wait for the next together.
      const refs = await Promise.all(
        Array.from(
          { length: WAYBILL_BLOCK + 500 },
          (_, i) => newOfferReference(runtime, i % 2 ? "quote" : "prices"),
        ),
      );
      for (const r of refs) {
        const waybill = sequencedWaybill(r)!;
        assert.match(waybill, /^WB[2-9A-HJ-NP-Z]{13}$/);
        assert.ok(!seen.has(waybill), `twice: ${waybill}`);
        seen.add(waybill);
        // A restarted instance starts past every number handed out before.
        assert.ok(waybill > last);
      }
      last = [...refs].map((r) => sequencedWaybill(r)!).sort().at(-1)!;
      await close();
    }
    assert.equal(seen.size, 2 * (WAYBILL_BLOCK + 500));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("waybills: the sandbox numbers from its own range, so its labels never name a live shipment", async () => {
  const live = await openTestRuntime(":memory:", {
    definitions: [waybillSequenceActor],
    env: "live",
  });
  const sandbox = await openTestRuntime(":memory:", {
    definitions: [waybillSequenceActor],
    env: "sandbox",
  });
  try {
    const [l, s] = [
      sequencedWaybill(await newOfferReference(live.runtime, "prices"))!,
      sequencedWaybill(await newOfferReference(sandbox.runtime, "prices"))!,
    ];
    assert.equal(l, `WB${sequenceText(1)}`);
    assert.equal(s, `WB${sequenceText(SANDBOX_WAYBILLS_FROM)}`);
    assert.notEqual(s.slice(0, 6), l.slice(0, 6), "told apart at a glance");
  } finally {
    await live.close();
    await sandbox.close();
  }
});

Deno.test("waybills: two instances on one store never hand out the same number", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/kv.sqlite`;
  const a = await openTestRuntime(path, { definitions: [waybillSequenceActor] });
  const b = await openTestRuntime(path, { definitions: [waybillSequenceActor] });
  try {
    // Each instance spends several blocks, asking at the same time as the other.
    const refs = (await Promise.all(
      [a, b].map((i) =>
        Promise.all(
          Array.from({ length: 3 * WAYBILL_BLOCK }, () => newOfferReference(i.runtime, "prices")),
        )
      ),
    )).flat();
    assert.equal(new Set(refs).size, refs.length);
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
