// Safe reading of a local file named by an agent: the path must be absolute, name a regular file
// (not a directory, device, FIFO or socket: /dev/zero would stream forever) and fit the size limit.
// The checks run on the opened descriptor, so the path cannot be swapped between check and read,
// and the stream stops at the size seen at open even if the file keeps growing.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ToolInputError } from './errors';

export interface OpenedFile {
  name: string;
  size: number;
  stream: NodeJS.ReadableStream;
  close(): Promise<void>;
}

function mib(n: number): string {
  return n < 1024 * 1024 ? `${n} bytes` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export async function openLocalFile(filePath: string, maxBytes: number): Promise<OpenedFile> {
  if (!path.isAbsolute(filePath)) throw new ToolInputError(`path must be absolute, got ${JSON.stringify(filePath)}`);
  let fh: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the server waiting for a writer.
    fh = await open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (code ?? 'cannot open');
    throw new ToolInputError(`cannot read ${filePath}: ${why}`, 'local_file_unreadable');
  }
  try {
    const st = await fh.stat();
    if (!st.isFile())
      throw new ToolInputError(
        `${filePath} is not a regular file (directories, devices, FIFOs and sockets cannot be uploaded)`,
        'local_file_unreadable',
      );
    if (st.size === 0) throw new ToolInputError(`${filePath} is empty`, 'local_file_empty');
    if (st.size > maxBytes)
      throw new ToolInputError(
        `${filePath} is ${mib(st.size)}, over the upload limit of ${mib(maxBytes)}`,
        'local_file_too_large',
      );
    const stream = fh.createReadStream({ start: 0, end: st.size - 1, autoClose: false });
    return { name: path.basename(filePath), size: st.size, stream, close: () => fh.close().catch(() => undefined) };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}
