/**
 * Chromium for the browser tests, with nothing to install beyond npm: the system's
 * (/usr/bin/chromium, Debian's) where there is one, otherwise the Chromium that @sparticuz/chromium
 * ships inside its npm package (brotli-compressed, inflated once into the temporary directory,
 * never downloaded). `CHROMIUM_PATH` overrides the choice: a path to use, or empty for the packaged
 * one even where the system has its own.
 */
import Chromium, { inflate } from "@sparticuz/chromium";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";

export const SYSTEM_CHROMIUM = "/usr/bin/chromium";

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The system's Chromium to use, or null for the packaged one. */
export function systemChromium(): string | null {
  const chosen = Deno.env.get("CHROMIUM_PATH");
  if (chosen !== undefined) return chosen === "" ? null : chosen;
  return isFile(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : null;
}

/** How to launch Chromium: `system` (a path) as it is, or the packaged one when null. */
export async function chromiumLaunchOptions(
  system: string | null = systemChromium(),
): Promise<LaunchOptions> {
  // Root (CI, containers) has no user namespace sandbox to drop into.
  if (system !== null) return { executablePath: system, args: ["--no-sandbox"] };
  return await packagedChromium();
}

export async function launchChromium(system: string | null = systemChromium()): Promise<Browser> {
  return await chromium.launch(await chromiumLaunchOptions(system));
}

async function packagedChromium(): Promise<LaunchOptions> {
  // The package's own files: bin/ beside the build/ its entry point is in.
  const bin = join(
    dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")),
    "../bin",
  );
  // Test files run side by side (--parallel): one process inflates, the others wait for it.
  const lock = await Deno.open(join(tmpdir(), "sparticuz-chromium.lock"), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    // Chromium, its fonts and software GL; al2023 holds the libraries it needs beyond glibc (NSS,
    // NSPR, expat), so a machine with only Node.js runs it. The package inflates al2023 only on
    // AWS, so it is inflated here and given to the browser's process alone.
    const executablePath = await Chromium.executablePath(bin);
    const libs = join(await inflate(join(bin, "al2023.tar.br")), "lib");
    const inherited = Deno.env.get("LD_LIBRARY_PATH");
    return {
      executablePath,
      args: ["--no-sandbox", "--no-zygote"],
      env: {
        ...Deno.env.toObject(),
        LD_LIBRARY_PATH: inherited ? `${libs}:${inherited}` : libs,
        FONTCONFIG_PATH: join(tmpdir(), "fonts"),
      },
    };
  } finally {
    lock.close(); // releases the lock
  }
}
