/**
 * Requests and failures per target per minute, the last hour, in this process, for the
 * error-rate rule: two additions per request, sums read on the check timer; idle targets pruned.
 */

const SLOTS = 60;
const MINUTE_MS = 60_000;

class Ring {
  /** The newest minute recorded (epoch minutes). */
  last = -1;
  readonly minute = new Float64Array(SLOTS).fill(-1);
  readonly requests = new Uint32Array(SLOTS);
  /** Answers with a 5xx status. */
  readonly server = new Uint32Array(SLOTS);
  /** Answers with a 4xx status other than 499 (the client left: no failure of anyone's). */
  readonly client = new Uint32Array(SLOTS);
}

/** Requests and failures of one target over a window. */
export interface WindowCount {
  requests: number;
  /** 5xx answers. */
  server: number;
  /** 4xx answers, 499 excepted. */
  client: number;
}

export class MinuteCounts {
  private readonly rings = new Map<string, Ring>();

  /** Counts one request of `target` answered with `status` at `now` (epoch ms). */
  record(target: string, status: number, now: number): void {
    let r = this.rings.get(target);
    if (!r) this.rings.set(target, (r = new Ring()));
    const m = Math.floor(now / MINUTE_MS);
    const i = m % SLOTS;
    if (m > r.last) r.last = m;
    if (r.minute[i] !== m) {
      r.minute[i] = m;
      r.requests[i] = 0;
      r.server[i] = 0;
      r.client[i] = 0;
    }
    r.requests[i]!++;
    if (status >= 500) r.server[i]!++;
    else if (status >= 400 && status !== 499) r.client[i]!++;
  }

  /** Targets recorded and not yet pruned. */
  targets(): IterableIterator<string> {
    return this.rings.keys();
  }

  /** How many targets are kept. */
  get size(): number {
    return this.rings.size;
  }

  /** Sums of `target` over the `minutes` minutes up to and including the current one. */
  window(target: string, minutes: number, now: number): WindowCount {
    const out = { requests: 0, server: 0, client: 0 };
    const r = this.rings.get(target);
    if (!r) return out;
    const m = Math.floor(now / MINUTE_MS);
    for (let k = 0; k < minutes; k++) {
      const i = (m - k) % SLOTS;
      if (r.minute[i] !== m - k) continue;
      out.requests += r.requests[i]!;
      out.server += r.server[i]!;
      out.client += r.client[i]!;
    }
    return out;
  }

  /** Forgets targets with no request in the last `minutes` minutes (1–60: no window reads further back). */
  prune(now: number, minutes: number): void {
    const oldest = Math.floor(now / MINUTE_MS) - Math.min(minutes, SLOTS);
    for (const [t, r] of this.rings) if (r.last <= oldest) this.rings.delete(t);
  }
}
