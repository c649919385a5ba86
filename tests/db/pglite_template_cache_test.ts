/**
 * The migrated PGlite template kept between test files (src/db/pglite_template_cache.ts): made
 * once, then read back whole by the next process; a folder that cannot be written to only costs
 * the next one a build of its own.
 */
import assert from "node:assert/strict";
import { cachedTemplate, type TemplateImage } from "../../src/db/pglite_template_cache.ts";

function builder(bytes: Uint8Array, shape: string) {
  let builds = 0;
  const build = (): Promise<TemplateImage> => {
    builds++;
    return Promise.resolve({ dump: new Blob([bytes as BlobPart]), shape });
  };
  return { build, builds: () => builds };
}

Deno.test("template cache: made once, then the next opener reads the same dump and shape", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bytes = crypto.getRandomValues(new Uint8Array(60_000));
    const first = builder(bytes, "r audit_log r");
    const made = await cachedTemplate(dir, first.build);
    assert.equal(first.builds(), 1);
    assert.equal(made.shape, "r audit_log r");

    const next = builder(new Uint8Array([1]), "other");
    const read = await cachedTemplate(dir, next.build);
    assert.equal(next.builds(), 0);
    assert.equal(read.shape, "r audit_log r");
    assert.deepEqual(new Uint8Array(await read.dump.arrayBuffer()), bytes);
    // Only the finished files remain: no partial one left beside them.
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    assert.deepEqual(names.map((n) => n.replace(/[0-9a-f]{32}/, "<digest>")).sort(), [
      "pglite-template-<digest>.shape",
      "pglite-template-<digest>.tar",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("template cache: a folder that cannot be made still answers the build", async () => {
  const file = await Deno.makeTempFile();
  try {
    const b = builder(new Uint8Array([7, 7]), "s");
    // A folder under a file cannot be made: each opener builds its own.
    const made = await cachedTemplate(`${file}/cache`, b.build);
    await cachedTemplate(`${file}/cache`, b.build);
    assert.equal(b.builds(), 2);
    assert.deepEqual(new Uint8Array(await made.dump.arrayBuffer()), new Uint8Array([7, 7]));
  } finally {
    await Deno.remove(file);
  }
});
