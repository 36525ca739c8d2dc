import type { Principal } from '@docfleet/auth';
import type { Logger } from '@docfleet/logger';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      log: Logger;
      principal?: Principal;
    }
  }
}
export {};
