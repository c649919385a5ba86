/**
 * Opening a signed link (shopping 6 "Receipt URL"; src/shopping/flows/links.ts): only an altered
 * or expired link is refused 403; a business's settings that cannot be read for a moment are no
 * verdict on the link.
 */
import assert from "node:assert/strict";
import { shoppingCapabilityActor } from "../../../actors/shopping/capability.ts";
import { SHOPPING_LINK_CHARS_MAX } from "../../../src/limits.ts";
import { Refused } from "../../../src/runtime/actor.ts";
import { openLink, signedLink } from "../../../src/shopping/flows/links.ts";
import { commandKind, flakyRuntime } from "../../helpers/faults.ts";
import { withTestEnv } from "../../helpers/test_env.ts";

Deno.test("shopping links: a valid link opened while the settings are busy is not answered link_invalid", () =>
  withTestEnv(async (t) => {
    const deps = { runtime: t.env.runtime, dataKey: t.env.dataKey, clock: t.clock };
    const url = await signedLink(
      { ...deps, publicUrl: "https://shop.example" },
      "biz_links",
      { kind: "packing_slip", reference: "BK-NONE" },
      t.clock.now() + 60 * 60_000,
    );
    const token = url.split("/").at(-1)!;
    const codeOf = (e: unknown) => e instanceof Refused ? e.rejection.code : String(e);
    // Read at once, it verifies: the slip it names is not found.
    const found = await openLink(deps, token).then(() => "opened", codeOf);
    assert.equal(found, "not_found");
    // The settings answer actor_busy once, as a full mailbox does.
    const busy = flakyRuntime(t.env.runtime, {
      fails: commandKind("get", shoppingCapabilityActor.type),
      refuse: true,
    });
    const code = await openLink({ ...deps, runtime: busy.runtime }, token).then(
      () => "opened",
      codeOf,
    );
    assert.equal(busy.failed(), 1);
    // spec: shopping 6: only an expired or altered link answers 403; this one is neither.
    assert.equal(code, "actor_busy");
  }));

// spec: shopping 6: "an expired or altered link answers 403", however it was altered: one made
// longer than any link the service makes is altered too, not a request of the wrong shape.
Deno.test("shopping links: a link lengthened past any link made answers 403 link_invalid, not 422", () =>
  withTestEnv(async (t) => {
    const deps = { runtime: t.env.runtime, dataKey: t.env.dataKey, clock: t.clock };
    const url = await signedLink(
      { ...deps, publicUrl: "https://shop.example" },
      "biz_links",
      { kind: "packing_slip", reference: "BK-NONE" },
      t.clock.now() + 60 * 60_000,
    );
    const path = new URL(url).pathname;
    for (const altered of [`${path}A`, `${path}${"A".repeat(SHOPPING_LINK_CHARS_MAX)}`]) {
      const res = await t.app.request(altered);
      const body = await res.json();
      assert.deepEqual([res.status, body.code], [403, "link_invalid"], JSON.stringify(body));
    }
  }));
