import { act, render, screen } from '@testing-library/react';
import { lazy, Suspense, useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Route, Switch, useLocation } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { Redirect, ShownLocationRouter } from './shown-location';

/** A page whose chunk arrives when the test says so. */
function slowPage(text: string) {
  let arrive!: () => void;
  const arrived = new Promise<{ default: () => React.JSX.Element }>((resolve) => {
    arrive = () => resolve({ default: () => <h1>{text}</h1> });
  });
  return { Page: lazy(() => arrived), arrive: () => act(async () => arrive()) };
}

function Where() {
  const [path] = useLocation();
  return <p data-testid="where">{path}</p>;
}

/** Page one shown at /one, the router around it; page two's chunk arrives when the test says so. */
function renderOneAndTwo() {
  window.history.replaceState(null, '', '/one');
  const two = slowPage('Page two');
  render(
    <ShownLocationRouter>
      <Suspense fallback={<p>empty frame</p>}>
        <Where />
        <Switch>
          <Route path="/one">
            <h1>Page one</h1>
          </Route>
          <Route path="/two">
            <two.Page />
          </Route>
        </Switch>
      </Suspense>
    </ShownLocationRouter>,
  );
  return two;
}

describe('ShownLocationRouter (issue 32: a page change keeps the page shown until the next is whole)', () => {
  it('keeps the old page, and the location it reads, until the new page has arrived, then swaps them', async () => {
    const two = renderOneAndTwo();
    expect(screen.getByRole('heading').textContent).toBe('Page one');
    await act(async () => navigate('/two'));
    // The address moved; the screen, and what its readers see, did not.
    expect(window.location.pathname).toBe('/two');
    expect(screen.getByRole('heading').textContent).toBe('Page one');
    expect(screen.getByTestId('where').textContent).toBe('/one');
    expect(screen.queryByText('empty frame')).toBeNull();
    await two.arrive();
    expect(screen.getByRole('heading').textContent).toBe('Page two');
    expect(screen.getByTestId('where').textContent).toBe('/two');
  });

  it('a guard of the page being left does not redirect; on the page shown it does', async () => {
    window.history.replaceState(null, '', '/guarded');
    const next = slowPage('Next');
    let leave!: () => void;
    let block!: () => void;
    function Guarded() {
      const [allowed, setAllowed] = useState(true);
      block = () => setAllowed(false);
      leave = () => {
        setAllowed(false); // the state its leaving clears (a roadblock's flag)
        navigate('/next');
      };
      return allowed ? <h1>Guarded</h1> : <Redirect to="/" replace />;
    }
    render(
      <ShownLocationRouter>
        <Suspense fallback={null}>
          <Switch>
            <Route path="/guarded">
              <Guarded />
            </Route>
            <Route path="/next">
              <next.Page />
            </Route>
            <Route>
              <h1>Home</h1>
            </Route>
          </Switch>
        </Suspense>
      </ShownLocationRouter>,
    );
    await act(async () => leave());
    expect(window.location.pathname).toBe('/next');
    await next.arrive();
    expect(window.location.pathname).toBe('/next');
    expect(screen.getByRole('heading').textContent).toBe('Next');
    // On the page shown, the guard redirects as before.
    await act(async () => navigate('/guarded'));
    expect(screen.getByRole('heading').textContent).toBe('Guarded');
    await act(async () => block());
    expect(window.location.pathname).toBe('/');
    expect(screen.getByRole('heading').textContent).toBe('Home');
  });

  it('while a page change is under way the page being left takes no click or submit, and main is busy', async () => {
    window.history.replaceState(null, '', '/form');
    const next = slowPage('Next');
    const sent: string[] = [];
    render(
      <ShownLocationRouter>
        <main id="main">
          <Suspense fallback={null}>
            <Switch>
              <Route path="/form">
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    sent.push('submit');
                    navigate('/next');
                  }}
                >
                  <h1>Form</h1>
                  <button type="submit">Send</button>
                </form>
              </Route>
              <Route path="/next">
                <next.Page />
              </Route>
            </Switch>
          </Suspense>
        </main>
      </ShownLocationRouter>,
    );
    const send = screen.getByRole('button', { name: 'Send' });
    await act(async () => send.click());
    expect(sent).toEqual(['submit']);
    expect(screen.getByRole('heading').textContent).toBe('Form');
    expect(document.getElementById('main')?.getAttribute('aria-busy')).toBe('true');
    // Pressed again while the next page loads: nothing is sent.
    await act(async () => send.click());
    expect(sent).toEqual(['submit']);
    await next.arrive();
    expect(screen.getByRole('heading').textContent).toBe('Next');
    expect(document.getElementById('main')?.hasAttribute('aria-busy')).toBe(false);
  });

  it('a page change takes the view to the top at once, on the page being left; a language or province choice does not', async () => {
    const scrolled = vi.spyOn(window, 'scrollTo');
    const two = renderOneAndTwo();
    await act(async () => navigate('/one?lang=fr&province=qc', { replace: true }));
    // Nor an anchor (the skip link to #main), nor an entry pushed over the page's own (the back guards).
    await act(async () => navigate('/one?lang=fr&province=qc#main'));
    await act(async () => window.history.pushState(null, '', window.location.href));
    expect(scrolled).not.toHaveBeenCalled();
    await act(async () => navigate('/two'));
    // Before the next page has arrived: the page left is still shown, at its top.
    expect(screen.getByRole('heading').textContent).toBe('Page one');
    expect(scrolled).toHaveBeenCalledTimes(1);
    expect(scrolled).toHaveBeenCalledWith(0, 0);
    await two.arrive();
    expect(screen.getByRole('heading').textContent).toBe('Page two');
    expect(scrolled).toHaveBeenCalledTimes(1);
  });
});
