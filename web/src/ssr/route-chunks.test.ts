import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RouteObject } from 'react-router';
import type { RouteHandle } from '../app/route-module';
import { pageTable } from '../app/page-table';
import { routeChunks } from '../../scripts/lib/prehydration.js';
import { chunksOf } from './route-chunks';

// vitest runs from web/
const tableSource = readFileSync('src/app/page-table.tsx', 'utf8');

function lazyRoutes(routes: RouteObject[]): RouteObject[] {
  return routes.flatMap((route) => [
    ...((route.handle as RouteHandle | undefined)?.load ? [route] : []),
    ...lazyRoutes(route.children ?? []),
  ]);
}

describe('route preloads', () => {
  it('names, for every lazily loaded route, the very module it imports (the manifest key)', () => {
    // however the call is laid out (a formatter breaks the long ones over lines)
    const pages = [...tableSource.matchAll(/page\(\s*'([^']+)',\s*\(\) => import\('\.\/([^']+)'\),?\s*\)/g)];
    expect(pages.length).toBe(lazyRoutes(pageTable).length);
    for (const [, module, imported] of pages) expect(module).toBe(`src/app/${String(imported)}.tsx`);
  });

  it("gives a page's chunks beyond the entry's, each once, from the client build's manifest", () => {
    const manifest = {
      'index.html': { file: 'assets/index.js', isEntry: true, imports: ['_framework.js'] },
      '_framework.js': { file: 'assets/framework.js' },
      '_money.js': { file: 'assets/money.js', imports: ['_framework.js'] },
      'src/app/routes/product.tsx': {
        file: 'assets/product.js',
        isDynamicEntry: true,
        imports: ['_money.js', '_framework.js'],
      },
      'src/app/routes/collection.tsx': { file: 'assets/collection.js', isDynamicEntry: true, imports: ['_money.js'] },
    };
    expect(routeChunks(manifest)).toEqual({
      'src/app/routes/product.tsx': ['assets/product.js', 'assets/money.js'],
      'src/app/routes/collection.tsx': ['assets/collection.js', 'assets/money.js'],
    });
  });

  it('finds nothing for routes without a module or outside the build', () => {
    expect(chunksOf([{ route: {} }, { route: { handle: { module: 'src/app/routes/nowhere.tsx' } } }])).toEqual([]);
  });
});
