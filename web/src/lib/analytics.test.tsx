import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '@/test/render';
import { belair, siteConfig } from '@/test/site-fixture';
import { pushPageView } from './analytics';

describe('pushPageView', () => {
  it('creates window.dataLayer when absent and appends one event', () => {
    expect(window.dataLayer).toBeUndefined();
    const event = { path: '/x', brand: 'belair', province: 'qc', language: 'fr', pageCategory: 'error' } as const;
    pushPageView(event);
    pushPageView(event);
    expect(window.dataLayer).toEqual([
      { event: 'pageView', ...event },
      { event: 'pageView', ...event },
    ]);
  });

  it('keeps what another script already pushed', () => {
    window.dataLayer = [{ event: 'gtm.js' }];
    pushPageView({ path: '/', brand: 'bna', province: 'on', language: 'en', pageCategory: 'login' });
    expect(window.dataLayer).toHaveLength(2);
  });
});

describe('page views of the app', () => {
  it('pushes exactly one event on the initial load, under strict mode', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'qc', language: 'fr' }), '/not-found?x=1');
    await waitFor(() => expect(window.dataLayer).toHaveLength(1));
    expect(window.dataLayer).toEqual([
      { event: 'pageView', path: '/not-found', brand: 'belair', province: 'qc', language: 'fr', pageCategory: 'error' },
    ]);
  });

  it('pushes one event per navigation, none for a province or language change', async () => {
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Back to login' })));
    await waitFor(() => expect(window.dataLayer).toHaveLength(2));
    expect(window.location.pathname).toBe('/');
    expect(window.dataLayer?.[1]).toMatchObject({ path: '/', pageCategory: 'login' });

    await act(async () => fireEvent.change(screen.getByRole('combobox', { name: 'Province' }), { target: { value: 'qc' } }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    await screen.findByRole('heading', { level: 1, name: 'Connectez-vous à votre compte' });
    expect(window.dataLayer).toHaveLength(2);

    await act(async () => window.history.pushState(null, '', '/zzz'));
    await waitFor(() => expect(window.dataLayer).toHaveLength(3));
    expect(window.dataLayer?.[2]).toMatchObject({ path: '/zzz', province: 'qc', language: 'fr' });
  });

  it('pushes nothing for a redirect, one event for the page it lands on', async () => {
    await renderApp(siteConfig(), '/WAA/not-found?x=1');
    await waitFor(() => expect(window.location.pathname + window.location.search).toBe('/not-found?x=1'));
    await waitFor(() => expect(window.dataLayer).toHaveLength(1));
    expect(window.dataLayer?.[0]).toMatchObject({ path: '/not-found' });
  });
});
