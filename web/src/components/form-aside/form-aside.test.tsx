import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi } from '@/lib/flow/testing';
import { renderApp } from '@/test/render';
import { belair, bna, siteConfig } from '@/test/site-fixture';
import type { PublicBrand } from '@/lib/site/types';

afterEach(() => {
  sessionStorage.clear();
});

const aside = () => document.querySelector<HTMLElement>('.form-aside');

async function open(config = siteConfig({ brand: belair }), url = '/') {
  fakeApi({});
  await renderApp(config, url);
}

describe('FormAside', () => {
  it('shows the promo and the store badges beside the login form (en)', async () => {
    await open();
    const panel = within(aside()!);
    expect(panel.getByRole('heading', { level: 2, name: 'Your insurance in your pocket' })).toBeTruthy();
    expect(panel.getByText('See your policies wherever you are.')).toBeTruthy();
    expect(panel.getByRole('link', { name: 'Discover the app' }).getAttribute('href')).toBe('https://www.belair.test/en/app');
    // Decorative (empty alt): no image role; the box is reserved by width and height.
    expect(panel.queryByRole('img')).toBeNull();
    const img = aside()!.querySelector('img')!;
    expect([img.getAttribute('src'), img.getAttribute('alt'), img.getAttribute('width'), img.getAttribute('height')]).toEqual([
      '/brands/belair/promo.svg',
      '',
      '320',
      '180',
    ]);
    expect(panel.getByRole('link', { name: 'Download on the App Store' }).getAttribute('href')).toBe(belair.links.appStore.en);
    expect(panel.getByRole('link', { name: 'Get it on Google Play' }).getAttribute('href')).toBe(belair.links.googlePlay.en);
  });

  it('speaks French, with the image described when the brand file gives an alt', async () => {
    await open(siteConfig({ brand: belair, province: 'qc', language: 'fr' }));
    const panel = within(aside()!);
    expect(panel.getByRole('heading', { level: 2, name: 'Votre assurance dans votre poche' })).toBeTruthy();
    expect(panel.getByRole('img', { name: 'Un téléphone' })).toBeTruthy();
    expect(panel.getByRole('link', { name: 'Découvrir l’application' })).toBeTruthy();
    expect(panel.getByRole('heading', { level: 2, name: 'Téléchargez l’application' })).toBeTruthy();
    expect(panel.getByRole('link', { name: 'Télécharger dans l’App Store' }).getAttribute('href')).toBe(belair.links.appStore.fr);
    expect(panel.getByRole('link', { name: 'Disponible sur Google Play' }).getAttribute('href')).toBe(belair.links.googlePlay.fr);
  });

  it('follows a language change made in the header', async () => {
    await open(siteConfig({ brand: belair, province: 'on', language: 'en' }));
    fireEvent.click(screen.getByRole('button', { name: 'Français' }));
    await waitFor(() =>
      expect(within(aside()!).getByRole('heading', { level: 2, name: 'Votre assurance dans votre poche' })).toBeTruthy(),
    );
  });

  it('is not shown in webview mode', async () => {
    await open(siteConfig({ brand: belair, webview: true }));
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeTruthy();
    expect(aside()).toBeNull();
    expect(screen.queryByRole('link', { name: 'Download on the App Store' })).toBeNull();
  });

  it('is beside the recovery forms too', async () => {
    await open(siteConfig({ brand: belair }), '/forgot');
    expect(within(aside()!).getByRole('heading', { level: 2, name: 'Your insurance in your pocket' })).toBeTruthy();
  });

  it('shows the app links alone for a brand without promo, and nothing without either', async () => {
    await open(siteConfig({ brand: bna, province: 'on', language: 'en' }));
    expect(within(aside()!).queryByRole('heading', { name: 'Your insurance in your pocket' })).toBeNull();
    expect(within(aside()!).getByRole('link', { name: 'Get it on Google Play' })).toBeTruthy();
  });

  it('leaves out a store the brand has no app in, and the panel when there is nothing to show', async () => {
    const none = { en: '', fr: '' };
    const noPlay: PublicBrand = { ...bna, links: { ...bna.links, googlePlay: none } };
    await open(siteConfig({ brand: noPlay, province: 'on', language: 'en' }));
    expect(within(aside()!).getByRole('link', { name: 'Download on the App Store' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Get it on Google Play' })).toBeNull(); // the footer's too
  });

  it('renders nothing for a brand with neither promo nor app links', async () => {
    const none = { en: '', fr: '' };
    const bare: PublicBrand = { ...bna, links: { ...bna.links, appStore: none, googlePlay: none } };
    await open(siteConfig({ brand: bare, province: 'on', language: 'en' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to your account' })).toBeTruthy();
    expect(aside()).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Get the mobile app' })).toBeNull();
  });
});
