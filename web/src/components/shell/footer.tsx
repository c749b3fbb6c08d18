import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { requestCobrowse } from '@/lib/cobrowse/start';
import { useSite } from '@/lib/site/site-context';
import type { BrandLinkName } from '@/lib/site/types';

const legalLinks: readonly { link: BrandLinkName; label: MessageKey }[] = [
  { link: 'certificate', label: 'footer.certificate' },
  { link: 'privacy', label: 'footer.privacy' },
  { link: 'terms', label: 'footer.terms' },
  { link: 'security', label: 'footer.security' },
];

// A brand may have no app in a store (an empty link): its badge is left out.
const appLinks: readonly { link: BrandLinkName; label: MessageKey }[] = [
  { link: 'appStore', label: 'footer.appStore' },
  { link: 'googlePlay', label: 'footer.googlePlay' },
];

/** Spec §2.7 footer: legal links, screen sharing (one brand: co-browse's consent dialog), rights reserved, app downloads. */
export function Footer({ year = new Date().getFullYear() }: { year?: number }) {
  const t = useT();
  const { brand, language } = useSite();
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <nav className="site-footer__links" aria-label={t('footer.label')}>
          <ul>
            {legalLinks.map(({ link, label }) => (
              <li key={link}>
                <a href={brand.links[link][language]}>{t(label)}</a>
              </li>
            ))}
            {brand.screenShare ? (
              <li>
                {/* Co-browse (issue 18): the consent dialog opens in place, so the visitor stays on the page they need help with; the href is the brand's page for a browser without the SPA's script. */}
                <a
                  href={brand.links.screenShare[language]}
                  aria-haspopup="dialog"
                  onClick={(event) => {
                    event.preventDefault();
                    requestCobrowse({ origin: 'code' });
                  }}
                >
                  {t('footer.screenShare')}
                </a>
              </li>
            ) : null}
          </ul>
        </nav>
        {appLinks.some(({ link }) => brand.links[link][language]) ? (
          <section className="site-footer__apps" aria-labelledby="footer-apps-heading">
            <h2 id="footer-apps-heading">{t('footer.appsHeading')}</h2>
            <ul>
              {appLinks
                .filter(({ link }) => brand.links[link][language])
                .map(({ link, label }) => (
                  <li key={link}>
                    <a className="app-badge" href={brand.links[link][language]}>
                      {t(label)}
                    </a>
                  </li>
                ))}
            </ul>
          </section>
        ) : null}
        <p className="site-footer__rights">{t('footer.rightsReserved', { year, brand: brand.name })}</p>
      </div>
    </footer>
  );
}
