/** A live board's socket for feed tests (src/web/feed.ts FeedSink): it keeps what it was sent. */
import type { FeedSink } from "../../src/web/feed.ts";

export class FakeSink implements FeedSink {
  // deno-lint-ignore no-explicit-any
  readonly sent: any[] = [];
  readonly closes: { code: number; reason: string }[] = [];
  bufferedAmount = 0;
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close(code: number, reason: string) {
    this.closes.push({ code, reason });
  }
}
