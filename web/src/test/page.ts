import { act, fireEvent, screen } from '@testing-library/react';

// How the flows' page tests read and drive the rendered app, by role and label.

/** The app's path and query string. */
export const where = () => window.location.pathname + window.location.search;

/** Types a value into the field of a label. */
export const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** Clicks the button of a name and lets what it starts settle. */
export const click = (name: string) => act(async () => fireEvent.click(screen.getByRole('button', { name })));

/** The page's h1, once it says name. */
export const heading = (name: string) => screen.findByRole('heading', { level: 1, name });

/** The text of every alert on the page. */
export const alertText = () =>
  screen
    .getAllByRole('alert')
    .map((a) => a.textContent)
    .join(' ');
