/**
 * The booking load generator, run in a Worker so it does not take the server's thread:
 * `prices` then `book`, from many concurrent loops, answering the latencies and the CPU its own
 * thread spent (the client's share of the process's CPU, which is not the server's).
 */
import { threadCpuMs, threadId } from "./cpu.ts";

interface Job {
  readonly base: string;
  readonly keys: readonly string[];
  readonly bookings: number;
  readonly clients: number;
  readonly body: unknown;
}

async function post(base: string, path: string, key: string, body: unknown) {
  const r = await fetch(`${base}/api${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Client-API-Key": key },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}

async function run(job: Job) {
  let next = 0;
  let refused = 0;
  const latencies: number[] = [];
  const start = performance.now();
  const cpu = threadCpuMs();
  await Promise.all(Array.from({ length: job.clients }, async () => {
    while (next < job.bookings) {
      const key = job.keys[next++ % job.keys.length]!;
      const t0 = performance.now();
      const prices = await post(job.base, "/client/prices", key, job.body);
      if (prices.status !== 200) {
        throw new Error(`prices: ${prices.status} ${JSON.stringify(prices.json)}`);
      }
      const booked = await post(job.base, "/client/book", key, {
        prices_reference: prices.json.data.prices_reference,
        service_level: "express",
      });
      if (booked.status !== 201) refused++;
      latencies.push(performance.now() - t0);
    }
  }));
  const cpuMs = threadCpuMs() - cpu;
  return {
    seconds: (performance.now() - start) / 1000,
    latencies,
    refused,
    cpuMs,
    tid: threadId(),
  };
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
