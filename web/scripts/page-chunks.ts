// Build step (vite.config.ts): writes dist/page-chunks.json, which tells the
// server (internal/httpapi/preload.go) what a first visit to each page
// needs besides the entry chunk, so it can name them in index.html
// (<link rel="modulepreload">, stylesheets) and the browser fetches them
// alongside the entry instead of after it has run (issue 12, defect 3):
//   pages:    route pattern (src/app/routes.tsx) → the page's chunk, the
//             chunks it imports that the entry does not, its CSS, and the
//             message sections the route names (`sections: [...]`, which
//             preloadPage loads before the first render: without them in
//             index.html the browser asked for a section's texts only once
//             the entry had run, a round trip more before the first paint
//             of registration, smart registration and my-account), and
//             `aside: true` for the routes that mark it (their page shows
//             the brand's promo image: the server preloads it);
//   catalogs: "en", "fr", "<brand>.<language>", "<section>.<language>" →
//             the message catalogue's chunk and the chunks it imports that
//             the entry does not (src/i18n/catalog.ts loads the page's
//             language's before the first render; English is
//             src/i18n/english.ts, a chunk that imports en.json's, which
//             the console imports statically: without it in the list the
//             browser asked for the texts only once english.ts had arrived,
//             a round trip more before an English page's first paint).
// It also writes <link rel="preload"> for the web fonts into index.html.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Plugin, Rollup } from 'vite';

type OutputBundle = Rollup.OutputBundle;
type OutputChunk = Rollup.OutputChunk;

export interface PageChunks {
  pages: Record<string, { js: string[]; css: string[]; sections: string[]; aside?: true }>;
  catalogs: Record<string, string[]>;
}

/**
 * The route table's lazy pages: pattern → import specifier, read from the
 * source of routes.tsx (`const X = lazyPage(() => import('…'))` and
 * `{ path: '…', …, page: X }`).
 */
export function routeImports(source: string): Map<string, string> {
  const imports = new Map<string, string>();
  // Spaces and line breaks allowed where a formatter may put them.
  for (const m of source.matchAll(/const (\w+) = lazyPage\(\s*\(\) =>\s*import\(\s*['"]([^'"]+)['"],?\s*\),?\s*\)/g)) imports.set(m[1], m[2]);
  const routes = new Map<string, string>();
  for (const m of source.matchAll(/\{\s*path: ['"]([^'"]+)['"],[^}]*?\bpage: (\w+)/g)) {
    const spec = imports.get(m[2]);
    if (!spec) throw new Error(`routes.tsx: page ${m[2]} of ${m[1]} is not a lazyPage(() => import('…'))`);
    routes.set(m[1], spec);
  }
  const notFound = source.match(/const unknownPage: PageRoute = \{[^}]*\bpage: (\w+)/);
  if (notFound && imports.has(notFound[1])) routes.set('*', imports.get(notFound[1])!);
  return routes;
}

/**
 * The message sections each route of routes.tsx names (`sections: ['a', 'b']`
 * in its entry): pattern → section names.
 */
export function routeSections(source: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  for (const m of source.matchAll(/\{\s*path: ['"]([^'"]+)['"],[^}]*?\bsections: \[([^\]]*)\]/g)) {
    sections.set(m[1], [...m[2].matchAll(/['"](\w+)['"]/g)].map((n) => n[1]));
  }
  return sections;
}

/** The routes of routes.tsx that say `aside: true` (their page shows the promo panel). */
export function routeAsides(source: string): Set<string> {
  return new Set([...source.matchAll(/\{\s*path: ['"]([^'"]+)['"],[^}]*?\baside: true\b/g)].map((m) => m[1]));
}

function chunks(bundle: OutputBundle): OutputChunk[] {
  return Object.values(bundle).filter((f): f is OutputChunk => f.type === 'chunk');
}

/** A chunk and every chunk it imports statically, by file name. */
function closure(bundle: OutputBundle, start: string, into = new Set<string>()): Set<string> {
  if (into.has(start)) return into;
  into.add(start);
  const chunk = bundle[start];
  if (chunk?.type === 'chunk') for (const dep of chunk.imports) closure(bundle, dep, into);
  return into;
}

export function pageChunks(routesFile: string): Plugin {
  return {
    name: 'guichet-page-chunks',
    apply: 'build',
    // After Vite's CSS plugin has removed the chunks that held only CSS.
    generateBundle: { order: 'post', async handler(_options, bundle) {
      // The portal's entry (src/main.tsx); the console's (console.html) has no page chunks.
      const entry = chunks(bundle).find((c) => c.isEntry && c.moduleIds.some((id) => /\/src\/main\.tsx$/.test(id)));
      if (!entry) throw new Error('page-chunks: no entry chunk');
      const loaded = closure(bundle, entry.fileName);
      // The staff console must never load the portal's entry: it would run
      // src/main.tsx, which fails on a page without #guichet-site. It can
      // happen when a chunk the two share imports something the bundler
      // left in the portal's entry (vite.config.ts's portal-core group).
      const console = chunks(bundle).find((c) => c.isEntry && c.moduleIds.some((id) => /\/src\/console\/main\.tsx$/.test(id)));
      if (console) {
        const via = [...closure(bundle, console.fileName)].filter((f) => f !== entry.fileName && bundle[f]?.type === 'chunk' && (bundle[f] as OutputChunk).imports.includes(entry.fileName));
        if (via.length > 0) this.error(`page-chunks: the console imports the portal's entry ${entry.fileName} through ${via.join(', ')}`);
      }
      const out: PageChunks = { pages: {}, catalogs: {} };
      const routesSource = readFileSync(routesFile, 'utf8');
      const sections = routeSections(routesSource);
      const asides = routeAsides(routesSource);
      for (const [pattern, spec] of routeImports(routesSource)) {
        const resolved = await this.resolve(spec, routesFile);
        const chunk = resolved && chunks(bundle).find((c) => c.facadeModuleId === resolved.id);
        if (!chunk) throw new Error(`page-chunks: no chunk for ${pattern} (${spec})`);
        const files = [...closure(bundle, chunk.fileName)].filter((f) => !loaded.has(f));
        const css = new Set<string>();
        for (const f of files) {
          const c = bundle[f];
          if (c?.type === 'chunk') for (const s of c.viteMetadata?.importedCss ?? []) css.add(s);
        }
        out.pages[pattern] = { js: files, css: [...css], sections: sections.get(pattern) ?? [], ...(asides.has(pattern) ? { aside: true as const } : {}) };
      }
      for (const c of chunks(bundle)) {
        const id = c.facadeModuleId ?? '';
        // The console's catalogues (sections/console.*) are the console entry's, not the portal's.
        const files = () => [...closure(bundle, c.fileName)].filter((f) => !loaded.has(f));
        if (c.isDynamicEntry && /\/src\/i18n\/.*\.json$/.test(id) && !/\/console\.\w+\.json$/.test(id)) out.catalogs[basename(id, '.json')] = files();
        if (c.isDynamicEntry && /\/src\/i18n\/english\.ts$/.test(id)) out.catalogs.en = files();
      }
      this.emitFile({ type: 'asset', fileName: 'page-chunks.json', source: `${JSON.stringify(out, null, 1)}\n` });
    } },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        // The fonts every page uses (styles/fonts.css), so text paints in
        // them at once rather than swapping later.
        const fonts = Object.keys(ctx.bundle ?? {}).filter((f) => f.endsWith('.woff2')).sort();
        return fonts.map((f) => ({
          tag: 'link',
          attrs: { rel: 'preload', href: `/${f}`, as: 'font', type: 'font/woff2', crossorigin: '' },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}
