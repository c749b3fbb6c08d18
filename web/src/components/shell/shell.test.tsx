import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { readCookies } from '@/lib/site/cookies';
import { renderApp } from '@/test/render';
import { belair, bna, servus, siteConfig } from '@/test/site-fixture';
import { telHref } from '@/lib/site/tel';

describe('header', () => {
  it('shows the logo linking to the marketing site, the phone number and the province list', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }));
    const header = screen.getByRole('banner');
    const logo = within(header).getByRole('link', { name: 'belairdirect home page' });
    expect(logo.getAttribute('href')).toBe(belair.links.marketing.en);
    expect(within(logo).getByRole('img', { name: 'belairdirect' }).getAttribute('src')).toBe('/brands/belair/logo.svg');
    expect(within(header).getByRole('link', { name: '1 833-000-0102' }).getAttribute('href')).toBe('tel:+18330000102');
    const select = within(header).getByRole('combobox', { name: 'Province' });
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Quebec', 'Ontario', 'Alberta']);
    expect((select as HTMLSelectElement).value).toBe('on');
  });

  it('offers the other language with its lang attribute when the province has two', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }));
    expect(screen.getByRole('button', { name: 'Français' }).getAttribute('lang')).toBe('fr');
  });

  it.each([
    { name: 'belair ab', config: siteConfig({ brand: belair, province: 'ab', language: 'en' }) },
    { name: 'servus', config: siteConfig({ brand: servus }) },
  ])('hides the language toggle for an English-only province ($name)', async ({ config }) => {
    await renderApp(config);
    expect(screen.queryByRole('button', { name: 'Français' })).toBeNull();
    expect(screen.getByRole('banner')).toBeTruthy();
  });

  it('lists only menu provinces, plus a hidden one while it is the current one', async () => {
    const first = await renderApp(siteConfig({ brand: bna, province: 'qc', language: 'en' }));
    expect(screen.getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual(['qc', 'on']);
    first.unmount();
    await renderApp(siteConfig({ brand: bna, province: 'ab', language: 'en' }));
    expect(screen.getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual(['qc', 'on', 'ab']);
  });

  it('switches the language without a reload or a path change, and sets the cookie', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found?x=1');
    // The French catalogue loads in a transition; act must be awaited for React to retry.
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    expect(await screen.findByRole('heading', { level: 1, name: 'Page introuvable' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'English' }).getAttribute('lang')).toBe('en');
    // <html lang> is set by an effect after the French page commits: wait for it, not for the machine.
    await waitFor(() => expect(document.documentElement.lang).toBe('fr'));
    expect(readCookies().language).toBe('fr');
    expect(window.location.pathname + window.location.search).toBe('/not-found?x=1');
  });

  it('names the brand as it writes itself in the current language: logo, home link, title and footer', async () => {
    await renderApp(siteConfig({ brand: bna, province: 'qc', language: 'en' }), '/not-found');
    const logoIn = () => within(screen.getByRole('banner'));
    expect(logoIn().getByRole('img', { name: 'National Bank Insurance' }).getAttribute('src')).toBe('/brands/bna/logo.svg');
    await waitFor(() => expect(document.title).toBe('Page not found | National Bank Insurance'));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    expect(await screen.findByRole('heading', { level: 1, name: 'Page introuvable' })).toBeTruthy();
    const logo = logoIn().getByRole('link', { name: 'Page d’accueil de Banque Nationale Assurances' });
    expect(within(logo).getByRole('img', { name: 'Banque Nationale Assurances' }).getAttribute('src')).toBe('/brands/bna/logo.fr.svg');
    await waitFor(() => expect(document.title).toBe('Page introuvable | Banque Nationale Assurances'));
    expect(within(screen.getByRole('contentinfo')).getByText(/Banque Nationale Assurances\. Tous droits réservés/)).toBeTruthy();
    expect(document.body.textContent).not.toContain('National Bank Insurance');
  });

  it('switches the province, its phone and, when the province lacks it, the language', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Page introuvable' })).toBeTruthy();
    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Province' }), { target: { value: 'ab' } }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    expect(readCookies()).toMatchObject({ province: 'ab', language: 'en' });
    expect(screen.queryByRole('button', { name: 'Français' })).toBeNull();
    expect(screen.getByRole('link', { name: '1 833-000-0102' })).toBeTruthy();
    expect(window.location.pathname).toBe('/not-found');
  });

  it('writes the choice over a ?province= or ?lang= in the address, which the server reads first on a reload', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/forgot?lang=en&x=1&province=on');
    await screen.findByRole('heading', { level: 1, name: 'Forgot your password?' });
    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Province' }), { target: { value: 'qc' } }));
    expect(window.location.pathname + window.location.search).toBe('/forgot?lang=en&x=1&province=qc');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié\u00a0?' });
    expect(window.location.pathname + window.location.search).toBe('/forgot?lang=fr&x=1&province=qc');
    // Alberta is English only: the language follows, in the address too.
    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Province' }), { target: { value: 'ab' } }));
    await screen.findByRole('heading', { level: 1, name: 'Forgot your password?' });
    expect(window.location.pathname + window.location.search).toBe('/forgot?lang=en&x=1&province=ab');
  });

  it('has a phone-sized button naming the province and language that opens and closes their panel', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    const button = screen.getByRole('button', { name: 'Province et langue\u00a0: Québec, français' });
    const panel = document.getElementById(button.getAttribute('aria-controls') ?? '');
    expect(panel).not.toBeNull();
    expect(within(panel as HTMLElement).getByRole('combobox', { name: 'Province' })).toBeTruthy();
    expect(within(panel as HTMLElement).getByRole('button', { name: 'English' })).toBeTruthy();
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    fireEvent.keyDown(within(panel as HTMLElement).getByRole('combobox', { name: 'Province' }), { key: 'Escape' });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(button);
  });

  it('keeps the language when the new province offers it', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    fireEvent.change(screen.getByRole('combobox', { name: 'Province' }), { target: { value: 'on' } });
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Province' }) as HTMLSelectElement).value).toBe('on'));
    expect(readCookies()).toEqual({ province: 'on' });
    expect(screen.getByRole('heading', { level: 1, name: 'Page introuvable' })).toBeTruthy();
  });
});

describe('footer', () => {
  it('has the legal links, app links and rights-reserved text of the brand', async () => {
    await renderApp(siteConfig({ brand: bna, province: 'on', language: 'en' }));
    const footer = screen.getByRole('contentinfo');
    const href = (name: string) => within(footer).getByRole('link', { name }).getAttribute('href');
    expect(href('Security certificate')).toBe(bna.links.certificate.en);
    expect(href('Privacy')).toBe(bna.links.privacy.en);
    expect(href('Terms of use')).toBe(bna.links.terms.en);
    expect(href('Online security')).toBe(bna.links.security.en);
    expect(href('Download on the App Store')).toBe(bna.links.appStore.en);
    expect(href('Get it on Google Play')).toBe(bna.links.googlePlay.en);
    expect(within(footer).getByText(`© ${new Date().getFullYear()} National Bank Insurance. All rights reserved.`)).toBeTruthy();
  });

  it.each([
    { brand: belair, shown: true },
    { brand: bna, shown: false },
    { brand: servus, shown: false },
  ])('shows the screen-share link only for its brand ($brand.id: $shown)', async ({ brand, shown }) => {
    await renderApp(siteConfig({ brand }));
    const link = within(screen.getByRole('contentinfo')).queryByRole('link', { name: 'Screen sharing' });
    expect(link !== null).toBe(shown);
    if (link) expect(link.getAttribute('href')).toBe(brand.links.screenShare.en);
  });

  it('uses the French links in French', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: 'Confidentialité' }).getAttribute('href')).toBe(belair.links.privacy.fr);
  });
});

describe('shell', () => {
  it('has a skip link to main and the three landmarks', async () => {
    await renderApp(siteConfig());
    expect(screen.getByRole('link', { name: 'Skip to main content' }).getAttribute('href')).toBe('#main');
    expect(screen.getByRole('main').id).toBe('main');
    expect(screen.getByRole('banner')).toBeTruthy();
    expect(screen.getByRole('contentinfo')).toBeTruthy();
  });

  it('hides header and footer in webview mode', async () => {
    await renderApp(siteConfig({ webview: true }));
    expect(screen.queryByRole('banner')).toBeNull();
    expect(screen.queryByRole('contentinfo')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Skip to main content' })).toBeNull();
    expect(within(screen.getByRole('main')).getByRole('heading', { level: 1 })).toBeTruthy();
  });

  it('sets <html lang> and the page title', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    expect(document.documentElement.lang).toBe('fr');
    await waitFor(() => expect(document.title).toBe('Page introuvable | belairdirect'));
  });
});

describe('telHref', () => {
  it.each([
    { phone: '1 833-000-0101', href: 'tel:+18330000101' },
    { phone: '(514) 555-0101', href: 'tel:+15145550101' },
    { phone: '+1 800 555 0199', href: 'tel:+18005550199' },
    { phone: '611', href: 'tel:611' },
  ])('$phone', ({ phone, href }) => {
    expect(telHref(phone)).toBe(href);
  });
});
