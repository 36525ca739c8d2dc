// One Redis subscription per gateway process, fanned out to the event streams it holds. The
// webhook worker's relay publishes every stored event (in stream order: one relay at a time) and
// the workers publish job progress on `<prefix>:events`, so any replica serves any organisation's
// stream. Pub/sub drops what it sends while a subscriber is disconnected: when the subscription
// is lost every stream is ended, and clients resume from their Last-Event-ID (stored events are
// replayed from PostgreSQL; progress is advisory and the next message carries the new figure).
import type { Logger } from '@docfleet/logger';
import { eventsChannel, type LiveMessage } from '@docfleet/webhooks';
import type { Redis } from 'ioredis';

export interface StreamListener {
  /**
   * `contiguous`: this stored event's `prev_seq` is the last position this hub saw, so every
   * position before it reached this process in order (see `chain`).
   */
  deliver(m: LiveMessage, contiguous: boolean): void;
  /** The subscription broke (or the process is shutting down): end the stream. */
  end(reason: string): void;
}

export class EventHub {
  private sub: Redis | null = null;
  private ready: Promise<void> | null = null;
  private readonly byOrg = new Map<string, Set<StreamListener>>();
  private closed = false;
  /** The highest stream position heard, and a counter bumped whenever the positions heard skip or cross. */
  private last: bigint | null = null;
  private breaks = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  /**
   * The hub's unbroken chain of positions: while this is unchanged, every stored event relayed
   * reached this process in position order, each right after its predecessor. A stream that read
   * PostgreSQL up to the positions heard at chain `c` may take later messages as they come while
   * the chain is still `c`; after a break it reads from the database again.
   */
  get chain(): number {
    return this.breaks;
  }

  /** Open streams in this process (metrics, tests). */
  get size(): number {
    let n = 0;
    for (const s of this.byOrg.values()) n += s.size;
    return n;
  }

  /** Resolves once the subscription is active: a message published after this reaches `l`. */
  async add(orgId: string, l: StreamListener): Promise<() => void> {
    if (this.closed) throw new Error('event streams are closed');
    await this.start();
    let set = this.byOrg.get(orgId);
    if (!set) this.byOrg.set(orgId, (set = new Set()));
    set.add(l);
    return () => {
      const s = this.byOrg.get(orgId);
      if (!s) return;
      s.delete(l);
      if (!s.size) this.byOrg.delete(orgId);
    };
  }

  private start(): Promise<void> {
    this.ready ??= (async () => {
      const sub = this.redis.duplicate();
      this.sub = sub;
      sub.on('message', (_channel: string, raw: string) => this.dispatch(raw));
      sub.on('error', (err) => this.logger.warn({ err }, 'event stream subscription error'));
      // Lost while connected: whatever was published meanwhile is gone for this replica.
      sub.on('close', () => {
        this.last = null;
        this.breaks++;
        if (!this.closed) this.endAll('the event subscription was interrupted; resume with Last-Event-ID');
      });
      await sub.subscribe(eventsChannel(this.prefix));
    })().catch((err) => {
      this.ready = null;
      this.sub?.disconnect();
      this.sub = null;
      throw err;
    });
    return this.ready;
  }

  private dispatch(raw: string): void {
    let m: LiveMessage;
    try {
      m = JSON.parse(raw) as LiveMessage;
    } catch {
      return;
    }
    let contiguous = false;
    if (m.kind === 'event') {
      let seq: bigint;
      let prev: bigint | null;
      try {
        seq = BigInt(m.seq);
        prev = m.prev_seq === undefined ? null : BigInt(m.prev_seq);
      } catch {
        return;
      }
      contiguous = prev !== null && this.last !== null && prev === this.last;
      if (!contiguous) this.breaks++;
      if (this.last === null || seq > this.last) this.last = seq;
    }
    const set = this.byOrg.get(m.org_id);
    if (!set) return;
    for (const l of [...set]) l.deliver(m, contiguous);
  }

  private endAll(reason: string): void {
    for (const set of [...this.byOrg.values()]) for (const l of [...set]) l.end(reason);
    this.byOrg.clear();
  }

  /** Shutdown: end every stream (so the server can close) and drop the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    this.endAll('the server is shutting down; reconnect with Last-Event-ID');
    const sub = this.sub;
    this.sub = null;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }
}
