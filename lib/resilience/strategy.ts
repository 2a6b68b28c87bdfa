/**
 * Load-balancing strategies: each orders a group's members for one request. The first is
 * tried first; the rest are the failover order within the group.
 */
import type { Member } from './member.ts';

export type Strategy = 'round_robin' | 'weighted' | 'least_busy' | 'latency';

/** A model's providers and the state its strategy keeps. */
export class Group {
  readonly members: Member[];
  readonly strategy: Strategy;
  /** Turns of one conversation stay on one member (lib/resilience/affinity.ts): on when configured and there is a choice. */
  readonly affinity: boolean;
  private cursor = 0;

  constructor(members: Member[], strategy: Strategy, affinity = false) {
    this.members = members;
    this.strategy = strategy;
    this.affinity = affinity && members.length > 1;
  }

  /**
   * `first`, then the other members in listing order (the failover order): a conversation's
   * member. Leaves the strategy's state alone, so it spreads new conversations only.
   */
  orderFrom(first: Member): Member[] {
    const ms = this.members;
    const out = [first];
    for (const m of ms) if (m !== first) out.push(m);
    return out;
  }

  /** Members in the order to try them for one request. */
  order(): Member[] {
    const ms = this.members;
    const n = ms.length;
    if (n === 1) return ms;
    switch (this.strategy) {
      case 'weighted':
        return rotate(ms, ms.indexOf(smoothWeighted(ms)));
      case 'least_busy': {
        // ties broken round-robin so idle groups still spread load
        const start = this.next(n);
        return rotate(ms, start).sort((a, b) => a.inflight - b.inflight);
      }
      case 'latency': {
        const start = this.next(n);
        // unsampled members first (explore), then lowest EWMA
        return rotate(ms, start).sort((a, b) => (a.ewmaMs === 0 ? -1 : a.ewmaMs) - (b.ewmaMs === 0 ? -1 : b.ewmaMs));
      }
      default:
        return rotate(ms, this.next(n));
    }
  }

  private next(n: number): number {
    const i = this.cursor;
    this.cursor = (i + 1) % n;
    return i;
  }
}

function rotate<T>(a: T[], start: number): T[] {
  return start === 0 ? a.slice() : a.slice(start).concat(a.slice(0, start));
}

/** nginx's smooth weighted round-robin: exact proportions, evenly interleaved. */
function smoothWeighted(ms: Member[]): Member {
  let total = 0;
  let best = ms[0]!;
  for (const m of ms) {
    m.current += m.settings.weight;
    total += m.settings.weight;
    if (m.current > best.current) best = m;
  }
  best.current -= total;
  return best;
}
