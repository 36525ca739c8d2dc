// What a test measures when it asks how much memory a structure keeps: the process's memory after full
// garbage collections, so only what is still reachable counts. Without --expose-gc on the command line
// the flag is set at run time and `gc` taken from a fresh context (jest gives no way to pass it).
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/** process.memoryUsage() after two full GCs. */
export function memoryAfterGc(): NodeJS.MemoryUsage {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
  gc();
  return process.memoryUsage();
}

/** What the process retains after full GCs: JS heap and array buffers (typed arrays' contents live outside the heap). */
export function retainedBytes(): number {
  const m = memoryAfterGc();
  return m.heapUsed + m.arrayBuffers;
}
