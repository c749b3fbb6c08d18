import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { useSite } from '@/lib/site/site-context';
import './form-aside.css';

type Store = 'appStore' | 'googlePlay';

const stores: readonly { store: Store; line1: MessageKey; line2: MessageKey }[] = [
  { store: 'appStore', line1: 'aside.appStore.line1', line2: 'aside.appStore.line2' },
  { store: 'googlePlay', line1: 'aside.googlePlay.line1', line2: 'aside.googlePlay.line2' },
];

/**
 * The promo panel and the app download links beside a form (spec §1): the
 * brand file's promo in the page's language and its store links. Put it as
 * the last child of the page's <section className="page ...">: from tablet
 * width (768 px) the section becomes two columns with the panel on the
 * right, below the form on phones (form-aside.css). Nothing in webview mode
 * (the app is already there) nor for a brand without promo or app links.
 */
export function FormAside() {
  const { brand, language, webview } = useSite();
  if (webview) return null;
  const promo = brand.promos?.[language] ?? null;
  const apps = stores.filter(({ store }) => brand.links[store][language] !== '');
  if (!promo && apps.length === 0) return null;
  return (
    <div className="form-aside">
      {promo ? (
        <section className="form-aside__promo" aria-labelledby="form-aside-title">
          <h2 id="form-aside-title">{promo.title}</h2>
          {/* The box is reserved (width, height, aspect-ratio): no shift when the image arrives.
              Not loading="lazy": on a phone the image is the largest thing the first screen shows
              (Lighthouse's LCP element on the login page), and lazily it was asked for only after
              the first layout, 350 ms later (issue 32). */}
          <img
            className="form-aside__image"
            src={promo.image}
            alt={promo.imageAlt}
            width={320}
            height={180}
            decoding="async"
          />
          <p>{promo.text}</p>
          <p>
            <a href={promo.link.url}>{promo.link.text}</a>
          </p>
        </section>
      ) : null}
      {apps.length > 0 ? <AppLinks apps={apps} /> : null}
    </div>
  );
}

function AppLinks({ apps }: { apps: typeof stores }) {
  const t = useT();
  const { brand, language } = useSite();
  return (
    <div className="form-aside__apps">
      <h2>{t('aside.appsHeading')}</h2>
      <ul>
        {apps.map(({ store, line1, line2 }) => (
          <li key={store}>
            <a className="store-badge" href={brand.links[store][language]}>
              <PhoneGlyph store={store} />
              {/* Two lines of live text: the link's name reads "Download on the App Store". */}
              <span className="store-badge__text">
                <span className="store-badge__small">{t(line1)}</span>{' '}
                <span className="store-badge__big">{t(line2)}</span>
              </span>
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A generic phone, with a download arrow (App Store) or a play triangle (Google Play) on its screen. */
function PhoneGlyph({ store }: { store: Store }) {
  return (
    <svg className="store-badge__glyph" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <rect x="5.5" y="1.5" width="13" height="21" rx="2.5" fill="none" stroke="currentColor" strokeWidth="1.8" />
      <path d="M10 19.5h4" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
      {store === 'appStore' ? (
        <path
          d="M12 6v7m-3-3l3 3 3-3"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.8"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      ) : (
        <path d="M10 6.5v7l5.5-3.5z" fill="currentColor" />
      )}
    </svg>
  );
}
