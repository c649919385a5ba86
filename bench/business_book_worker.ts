/**
 * The business booking load generator, run in a Worker so it does not take the server's thread:
 * POST /business/book from many concurrent loops, the keys taken in turn, answering the latencies.
 * With `replay_key`, every request sends that Idempotency-Key: the first books, the rest replay.
 * It answers the CPU its own thread spent too: the client's, not the server's.
 */
import { threadCpuMs, threadId } from "./cpu.ts";

interface Job {
  readonly base: string;
  readonly keys: readonly string[];
  readonly bookings: number;
  readonly clients: number;
  readonly body: unknown;
  readonly replay_key: string | null;
}

async function run(job: Job) {
  let next = 0;
  let refused = 0;
  const latencies: number[] = [];
  const cpu = threadCpuMs();
  await Promise.all(Array.from({ length: job.clients }, async () => {
    while (next < job.bookings) {
      const key = job.keys[next++ % job.keys.length]!;
      const t0 = performance.now();
      const r = await fetch(`${job.base}/api/business/book`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Business-API-Key": key,
          ...(job.replay_key ? { "Idempotency-Key": job.replay_key } : {}),
        },
        body: JSON.stringify(job.body),
      });
      const json = await r.json();
      if (r.status !== 201 && r.status !== 200) {
        refused++;
        if (refused === 1) console.error(`business book: ${r.status} ${JSON.stringify(json)}`);
      }
      latencies.push(performance.now() - t0);
    }
  }));
  return { latencies, refused, cpuMs: threadCpuMs() - cpu, tid: threadId() };
}

/// <reference lib="deno.worker" />
const scope = self as unknown as {
  onmessage: (e: MessageEvent<Job>) => void;
  postMessage: (m: unknown) => void;
};
scope.onmessage = async (e) => {
  try {
    scope.postMessage({ ok: true, ...(await run(e.data)) });
  } catch (error) {
    scope.postMessage({ ok: false, error: String(error) });
  }
};
