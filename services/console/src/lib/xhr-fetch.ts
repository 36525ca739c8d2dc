import type { FetchLike } from '@docfleet/sdk';

/**
 * A fetch for the SDK's transport that reports upload progress (fetch cannot observe a request
 * body being sent). Everything else (URL, headers, credentials, error envelopes) stays the SDK's.
 */
export function xhrFetch(onUpload: (loaded: number, total: number) => void): FetchLike {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method ?? 'GET', url);
      xhr.responseType = 'blob';
      for (const [k, v] of Object.entries((init.headers ?? {}) as Record<string, string>)) {
        if (k.toLowerCase() !== 'user-agent') xhr.setRequestHeader(k, v);
      }
      xhr.upload.onprogress = (e) => onUpload(e.loaded, e.lengthComputable ? e.total : 0);
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const i = line.indexOf(':');
          if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
        }
        const empty = xhr.status === 204 || xhr.status === 304;
        resolve(
          new Response(empty ? null : (xhr.response as Blob), {
            status: xhr.status,
            statusText: xhr.statusText,
            headers,
          }),
        );
      };
      xhr.onerror = () => reject(new TypeError('network error during upload'));
      xhr.ontimeout = () => reject(new TypeError('upload timed out'));
      xhr.onabort = () => reject(new DOMException('upload aborted', 'AbortError'));
      if (init.signal) {
        if (init.signal.aborted) return xhr.abort();
        init.signal.addEventListener('abort', () => xhr.abort(), { once: true });
      }
      xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
    });
}
