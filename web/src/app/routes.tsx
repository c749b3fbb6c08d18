import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { matchRoute, Redirect, Route, Switch, useLocation, useRouter, useSearch } from 'wouter';
import { usePageView, type PageCategory } from '@/lib/analytics';
import { notePage } from '@/lib/flow/previous-page';
import { useSite } from '@/lib/site/site-context';
import { usePageFocus } from './page-focus';

// Spec §2.1. Every page is a lazy chunk, so a visitor downloads only the flow
// they use. The server answers 404 for a path that matches none of these
// patterns; it reads them from paths.json, which lists the same patterns (a
// test keeps the two equal).

export interface PageRoute {
  path: string;
  category: PageCategory;
  page: LazyExoticComponent<ComponentType>;
  /** A developer page (/_dev/...): shown only when served with --dev, else not-found. */
  dev?: boolean;
}

const NotFoundRoute = lazy(() => import('./routes/not-found'));
const DevFormsRoute = lazy(() => import('@/features/dev-forms/routes/dev-forms'));
const LoginRoute = lazy(() => import('@/features/login/routes/login'));
const WebsealRoute = lazy(() => import('@/features/webseal/routes/webseal'));
const MyAccountRoute = lazy(() => import('@/features/account/routes/my-account'));
const RoadblockRoute = lazy(() => import('@/features/roadblock/routes/roadblock'));
const CheckYourInboxRoute = lazy(() => import('@/features/roadblock/routes/check-your-inbox'));
const ForgotRoute = lazy(() => import('@/features/recovery/routes/forgot'));
const VerifyRoute = lazy(() => import('@/features/recovery/routes/verify'));
const ResetRoute = lazy(() => import('@/features/recovery/routes/reset'));
// Every legacy registration page is one chunk: the visitor who starts goes through several.
const RegistrationRoute = lazy(() => import('@/features/registration/routes/registration'));

export const pageRoutes: readonly PageRoute[] = [
  { path: '/not-found', category: 'error', page: NotFoundRoute },
  { path: '/_dev/forms', category: 'dev', page: DevFormsRoute, dev: true },
  { path: '/', category: 'login', page: LoginRoute },
  { path: '/webseal.do', category: 'login', page: WebsealRoute },
  { path: '/my-account', category: 'account', page: MyAccountRoute },
  { path: '/roadblock', category: 'roadblock', page: RoadblockRoute },
  { path: '/roadblock/:page', category: 'roadblock', page: RoadblockRoute },
  { path: '/check-your-inbox', category: 'forgot-password', page: CheckYourInboxRoute },
  { path: '/forgot', category: 'forgot-password', page: ForgotRoute },
  { path: '/verify', category: 'forgot-password', page: VerifyRoute },
  { path: '/reset', category: 'forgot-password', page: ResetRoute },
  // Spec §2.4, as REGISTRATION_PAGES of lib/flow/registration-guard (a test keeps them equal; that module stays out of this chunk).
  ...[
    'identification',
    'validation',
    'validation/sms',
    'validation/email',
    'validation/pin',
    'account-creation/email',
    'account-creation/new-email',
    'account-creation/password',
    'password-validation',
    'email-sent',
  ].map((page): PageRoute => ({ path: `/registration/${page}`, category: 'registration', page: RegistrationRoute })),
];

const unknownPage: PageRoute = { path: '*', category: 'error', page: NotFoundRoute };

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

function Page({ route }: { route: PageRoute }) {
  usePageView(route.category);
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
