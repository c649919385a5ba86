/**
 * The CPU a bench's work cost, from Linux's /proc: the whole machine's, this process's (server
 * and load generator) by kind of thread, and Postgres's, since they all share the machine's
 * cores. Elsewhere there is no sample and the figure is left out.
 */

/** CPU time in ms: the whole machine's, this process's (server and load generator) and Postgres's. */
export interface CpuSample {
  readonly busy: number;
  readonly idle: number;
  readonly self: number;
  readonly postgres: number;
  /** This process's CPU by kind of thread (threadKind). */
  readonly threads: ReadonlyMap<string, number>;
}

/**
 * The threads of the load generator's Workers (their ids, as each reports its own: threadId):
 * a Worker that has not ended by the second sample is one of these or the server's embedded
 * PGlite, and Linux names both `worker-N`.
 */
export const loadThreads = new Set<string>();

/** The calling thread's id (Linux), or null elsewhere. */
export function threadId(): string | null {
  try {
    return Deno.readLinkSync("/proc/thread-self").split("/").at(-1) ?? null;
  } catch {
    return null;
  }
}

/**
 * What a thread of this process does, by the name Linux shows for it: the server's JavaScript
 * (`deno`), Deno KV's SQLite writer (`sw-0`), V8's background threads (mostly garbage
 * collection), and Workers (`worker-N`): the load generator's (loadThreads; one that ended
 * before the second sample is in the process's total only), else the server's embedded PGlite
 * (src/db/pglite_worker.ts).
 */
function threadKind(comm: string, tid: string): string {
  if (loadThreads.has(tid)) return "load generator";
  if (comm === "deno") return "server JS";
  if (comm.startsWith("sw-")) return "KV store";
  if (comm.startsWith("V8 ")) return "V8 background";
  if (comm.startsWith("worker-")) return "PGlite worker";
  return "other";
}

/** User and system CPU of a /proc stat line, in ms (clock ticks of 10 ms). */
function ticks(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** The CPU of every Postgres process on the machine. */
function postgresTicks(): number {
  let postgres = 0;
  for (const d of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(d.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${d.name}/stat`);
      if (stat.includes("(postgres)")) postgres += ticks(stat);
    } catch {
      // The process ended meanwhile.
    }
  }
  return postgres;
}

/** This process's CPU by kind of thread. */
function threadTicks(): Map<string, number> {
  const threads = new Map<string, number>();
  for (const t of Deno.readDirSync("/proc/self/task")) {
    try {
      const stat = Deno.readTextFileSync(`/proc/self/task/${t.name}/stat`);
      const kind = threadKind(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), t.name);
      threads.set(kind, (threads.get(kind) ?? 0) + ticks(stat));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

/** Reads Linux's /proc (clock ticks of 10 ms); null elsewhere, and the figure is left out. */
export function cpuSample(): CpuSample | null {
  try {
    const all = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/).slice(1)
      .map(Number);
    const postgres = postgresTicks();
    const threads = threadTicks();
    return {
      busy: (all[0]! + all[1]! + all[2]! + all[4]! + all[5]! + all[6]!) * 10,
      idle: all[3]! * 10,
      self: ticks(Deno.readTextFileSync("/proc/self/stat")),
      postgres,
      threads,
    };
  } catch {
    return null;
  }
}

/**
 * The CPU one booking cost while the load ran: all of it counts against the machine's two
 * cores, whichever process spent it (the baseline's work is mostly in Postgres, ours in Deno).
 */
export function cpuPerBooking(
  before: CpuSample | null,
  after: CpuSample | null,
  bookings: number,
): string {
  if (!before || !after) return "";
  const per = (ms: number) => (ms / bookings).toFixed(2);
  const busy = after.busy - before.busy;
  const share = busy / (busy + after.idle - before.idle);
  const threads = [...after.threads]
    .map(([kind, ms]) => [kind, ms - (before.threads.get(kind) ?? 0)] as const)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${per(ms)}`);
  return `; CPU ${per(busy)} ms per booking (this process ${per(after.self - before.self)}: ` +
    `${threads.join(", ")}; Postgres ${per(after.postgres - before.postgres)}), ` +
    `machine ${(share * 100).toFixed(0)}% busy`;
}

/**
 * CPU per booking in ms: this process's (server and load generator), every Postgres process's on
 * the machine, and the whole machine's. On a shared machine the last two hold other work too (a
 * Postgres process that ended between the samples even makes theirs fall); NaN without /proc.
 */
export function cpuMsPer(
  before: CpuSample | null,
  after: CpuSample | null,
  n: number,
): { process: number; postgres: number; machine: number } {
  if (!before || !after) return { process: NaN, postgres: NaN, machine: NaN };
  return {
    process: (after.self - before.self) / n,
    postgres: Math.max(0, after.postgres - before.postgres) / n,
    machine: (after.busy - before.busy) / n,
  };
}

/**
 * The calling thread's CPU so far, ms: Linux's scheduler statistics (nanoseconds), else its
 * /proc stat (ticks of 10 ms); NaN elsewhere.
 */
export function threadCpuMs(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
  } catch {
    // No scheduler statistics in this kernel: the coarser ticks.
  }
  try {
    const stat = Deno.readTextFileSync("/proc/thread-self/stat");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}
