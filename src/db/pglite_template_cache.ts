/**
 * The migrated in-memory PGlite template kept in a folder between processes (the tests: each test
 * file runs in an isolate of its own, and each would otherwise run initdb and every migration
 * again, about ten CPU seconds a file). A template's name digests what made it: the migrations'
 * files, the code migrating and renaming, and the PGlite and Kysely packages, so any change to
 * them makes another template. Nothing is kept unless a process asks (pglite_memory.ts).
 */
import { hex } from "../domain/secrets.ts";

export interface TemplateImage {
  /** The data folder's dump (PGlite `dumpDataDir`). */
  readonly dump: Blob;
  /** The catalog's fingerprint (pglite_memory.ts). */
  readonly shape: string;
}

/** The template in `dir` made by the same code, or `build`'s, then kept there for the next. */
export async function cachedTemplate(
  dir: string,
  build: () => Promise<TemplateImage>,
): Promise<TemplateImage> {
  const digest = await templateDigest();
  // Code not read from files (a compiled binary) cannot be digested: built every time.
  if (digest === null) return await build();
  const base = `${dir}/pglite-template-${digest}`;
  const found = await readTemplate(base);
  if (found) return found;
  const made = await build();
  // A folder that cannot be written to only makes the next process build its own.
  await writeTemplate(dir, base, made).catch(() => {});
  return made;
}

/**
 * What the template is made of; null when the code is not in files. The tests' pooled Postgres
 * schemas are named by it too (tests/helpers/schema_pool.ts): made by the same migrations.
 */
export async function templateDigest(): Promise<string | null> {
  try {
    const migrations = new URL("../../migrations/", import.meta.url);
    const names: string[] = [];
    for await (const e of Deno.readDir(migrations)) if (e.isFile) names.push(e.name);
    const files = [
      ...names.sort().map((n) => new URL(n, migrations)),
      new URL("./migrate.ts", import.meta.url),
      new URL("./pglite_memory.ts", import.meta.url),
      new URL("./catalog_shape.ts", import.meta.url),
      new URL("./pglite.ts", import.meta.url),
    ];
    const parts = [
      // Resolved to their versions' folders: another version is another template.
      import.meta.resolve("@electric-sql/pglite"),
      import.meta.resolve("kysely"),
      ...await Promise.all(files.map(async (f) => `${f.pathname}\n${await Deno.readTextFile(f)}`)),
    ];
    const bytes = new TextEncoder().encode(parts.join("\n\0\n"));
    return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))).slice(0, 32);
  } catch {
    return null;
  }
}

async function readTemplate(base: string): Promise<TemplateImage | null> {
  try {
    // The dump is renamed into place last, so with it the shape is there too.
    const bytes = await Deno.readFile(`${base}.tar`);
    return { dump: new Blob([bytes]), shape: await Deno.readTextFile(`${base}.shape`) };
  } catch {
    // None yet, or a folder that cannot be read: built, as without a folder.
    return null;
  }
}

/** Written under names of its own, then renamed: a reader never sees half a file. */
async function writeTemplate(dir: string, base: string, t: TemplateImage): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const partial = `${base}.${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${partial}.shape`, t.shape);
  await Deno.rename(`${partial}.shape`, `${base}.shape`);
  await Deno.writeFile(`${partial}.tar`, new Uint8Array(await t.dump.arrayBuffer()));
  await Deno.rename(`${partial}.tar`, `${base}.tar`);
}
