/**
 * What the tests' in-memory PGlite reuse (src/db/pglite_memory.ts), imported for its effect by
 * every helper that opens a query side.
 */
import { keepClosedInstances, keepTemplateIn } from "../../src/db/pglite_memory.ts";

// A test's in-memory PGlite, once closed, serves the next test of the file: about 40 ms to
// open instead of a second.
keepClosedInstances(2);

// Each test file runs in an isolate of its own, which would migrate its own template (initdb
// and every migration, about ten CPU seconds): the first makes it for every other, in the
// machine's temporary folder, named by a digest of the code that makes it.
keepTemplateIn(`${Deno.env.get("TMPDIR") ?? "/tmp"}/courier-tests`);
