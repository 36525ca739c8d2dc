// Raw HTTP over a TCP socket, for what fetch cannot send: bodies that end early, connections
// dropped mid-upload, headers a browser would never write.
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

/** Parses the first response on a socket's bytes, or undefined when it is not complete yet. */
function parseResponse(buf: Buffer): RawResponse | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  let body: Buffer;
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (rest.length < n) return undefined;
    body = rest.subarray(0, n);
  } else if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const nl = rest.indexOf('\r\n', at);
      if (nl < 0) return undefined;
      const size = parseInt(rest.subarray(at, nl).toString('latin1'), 16);
      if (size === 0) break;
      if (rest.length < nl + 2 + size) return undefined;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else return undefined;
  const text = body.toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed, text };
}

export interface RawExchange {
  socket: Socket;
  /** Resolves with the response, or undefined if the connection closed without one. */
  response: Promise<RawResponse | undefined>;
}

/**
 * Opens a connection and writes `head` (request line and headers, without the blank line) and then
 * `body`. `finish`: 'close' closes the connection once the response is in (never half-closing
 * before: Node's server takes a half-close for a client gone), 'keep' leaves it to the caller.
 */
export function rawRequest(
  port: number,
  head: string,
  body: Buffer | string = '',
  finish: 'close' | 'keep' = 'close',
): RawExchange {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a reset after the server answered is expected in some cases
  const chunks: Buffer[] = [];
  const response = new Promise<RawResponse | undefined>((resolve) => {
    socket.on('data', (b: Buffer) => {
      chunks.push(b);
      const r = parseResponse(Buffer.concat(chunks));
      if (r) resolve(r);
    });
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks))));
  });
  socket.write(`${head.replace(/\r?\n/g, '\r\n').trimEnd()}\r\n\r\n`);
  if (body.length) socket.write(body);
  if (finish === 'close') void response.then(() => socket.destroy());
  return { socket, response };
}

export function multipartBody(
  boundary: string,
  fields: Record<string, string>,
  file?: { name: string; data: Buffer },
  opts: { close?: boolean } = {},
): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
    );
    parts.push(file.data);
    if (opts.close !== false) parts.push(Buffer.from('\r\n'));
  }
  if (opts.close !== false) parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}
