// The state statement (candidateStateSql) of searches scored in memory, shared by the searches of one
// knowledge base that arrive while others are waiting for theirs (issue 22.5).
//
// Every search scored in the process still asks PostgreSQL for what may change without a new index
// version (the knowledge base, its index state, the folder check, its candidates' files as they are
// now): one round trip and one statement per search, ~0.05 ms of the gateway's CPU and ~0.05–0.08 ms
// of PostgreSQL's (docs/benchmarks.md). Under load, searches of one knowledge base arrive while
// statements for it are in flight; up to `maxInFlight` are sent at once, and a search arriving when
// that many are in flight joins the next statement, which asks for the union of its searches' files
// and is sent as soon as one in flight answers.
//
// Freshness: a search joins only a statement that has not been sent yet, so the statement that
// answers it is sent after the search started, and sees every write (trash, restore, move, rename,
// new version) committed before that. A search never takes an answer read before it arrived.
import { queryRows, type Db } from '@docfleet/db';
import { candidateStateSql, type CandidateStateRow, type SearchScope } from './search-sql';

/** A live file as the state statement reads it: [id, current version id, folder id, filename]. */
export type FileState = [id: string, currentVersionId: string | null, folderId: string | null, filename: string];

/** The statement's row (undefined: the knowledge base is not the caller's organisation's) and its live files by id. */
export interface SharedState {
  row?: CandidateStateRow;
  files: Map<string, FileState>;
}

interface Batch {
  sc: SearchScope;
  folderId: string | undefined;
  files: Set<string>;
  waiters: Array<{ resolve: (s: SharedState) => void; reject: (e: unknown) => void }>;
}

/** Statements of one knowledge base, organisation and folder: how many are in flight, and the next one. */
interface Lane {
  inFlight: number;
  next?: Batch;
}

export class SharedStateStatements {
  /** Statements sent, and searches answered (searches − sent were answered by another's statement). */
  readonly counts = { sent: 0, searches: 0 };
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly db: Db,
    private readonly maxInFlight: number,
  ) {}

  /** The state for `fileIds` (and maybe other files), from a statement sent after this call. */
  stateOf(sc: SearchScope, folderId: string | undefined, fileIds: Iterable<string>): Promise<SharedState> {
    this.counts.searches++;
    const key = `${sc.kbId}/${sc.orgId}/${folderId ?? ''}`;
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { inFlight: 0 }));
    return new Promise<SharedState>((resolve, reject) => {
      const b = (lane.next ??= { sc, folderId, files: new Set(), waiters: [] });
      for (const id of fileIds) b.files.add(id);
      b.waiters.push({ resolve, reject });
      if (lane.inFlight < this.maxInFlight) this.send(key, lane);
    });
  }

  private send(key: string, lane: Lane): void {
    const b = lane.next;
    if (!b) {
      if (lane.inFlight === 0) this.lanes.delete(key);
      return;
    }
    lane.next = undefined;
    lane.inFlight++;
    this.counts.sent++;
    queryRows<CandidateStateRow>(this.db, candidateStateSql(b.sc, b.folderId, [...b.files]), { prepared: true })
      .then(
        ([row]) => {
          const files = new Map<string, FileState>();
          for (const f of JSON.parse(row?.files ?? '[]') as FileState[]) files.set(f[0], f);
          for (const w of b.waiters) w.resolve({ row, files });
        },
        (err: unknown) => {
          for (const w of b.waiters) w.reject(err);
        },
      )
      .finally(() => {
        lane.inFlight--;
        this.send(key, lane);
      });
  }
}
