/**
 * Bookings asked across a SIGKILL of the server process and its start again on the same DATA_DIR
 * (issue 36 item 6), as a careful client asks them: each asked again under its own key until it
 * answers. For the crash tests on the embedded defaults.
 */
import assert from "node:assert/strict";
import { type Server, type StartOptions, startServer } from "./server_process.ts";
import { type Answer, OPERATOR } from "./cluster.ts";

/** How long a retry, a restart or a projection may take on a machine shared with others. */
export const SETTLE_MS_MAX = 60_000;
/** Rounds of bookings across a kill, until one kill lands while bookings are in flight. */
const ROUNDS_MAX = 3;
/** A pause between two polls of the server (never a wait for time to pass: the clock is manual). */
const POLL_MS = 50;

export function minorOf(amount: string | number): number {
  return Math.round(Number(amount) * 100);
}

export function pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, POLL_MS));
}

/**
 * When the process is killed: `under_way`, once half the bookings are under way in the server
 * (claimed, charged or being made; at the latest as the first is answered); `first_answer`, the
 * moment the first is answered (the others being made or answered).
 */
export type KillPoint = "under_way" | "first_answer";

/** An answer, and whether the process that answered it is the one killed. */
export interface Answered {
  readonly answer: Answer;
  readonly beforeKill: boolean;
}

/** One server process on the embedded defaults in its own DATA_DIR, and its restarts. */
export class CrashingServer {
  readonly #dataDir: string;
  readonly #options: StartOptions;
  readonly #started: Server[] = [];
  /** Resolves once the server started again is serving (a retry waits for it). */
  #restarted: Promise<void> = Promise.resolve();
  #afterRestart: (server: Server) => Promise<void>;

  private constructor(dataDir: string, env: Record<string, string>, afterRestart: Restarted) {
    this.#dataDir = dataDir;
    // The sandbox is off: one environment is what is killed, and it starts twice as fast.
    this.#options = { embedded: true, env: { SANDBOX_PORT: "0", ...env } };
    this.#afterRestart = afterRestart;
  }

  /**
   * Started on the embedded defaults (DATABASE_URL and NATS_URL withheld); `afterRestart` runs
   * on the server started again before any booking is asked again.
   */
  static async start(
    env: Record<string, string>,
    afterRestart: Restarted = () => Promise.resolve(),
  ): Promise<CrashingServer> {
    const dataDir = await Deno.makeTempDir({ prefix: "crash_embedded_" });
    const s = new CrashingServer(dataDir, env, afterRestart);
    try {
      await s.#start();
      // The embedded query side (src/main.ts): PGlite's data directory under DATA_DIR.
      assert.ok((await Deno.stat(`${dataDir}/live/pg`)).isDirectory, "PGlite is not in DATA_DIR");
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  /** The server standing now. */
  get server(): Server {
    return this.#started.at(-1)!;
  }

  async close(): Promise<void> {
    for (const s of this.#started) await s.stop().catch(() => {});
    await Deno.remove(this.#dataDir, { recursive: true }).catch(() => {});
  }

  async #start(): Promise<Server> {
    this.#started.push(await startServer(this.#dataDir, this.#options));
    return this.server;
  }

  /**
   * Asks `ask` of the server standing until it answers something but `pending` (an answer that
   * says "still running"), through the kill: a lost connection is asked again once the server
   * is back.
   */
  async untilAnswered(
    name: string,
    ask: (server: Server) => Promise<Answer>,
    pending: (a: Answer) => boolean,
  ): Promise<{ answer: Answer; by: Server }> {
    const deadline = Date.now() + SETTLE_MS_MAX;
    let last = "";
    while (Date.now() < deadline) {
      const by = this.server;
      try {
        const answer = await ask(by);
        if (!pending(answer)) return { answer, by };
        last = `${answer.status} ${JSON.stringify(answer.body)}`;
      } catch (e) {
        last = String(e); // the process is gone: asked again once it is back
        await this.#restarted;
        continue;
      }
      await pause();
    }
    assert.fail(`${name} never answered: ${last}`);
  }

  /**
   * Rounds of `count` bookings at once, each round on what `prepare` makes afresh (an account and
   * its funds), until one of them had a booking in flight at the kill: answered by the server
   * started again. On a loaded machine every answer may be out before the kill lands; such a
   * round shows nothing of a crash mid-booking, and another is asked (at most ROUNDS_MAX).
   */
  async roundsAcrossKill<T>(
    count: number,
    point: KillPoint,
    prepare: () => Promise<T>,
    book: (made: T, i: number) => Promise<{ answer: Answer; by: Server }>,
  ): Promise<{ made: T; answers: Answered[] }> {
    for (let round = 1;; round++) {
      const made = await prepare();
      const first = this.server;
      const answers = await this.#burstAcrossKill(count, point, (i) => book(made, i));
      const inFlight = answers.some((r) => r.by !== first);
      assert.ok(inFlight || round < ROUNDS_MAX, "every booking was answered before the kill");
      if (inFlight) {
        return {
          made,
          answers: answers.map((r) => ({ answer: r.answer, beforeKill: r.by === first })),
        };
      }
    }
  }

  /**
   * `count` bookings at once (`book(i)` one of them, asked until answered), the process killed
   * with SIGKILL at `point` and started again on the same DATA_DIR.
   */
  async #burstAcrossKill(
    count: number,
    point: KillPoint,
    book: (i: number) => Promise<{ answer: Answer; by: Server }>,
  ): Promise<{ answer: Answer; by: Server }[]> {
    const restart = Promise.withResolvers<void>();
    this.#restarted = restart.promise;
    const first = this.server;
    let killing: Promise<void> | undefined;
    const kill = () => killing ??= this.#killAndRestart().then(restart.resolve, restart.reject);
    const watching = (async () => {
      while (point === "under_way" && killing === undefined) {
        if (await underWay(first) >= count / 2) kill();
      }
    })();
    const answers = await Promise.all(Array.from({ length: count }, async (_, i) => {
      const r = await book(i);
      // Killed before anything else runs here: no other answer is read first.
      kill();
      return r;
    }));
    await watching;
    await killing;
    return answers;
  }

  /** SIGKILL now, then the server started again on its DATA_DIR. */
  async #killAndRestart(): Promise<void> {
    const dead = this.server;
    dead.child.kill("SIGKILL");
    await dead.child.status;
    await this.#afterRestart(await this.#start());
  }
}

type Restarted = (server: Server) => Promise<void>;

/** The requests the server is answering, besides the scrape asking (0 once it is gone). */
async function underWay(server: Server): Promise<number> {
  const r = await fetch(`${server.live}/api/metrics`, { headers: OPERATOR }).catch(() => null);
  const text = await r?.text().catch(() => "") ?? "";
  const line = text.split("\n").find((l) => l.startsWith("http_requests_in_flight "));
  return line === undefined ? 0 : Number(line.split(" ")[1]) - 1;
}

/**
 * Waits until `caughtUp` holds of what `read` answers (a list the projection writes), within
 * SETTLE_MS_MAX; answers the last read either way.
 */
export async function polled<T>(read: () => Promise<T>, caughtUp: (t: T) => boolean): Promise<T> {
  const deadline = Date.now() + SETTLE_MS_MAX;
  let last = await read();
  while (!caughtUp(last) && Date.now() < deadline) {
    await pause();
    last = await read();
  }
  return last;
}
