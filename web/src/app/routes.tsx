import { createElement, lazy, Suspense, useEffect, type ComponentType } from 'react';
import { matchRoute, Route, Switch, useLocation, useRouter, useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { loadSection, type SectionName } from '@/i18n/section';
import { usePageView, type PageCategory } from '@/lib/analytics';
import { notePage } from '@/lib/flow/previous-page';
import { useSite } from '@/lib/site/site-context';
import type { Language } from '@/lib/site/types';
import { usePageFocus } from './page-focus';

// Spec §2.1. Every page is a lazy chunk, so a visitor downloads only the flow
// they use. The server answers 404 for a path that matches none of these
// patterns; it reads them from paths.json, which lists the same patterns (a
// test keeps the two equal).

/**
 * A page in its own chunk. `preload()` fetches the chunk; once it has
 * arrived the page renders at once, without suspending: main.tsx preloads
 * the first page before the first render, so the first paint holds the
 * whole page and nothing below it (the footer) moves when it arrives
 * (issue 12, defect 3). Before that it is a React.lazy of the same import.
 */
export interface LazyPage {
  (): React.JSX.Element;
  preload: () => Promise<unknown>;
}

export function lazyPage(load: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | undefined;
  let loading: Promise<{ default: ComponentType }> | undefined;
  const preload = () =>
    (loading ??= load().then(
      (module) => {
        loaded = module.default;
        return module;
      },
      (error: unknown) => {
        loading = undefined; // a later render tries again
        throw error;
      },
    ));
  const Lazy = lazy(preload);
  const Page = () => createElement(loaded ?? Lazy);
  Page.preload = preload;
  return Page;
}

export interface PageRoute {
  path: string;
  category: PageCategory;
  page: LazyPage;
  /** A developer page (/_dev/...): shown only when served with --dev, else not-found. */
  dev?: boolean;
  /**
   * The message sections the page reads (MessageSection): loaded with its
   * chunk before the first render, or the page would suspend at its first
   * paint and the footer would jump when they arrive (issue 32).
   */
  sections?: readonly SectionName[];
  /**
   * The pages the visitor goes on to from this one, in other chunks: fetched
   * at their first key press, pointer press or input here (not at load, so
   * a first visit downloads only its page's chunks), long before the form
   * is sent, so the next page opens at once rather than after an empty
   * frame while its chunk arrives.
   */
  next?: readonly LazyPage[];
  /**
   * The page always shows the brand's promo panel (components/form-aside) when it first renders (webview
   * mode aside): index.html then names the panel's image (scripts/page-chunks.ts,
   * internal/httpapi/preload.go), so a phone asks for it with the scripts rather than after the first
   * render; it is the largest element these pages show on a phone (Lighthouse's LCP element, issue 32).
   */
  aside?: true;
}

const NotFoundRoute = lazyPage(() => import('./routes/not-found'));
const DevFormsRoute = lazyPage(() => import('@/features/dev-forms/routes/dev-forms'));
const LoginRoute = lazyPage(() => import('@/features/login/routes/login'));
const WebsealRoute = lazyPage(() => import('@/features/webseal/routes/webseal'));
const MyAccountRoute = lazyPage(() => import('@/features/account/routes/my-account'));
const ConsentRoute = lazyPage(() => import('@/features/account/routes/consent'));
const UndoDeletionRoute = lazyPage(() => import('@/features/account/routes/undo-deletion'));
const EmailUndoRoute = lazyPage(() => import('@/features/account/routes/email-undo'));
const RoadblockRoute = lazyPage(() => import('@/features/roadblock/routes/roadblock'));
const CheckYourInboxRoute = lazyPage(() => import('@/features/roadblock/routes/check-your-inbox'));
const ForgotRoute = lazyPage(() => import('@/features/recovery/routes/forgot'));
const VerifyRoute = lazyPage(() => import('@/features/recovery/routes/verify'));
const ResetRoute = lazyPage(() => import('@/features/recovery/routes/reset'));
// The legacy registration's first page is a chunk of its own (the entry page, issue 32's budget); the
// pages after it are one chunk: the visitor who starts goes through several.
const RegistrationIdentificationRoute = lazyPage(() => import('@/features/registration/routes/identification'));
const RegistrationRoute = lazyPage(() => import('@/features/registration/routes/registration'));
// Smart registration (spec §2.5) likewise: the account type (and its help), then the rest.
const SmartAccountTypeRoute = lazyPage(() => import('@/features/smart-registration/routes/account-type'));
const SmartRegistrationRoute = lazyPage(() => import('@/features/smart-registration/routes/smart-registration'));

export const pageRoutes: readonly PageRoute[] = [
  { path: '/not-found', category: 'error', page: NotFoundRoute },
  { path: '/_dev/forms', category: 'dev', page: DevFormsRoute, dev: true },
  { path: '/', category: 'login', page: LoginRoute, aside: true },
  { path: '/webseal.do', category: 'login', page: WebsealRoute },
  { path: '/my-account', category: 'account', page: MyAccountRoute, sections: ['security', 'oidc'] },
  { path: '/oidc/consent', category: 'account', page: ConsentRoute, sections: ['oidc'] },
  { path: '/undo-deletion', category: 'account', page: UndoDeletionRoute, sections: ['security'] },
  { path: '/email-undo', category: 'account', page: EmailUndoRoute, sections: ['security'] },
  { path: '/roadblock', category: 'roadblock', page: RoadblockRoute },
  { path: '/roadblock/:page', category: 'roadblock', page: RoadblockRoute },
  { path: '/check-your-inbox', category: 'forgot-password', page: CheckYourInboxRoute },
  { path: '/forgot', category: 'forgot-password', page: ForgotRoute, aside: true },
  { path: '/verify', category: 'forgot-password', page: VerifyRoute },
  { path: '/reset', category: 'forgot-password', page: ResetRoute },
  // Spec §2.4, as REGISTRATION_PAGES of lib/flow/registration-guard (a test keeps them equal; that module
  // stays out of this chunk). One entry per page: scripts/page-chunks.ts reads them to preload the chunk.
  { path: '/registration/identification', category: 'registration', page: RegistrationIdentificationRoute, sections: ['registration'], next: [RegistrationRoute], aside: true },
  { path: '/registration/validation', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/validation/sms', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/validation/email', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/validation/pin', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/account-creation/email', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/account-creation/new-email', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/account-creation/password', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/password-validation', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/email-sent', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/link', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  { path: '/registration/confirm-email', category: 'registration', page: RegistrationRoute, sections: ['registration'] },
  // Spec §2.5, as SMART_PATHS of features/smart-registration/session.ts.
  { path: '/create-an-account/identification/account-type', category: 'smart-registration', page: SmartAccountTypeRoute, sections: ['smartRegistration'], next: [SmartRegistrationRoute], aside: true },
  { path: '/create-an-account/identification/account-type-help', category: 'smart-registration', page: SmartAccountTypeRoute, sections: ['smartRegistration'], next: [SmartRegistrationRoute] },
  { path: '/create-an-account/identification', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/verify/options', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/verify/code', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/verify/email', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/account-creation/create', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/create', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/confirmation', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/identity-verification', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/pin-identification', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/unavailable-option', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/unable-to-identify', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
  { path: '/create-an-account/roadblock/unable-to-identify', category: 'smart-registration', page: SmartRegistrationRoute, sections: ['smartRegistration'] },
];

const unknownPage: PageRoute = { path: '*', category: 'error', page: NotFoundRoute };

/**
 * Whether a route pattern matches a path, as wouter's default parser and
 * the server (internal/httpapi/spa.go matchPath) do for these patterns:
 * literal segments, ":name" for one segment; a trailing slash is ignored.
 */
export function patternMatches(pattern: string, path: string): boolean {
  const xs = (path.length > 1 ? path.replace(/\/$/, '') : path).split('/');
  const ps = pattern.split('/');
  return ps.length === xs.length && ps.every((seg, i) => (seg.startsWith(':') ? xs[i] !== '' : seg === xs[i]));
}

/**
 * Fetches the chunk of the page a path shows (not-found when none), and the
 * message sections it reads in the language, before the first render; the server has already asked for it in index.html
 * (<link rel="modulepreload">), so this mostly waits for it. Never rejects:
 * a page that fails to load is the error boundary's business at render.
 */
export function preloadPage(path: string, dev: boolean, language: Language = 'en'): Promise<void> {
  if (redirectTarget(path, '', true) !== null) return Promise.resolve();
  const route = pageRoutes.find((r) => patternMatches(r.path, path) && (!r.dev || dev)) ?? unknownPage;
  return Promise.all([route.page.preload(), ...(route.sections ?? []).map((name) => loadSection(name, language))]).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The redirects of spec §2.1, exactly as the server applies them
 * (internal/httpapi/spa.go), for navigation inside the app: /WAA/<path> to
 * /<path> and /registration to /registration/identification, both keeping
 * the query string; a path under /create-an-account that is no page to
 * /not-found. `known` tells whether a page route matches the path.
 */
export function redirectTarget(path: string, search: string, known: boolean): string | null {
  const query = search ? `?${search.replace(/^\?/, '')}` : '';
  if (path === '/WAA' || path === '/WAA/') return `/${query}`;
  // Leading slashes are dropped so the target is never a protocol-relative //host.
  if (path.startsWith('/WAA/')) return `/${path.slice('/WAA/'.length).replace(/^\/+/, '')}${query}`;
  if (path === '/registration' || path === '/registration/') return `/registration/identification${query}`;
  if ((path === '/create-an-account' || path.startsWith('/create-an-account/')) && !known) return '/not-found';
  return null;
}

// What shows the visitor has started on a page: then its `next` pages are fetched.
const STARTS = ['keydown', 'pointerdown', 'input'] as const;

/** Fetches a route's `next` pages at the visitor's first key press, pointer press or input on the page. */
function usePreloadNext(next: readonly LazyPage[] | undefined): void {
  useEffect(() => {
    if (!next?.length) return;
    const stop = () => {
      for (const name of STARTS) document.removeEventListener(name, preload, true);
    };
    function preload() {
      stop();
      // A failed fetch is tried again when the page renders.
      for (const page of next ?? []) page.preload().catch(() => undefined);
    }
    for (const name of STARTS) document.addEventListener(name, preload, { capture: true, passive: true });
    return stop;
  }, [next]);
}

function Page({ route }: { route: PageRoute }) {
  usePageView(route.category);
  usePreloadNext(route.next);
  const Component = route.page;
  return <Component />;
}

export function AppRoutes() {
  const [path] = useLocation();
  const search = useSearch();
  const { parser } = useRouter();
  const { dev } = useSite();
  usePageFocus();
  // The flow guards (spec §2.4) read the page the visitor came from.
  notePage(path);
  const known = pageRoutes.some((route) => matchRoute(parser, route.path, path)[0]);
  const target = redirectTarget(path, search, known);
  if (target !== null) return <Redirect to={target} replace />;
  return (
    <Suspense fallback={null}>
      <Switch>
        {pageRoutes.map((route) => (
          <Route key={route.path} path={route.path}>
            <Page route={route.dev && !dev ? unknownPage : route} />
          </Route>
        ))}
        <Route>
          <Page route={unknownPage} />
        </Route>
      </Switch>
    </Suspense>
  );
}
