import { Suspense, lazy, useCallback, useMemo, useState } from 'react';
import { Ctx } from './lib/context';
import { href, useRoute } from './lib/router';
import { clientFor, isAdminUser, loadSession, saveSession, type Session } from './lib/session';
import { SignIn } from './screens/sign-in';

// The first screen (sign-in) loads alone; every other screen is its own chunk.
const KnowledgeBases = lazy(() => import('./screens/knowledge-bases'));
const KnowledgeBase = lazy(() => import('./screens/knowledge-base'));
const Viewer = lazy(() => import('./viewer/viewer'));
const Search = lazy(() => import('./screens/search'));
const Credits = lazy(() => import('./screens/credits'));
const ApiKeys = lazy(() => import('./screens/api-keys'));
const Workflows = lazy(() => import('./screens/workflows'));

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const route = useRoute();
  const signIn = useCallback((s: Session) => {
    saveSession(s);
    setSession(s);
  }, []);
  const signOut = useCallback(() => {
    saveSession(null);
    setSession(null);
    location.hash = '#/';
  }, []);
  const ctx = useMemo(() => (session ? { session, client: clientFor(session), signOut } : null), [session, signOut]);

  if (!ctx) return <SignIn onSignedIn={signIn} />;
  const [first, id, sub, subId, tool] = route.path;
  let screen: React.ReactNode;
  if (!first) screen = <KnowledgeBases />;
  else if (first === 'kb' && id && sub === 'file' && subId && tool)
    screen = <Workflows key={`${subId}/${tool}`} kbId={id} fileId={subId} tool={tool} />;
  else if (first === 'kb' && id && sub === 'file' && subId)
    screen = <Viewer key={subId} kbId={id} fileId={subId} query={route.query} />;
  else if (first === 'kb' && id && sub === 'search') screen = <Search key={id} kbId={id} query={route.query} />;
  else if (first === 'kb' && id) screen = <KnowledgeBase key={id} kbId={id} />;
  else if (first === 'credits') screen = <Credits />;
  else if (first === 'keys') screen = <ApiKeys />;
  else
    screen = (
      <p role="alert">
        No such page. <a href="#/">Back to knowledge bases</a>
      </p>
    );

  return (
    <Ctx.Provider value={ctx}>
      <header className="topbar">
        <a className="brand" href="#/">
          docfleet
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={!first || first === 'kb' ? 'page' : undefined}>
            Knowledge bases
          </a>
          <a href={href(['credits'])} aria-current={first === 'credits' ? 'page' : undefined}>
            Credits
          </a>
          {isAdminUser(ctx.session) && (
            <a href={href(['keys'])} aria-current={first === 'keys' ? 'page' : undefined}>
              API keys
            </a>
          )}
        </nav>
        <span className="who" title="Signed in">
          {ctx.session.kind === 'user' ? `${ctx.session.email} (${ctx.session.role})` : 'API key'}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Suspense fallback={<p className="muted">Loading…</p>}>{screen}</Suspense>
      </main>
    </Ctx.Provider>
  );
}
