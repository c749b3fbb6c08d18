import { render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { AppErrorBoundary, isChunkLoadError, reloadForChunk } from './error-boundary';

afterEach(() => sessionStorage.clear());

const gone = () => new TypeError('Failed to fetch dynamically imported module: http://belair.localhost/assets/login-abc123.js');

function Throws({ error }: { error: Error }): never {
  throw error;
}

it('tells a chunk that would not load from any other failure', () => {
  expect(isChunkLoadError(gone())).toBe(true);
  expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
  expect(isChunkLoadError(new TypeError('error loading dynamically imported module'))).toBe(true);
  expect(isChunkLoadError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
});

it('loads the page afresh once per address for a chunk a new release no longer has, then shows the message', () => {
  expect(reloadForChunk(gone(), sessionStorage, '/reset', 1_000)).toBe(true);
  // The same address failing again right after the fresh load: the message, no loop.
  expect(reloadForChunk(gone(), sessionStorage, '/reset', 2_000)).toBe(false);
  // Another address, or the same one later (another release): once more.
  expect(reloadForChunk(gone(), sessionStorage, '/forgot', 3_000)).toBe(true);
  expect(reloadForChunk(gone(), sessionStorage, '/forgot', 40_000)).toBe(true);
  expect(reloadForChunk(new Error('a bug'), sessionStorage, '/elsewhere', 50_000)).toBe(false);
  sessionStorage.setItem('guichet.chunkReload', 'not json');
  expect(reloadForChunk(gone(), sessionStorage, '/forgot', 60_000)).toBe(true);
});

it('reloads for a missing chunk instead of showing the message, and shows it when the fresh load fails too', () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const reload = vi.fn();
  const first = render(
    <AppErrorBoundary reload={reload}>
      <Throws error={gone()} />
    </AppErrorBoundary>,
  );
  expect(reload).toHaveBeenCalledOnce();
  expect(screen.queryByRole('heading')).toBeNull();
  first.unmount();
  render(
    <AppErrorBoundary reload={reload}>
      <Throws error={gone()} />
    </AppErrorBoundary>,
  );
  expect(reload).toHaveBeenCalledOnce();
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Something went wrong / Une erreur est survenue');
});

it('shows the message at once for a failure that is not a chunk', () => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const reload = vi.fn();
  render(
    <AppErrorBoundary reload={reload}>
      <Throws error={new Error('a bug')} />
    </AppErrorBoundary>,
  );
  expect(reload).not.toHaveBeenCalled();
  expect(screen.getByRole('button', { name: 'Reload / Recharger' })).toBeTruthy();
});
