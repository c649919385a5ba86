/**
 * Stopping when the launcher is stopped. `npx deno task start` runs `npm exec`, which runs
 * `sh -c`, which runs `deno task`, which runs this process: SIGTERM to `npm exec` ends it and
 * its shell without passing the signal on, so `deno task` (which does pass SIGTERM and SIGINT
 * on) is left behind with a new parent. Under `npm exec` (it sets `npm_command`), this process
 * watches its parent's parent (by `ps`) and stops, as on SIGTERM, when it changes. Started any
 * other way (or without `ps`), signals arrive directly and nothing is watched.
 */

/**
 * How often the parent's parent is looked at: the bound on stopping after the launcher. Each
 * look starts a `ps` process, for as long as the server runs, so not more than once a second.
 */
const LAUNCHER_POLL_MS = 1_000;

/**
 * The parent process id of `pid` by `ps` (`/proc` is readable only with every permission);
 * null when it cannot be had (no `ps`, or `pid` gone).
 */
async function parentOf(pid: number): Promise<number | null> {
  try {
    const out = await new Deno.Command("ps", {
      args: ["-o", "ppid=", "-p", String(pid)],
      stdout: "piped",
      stderr: "null",
    }).output();
    const ppid = Number(new TextDecoder().decode(out.stdout).trim());
    return out.success && Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/**
 * Calls `stop` once when the process that started `deno task` is gone (a launch by `npm exec`
 * only); answers a function that ends the watch.
 */
export async function watchLauncher(stop: () => void): Promise<() => void> {
  if (Deno.env.get("npm_command") === undefined || Deno.build.os === "windows") return () => {};
  const parent = Deno.ppid;
  const launcher = await parentOf(parent);
  if (launcher === null || launcher <= 1) return () => {};
  const timer = setInterval(async () => {
    const now = await parentOf(parent);
    // Unknown (ps failed once) is not gone; a new parent, or none, is.
    if (now === launcher || (now === null && await parentOf(Deno.pid) !== null)) return;
    clearInterval(timer);
    stop();
  }, LAUNCHER_POLL_MS);
  Deno.unrefTimer(timer);
  return () => clearInterval(timer);
}
