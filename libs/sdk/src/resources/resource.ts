import type { HttpRequest, RequestOptions, Transport } from '../http';
import type { QueuedAck, QueuedResult } from '../types';

/** Splits the per-call request controls off an option bag that also carries method options. */
export function requestOptions(o: RequestOptions = {}): RequestOptions {
  return { signal: o.signal, timeoutMs: o.timeoutMs, requestId: o.requestId };
}

export abstract class Resource {
  constructor(protected readonly http: Transport) {}

  protected async call<T>(req: HttpRequest): Promise<T> {
    return (await this.http.request<T>(req)).data;
  }

  /** Queued workflows: 202 is an acknowledgement, 200 the completed output (replay). */
  protected async queued<T>(req: HttpRequest): Promise<QueuedResult<T>> {
    const r = await this.http.request<unknown>(req);
    return r.status === 200 ? { status: 200, body: r.data as T } : { status: 202, body: r.data as QueuedAck };
  }
}
