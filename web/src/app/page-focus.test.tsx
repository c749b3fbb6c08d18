import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi } from '@/lib/flow/testing';
import { updateFlow } from '@/lib/flow/state';
import { renderApp } from '@/test/render';
import { heading } from '@/test/page';
import { belair, siteConfig } from '@/test/site-fixture';
import { pageKey } from '@/lib/navigation/page-key';

afterEach(() => {
  sessionStorage.clear();
  Reflect.deleteProperty(document, 'referrer');
});

describe('focus on a page change (issue 12)', () => {
  it('stays where the browser puts it on the first page, then goes to the h1 of every new page, whose title is set', async () => {
    fakeApi({});
    await renderApp(siteConfig({ brand: belair }), '/');
    await heading('Sign in to your account');
    expect(document.activeElement).toBe(document.body);

    await act(async () => fireEvent.click(screen.getByRole('link', { name: 'Forgot your password?' })));
    const forgot = await heading('Forgot your password?');
    await waitFor(() => expect(document.activeElement).toBe(forgot));
    expect(forgot.getAttribute('tabindex')).toBe('-1');
    expect(document.title).toBe('Forgot your password? | belairdirect');

    updateFlow({ roadblocked: true });
    await act(async () => window.history.pushState(null, '', '/roadblock/technical'));
    const roadblock = await heading('Something went wrong');
    await waitFor(() => expect(document.activeElement).toBe(roadblock));
    expect(document.title).toBe('Something went wrong | belairdirect');
  });

  it('the header’s choices in the address are no page change', () => {
    expect(pageKey('/forgot', '?lang=fr&x=1&province=qc')).toBe('/forgot?x=1');
    expect(pageKey('/forgot', '?lang=fr')).toBe(pageKey('/forgot', ''));
    expect(pageKey('/reset', '?token=a')).not.toBe(pageKey('/reset', ''));
  });

  it('a first page that continues a journey here (the SSO post’s redirect) gets focus on its h1', async () => {
    Object.defineProperty(document, 'referrer', { value: `${window.location.origin}/reset`, configurable: true });
    fakeApi({});
    await renderApp(siteConfig({ brand: belair }), '/forgot');
    const forgot = await heading('Forgot your password?');
    await waitFor(() => expect(document.activeElement).toBe(forgot));
  });

  it('one from elsewhere does not', async () => {
    Object.defineProperty(document, 'referrer', { value: 'https://www.example.com/', configurable: true });
    fakeApi({});
    await renderApp(siteConfig({ brand: belair }), '/forgot');
    await heading('Forgot your password?');
    expect(document.activeElement).toBe(document.body);
  });
});
