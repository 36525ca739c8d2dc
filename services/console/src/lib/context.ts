import { createContext, useContext } from 'react';
import type { DocfleetClient } from '@docfleet/sdk';
import type { Session } from './session';

export interface ConsoleContext {
  client: DocfleetClient;
  session: Session;
  signOut: () => void;
}

export const Ctx = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('useConsole outside a signed-in console');
  return c;
}
