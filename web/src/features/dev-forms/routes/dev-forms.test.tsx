import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderApp } from '@/test/render';
import { belair, siteConfig } from '@/test/site-fixture';

const page = (dev: boolean) => renderApp(siteConfig({ brand: belair, province: 'on', language: 'en', dev }), '/_dev/forms');
const section = (name: string) => screen.getByRole('region', { name });

// The lazy page is compiled on first import; do it before the clock of findBy starts.
beforeAll(() => import('./dev-forms'));

describe('/_dev/forms', () => {
  it('is not found unless served with --dev', async () => {
    await page(false);
    expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
  });

  it('shows every field in each state', async () => {
    await page(true);
    expect(screen.getByRole('heading', { level: 1, name: 'Form components' })).toBeTruthy();
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(
      expect.arrayContaining(['Empty', 'Filled', 'With errors', 'Disabled']),
    );
    for (const name of ['Empty', 'Filled', 'With errors', 'Disabled']) {
      const form = within(section(name)).getByRole('form', { name });
      expect(within(form).getAllByRole('textbox').length + within(form).getAllByLabelText(/password/i).length).toBeGreaterThan(12);
      expect(within(form).getByRole('group', { name: 'Date of birth' })).toBeTruthy();
      expect(within(form).getByRole('checkbox')).toBeTruthy();
    }
    expect((within(section('Filled')).getByRole('textbox', { name: 'Phone number' }) as HTMLInputElement).value).toBe('514-555-0123');
    expect((within(section('Filled')).getByRole('textbox', { name: 'Postal code' }) as HTMLInputElement).value).toBe('H2X 1Y4');
    expect(within(section('Disabled')).getByRole('textbox', { name: 'Email address' })).toHaveProperty('disabled', true);
    expect(within(section('Disabled')).getByRole('button', { name: 'Submit' })).toHaveProperty('disabled', true);
    const errors = section('With errors');
    const summary = await within(errors).findByRole('alert', { name: 'Please correct the following errors' });
    // Every field but the licence province, which has no rule of its own.
    expect(within(summary).getAllByRole('link').length).toBe(15);
    expect(within(errors).getByText('A message from the server about the whole form.')).toBeTruthy();
  });

  it('sends the normalized values of the filled form', async () => {
    await page(true);
    const filled = section('Filled');
    await act(async () => fireEvent.click(within(filled).getByRole('button', { name: 'Submit' })));
    const status = within(filled).getByRole('status');
    await waitFor(() => expect(status.textContent).toMatch(/^Values sent /));
    const values = JSON.parse(status.textContent?.replace(/^Values sent /, '') ?? '{}') as Record<string, unknown>;
    expect(values).toMatchObject({
      email: 'marie.tremblay@example.com',
      phone: '5145550123',
      postalCode: 'H2X 1Y4',
      policyNumber: 'ABCDEFG',
      driverLicence: 'A123412345612',
      dateOfBirth: '1980-05-17',
      lastName: "O'Brien",
      pin: 'AB12CD34',
      terms: true,
    });
  });

  it('switches language with the header toggle', async () => {
    await page(true);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Français' })));
    expect(await screen.findByRole('heading', { level: 1, name: 'Composants de formulaire' })).toBeTruthy();
    const summary = within(section('Avec erreurs')).getByRole('alert', { name: 'Veuillez corriger les erreurs suivantes' });
    expect(within(summary).getByRole('link', { name: 'Les adresses courriel ne correspondent pas.' })).toBeTruthy();
    expect(within(section('Vides')).getByRole('combobox', { name: 'Mois' }).textContent).toContain('janvier');
  });
});
