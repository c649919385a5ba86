/**
 * The observability bench's load generator (observability.ts), run in a Worker so that its
 * fetches do not take the serving thread: `loops` concurrent GETs of `url` for `ms`, answering
 * how many were answered and in how long.
 */

interface Job {
  readonly url: string;
  readonly ms: number;
  readonly loops: number;
}

async function run(job: Job): Promise<{ done: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + job.ms;
  let done = 0;
  await Promise.all(Array.from({ length: job.loops }, async () => {
    while (performance.now() < deadline) {
      const r = await fetch(job.url);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`hello route answered ${r.status}`);
      done++;
    }
  }));
  return { done, seconds: (performance.now() - started) / 1000 };
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
