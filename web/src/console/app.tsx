import { lazy, startTransition, Suspense, use, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { Link as RouteLink, Redirect, Route, Switch, useLocation } from 'wouter';
import { MessagesContext, useT } from '@/i18n/i18n';
import type { Language } from '@/lib/site/types';
import { atLeast, call, readMe, SESSION_ENDED, type Me } from './api';
import { consoleMessages, saveLanguage } from './messages';
import { SessionContext, useSession, type ConsoleSession } from './session';
import { ChatProvider } from './chat/context';
import { JoinPage } from './cobrowse/join';
import { AuditPage } from './pages/audit';
import { ChatPage } from './pages/chat';
import { ChatFiguresPage, ChatTranscriptsPage } from './pages/chat-figures';
import { ClientsPage } from './pages/clients';
import { CustomerPage } from './pages/customer';
import { ImportPage } from './pages/import';
import { MaintenancePage } from './pages/maintenance';
import { NotFoundPage } from './pages/not-found';
import { SearchPage } from './pages/search';
import { StaffPage } from './pages/staff';
import { SignInPage } from './pages/sign-in';
import { SignInCodePage } from './pages/sign-in-code';
import { SetupPage } from './pages/setup';
import './console.css';

// The co-browse viewer and rrweb's replayer: chunks of their own, loaded on its page only.
const ViewerRoute = lazy(() => import('./cobrowse/viewer'));

/**
 * The co-browse viewer's page is a document of its own: the server gives it a
 * looser style policy (docs/cobrowse.md), which must not outlive it. Opened as
 * the document, every way out of it is a document load (plain links, the
 * location's assign), never a client-side route.
 */
export const VIEWER_PATH = /^\/cobrowse\/sessions\/[^/]+\/?$/;

/** Document loads (a seam: tests watch them). */
export const documentNav = {
  assign(href: string) {
    window.location.assign(href);
  },
};

function PlainLink({ href, children }: { href: string; children: React.ReactNode }) {
  return <a href={href}>{children}</a>;
}

const roleKey = { agent: 'console.role.agent', supervisor: 'console.role.supervisor', admin: 'console.role.admin' } as const;

/** Pages a signed-out visitor may open; every other one sends to /sign-in. */
const PUBLIC = ['/sign-in', '/sign-in/code', '/setup'];

function Messages({ language, children }: { language: Language; children: React.ReactNode }) {
  const messages = use(consoleMessages(language));
  // In the commit that shows the texts, before the paint (a passive effect
  // came a moment after them: a screen reader could read French text as
  // English, and a test that found the French heading read lang="en" under
  // load, CI session 25).
  useLayoutEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return <MessagesContext value={messages}>{children}</MessagesContext>;
}

function Header({ viewerDocument }: { viewerDocument: boolean }) {
  const t = useT();
  const { me, setMe, language, setLanguage } = useSession();
  const [, navigate] = useLocation();
  const Link = viewerDocument ? PlainLink : RouteLink;
  const signOut = async () => {
    await call('delete', '/session');
    if (viewerDocument) {
      documentNav.assign('/sign-in');
      return;
    }
    setMe(null);
    navigate('/sign-in');
  };
  const other: Language = language === 'en' ? 'fr' : 'en';
  return (
    <header className="console-header">
      <p className="console-header__title">{t('console.title')}</p>
      {me ? (
        <nav aria-label={t('console.nav.label')} className="console-nav">
          <Link href="/">{t('console.nav.search')}</Link>
          <Link href="/chat">{t('console.nav.chat')}</Link>
          <Link href="/cobrowse">{t('console.nav.cobrowse')}</Link>
          {atLeast(me, 'supervisor') ? <Link href="/chat/figures">{t('console.nav.chatFigures')}</Link> : null}
          {atLeast(me, 'supervisor') ? <Link href="/chat/transcripts">{t('console.nav.chatTranscripts')}</Link> : null}
          {atLeast(me, 'supervisor') ? <Link href="/maintenance">{t('console.nav.maintenance')}</Link> : null}
          {atLeast(me, 'supervisor') ? <Link href="/audit">{t('console.nav.audit')}</Link> : null}
          {atLeast(me, 'supervisor') ? <Link href="/import">{t('console.nav.import')}</Link> : null}
          {atLeast(me, 'admin') ? <Link href="/staff">{t('console.nav.staff')}</Link> : null}
          {atLeast(me, 'admin') ? <Link href="/clients">{t('console.nav.clients')}</Link> : null}
        </nav>
      ) : null}
      <div className="console-header__tools">
        {me ? <span className="console-header__who">{t('console.signedInAs', { name: me.name || me.email, role: t(roleKey[me.role]) })}</span> : null}
        <button type="button" className="console-button console-button--quiet" lang={other} onClick={() => setLanguage(other)}>
          {t('console.language.switch')}
        </button>
        {me ? (
          <button type="button" className="console-button console-button--quiet" onClick={() => void signOut()}>
            {t('console.nav.signOut')}
          </button>
        ) : null}
      </div>
    </header>
  );
}

function Pages({ viewerDocument }: { viewerDocument: boolean }) {
  const { me } = useSession();
  const [location] = useLocation();
  // Whatever routes away from the viewer's document (a redirect to
  // /sign-in, a link) loads a new document instead.
  const leaving = viewerDocument && !VIEWER_PATH.test(location);
  useEffect(() => {
    if (leaving) documentNav.assign(location);
  }, [leaving, location]);
  if (me === undefined || leaving) return null;
  if (me === null && !PUBLIC.includes(location)) return <Redirect to="/sign-in" replace />;
  const pages = (
    <Switch>
      <Route path="/sign-in" component={SignInPage} />
      <Route path="/sign-in/code" component={SignInCodePage} />
      <Route path="/setup" component={SetupPage} />
      <Route path="/" component={SearchPage} />
      <Route path="/customers/:id">{(params) => <CustomerPage id={params.id} />}</Route>
      {me ? <Route path="/chat" component={ChatPage} /> : null}
      {me ? <Route path="/cobrowse">{() => <JoinPage />}</Route> : null}
      {me ? (
        <Route path="/cobrowse/sessions/:id">
          {(params) => (
            <Suspense fallback={null}>
              <ViewerRoute id={params.id} />
            </Suspense>
          )}
        </Route>
      ) : null}
      {atLeast(me ?? null, 'supervisor') ? <Route path="/chat/figures" component={ChatFiguresPage} /> : null}
      {atLeast(me ?? null, 'supervisor') ? <Route path="/chat/transcripts" component={ChatTranscriptsPage} /> : null}
      {atLeast(me ?? null, 'supervisor') ? <Route path="/maintenance" component={MaintenancePage} /> : null}
      {atLeast(me ?? null, 'supervisor') ? <Route path="/audit" component={AuditPage} /> : null}
      {atLeast(me ?? null, 'supervisor') ? <Route path="/import" component={ImportPage} /> : null}
      {atLeast(me ?? null, 'admin') ? <Route path="/staff" component={StaffPage} /> : null}
      {atLeast(me ?? null, 'admin') ? <Route path="/clients" component={ClientsPage} /> : null}
      <Route component={NotFoundPage} />
    </Switch>
  );
  // The chat (its socket) lives as long as the staff member's session: it ends on sign-out.
  return <ChatProvider staffId={me?.id ?? null}>{pages}</ChatProvider>;
}

export function ConsoleApp({ initialLanguage }: { initialLanguage: Language }) {
  const [language, setLanguageState] = useState(initialLanguage);
  const [viewerDocument] = useState(() => VIEWER_PATH.test(window.location.pathname));
  const [me, setMeState] = useState<Me | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    const end = () => {
      setEnded(true);
      setMeState(null); // Pages sends a signed-out visitor to /sign-in
    };
    window.addEventListener(SESSION_ENDED, end);
    return () => window.removeEventListener(SESSION_ENDED, end);
  }, []);
  useEffect(() => {
    let live = true;
    void call('get', '/session').then((answer) => {
      if (live) setMeState(answer.status === 200 ? readMe(answer.data) : null);
    });
    return () => {
      live = false;
    };
  }, []);
  const session: ConsoleSession = useMemo(
    () => ({
      me,
      setMe(next: Me | null) {
        if (next) setEnded(false);
        setMeState(next);
      },
      ended,
      language,
      setLanguage(next: Language) {
        saveLanguage(next);
        // A transition: the current text stays on screen while French loads.
        startTransition(() => setLanguageState(next));
      },
    }),
    [me, ended, language],
  );
  return (
    <SessionContext value={session}>
      <Suspense fallback={null}>
        <Messages language={language}>
          {/* Nothing until the session's answer: the header's nav and tools
              depend on who is signed in, and a header painted without them
              moved when they came (issue 32: CLS 0.05 to 0.15). */}
          {me === undefined ? null : (
            <>
              <Header viewerDocument={viewerDocument} />
              <main id="main" className="console-main">
                <Pages viewerDocument={viewerDocument} />
              </main>
            </>
          )}
        </Messages>
      </Suspense>
    </SessionContext>
  );
}
