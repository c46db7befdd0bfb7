import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RouteObject } from 'react-router';
import type { RouteHandle } from '../app/route-module';
import { QueryClient } from '@tanstack/react-query';
import { createPageTable } from '../app/page-table';
import { routeChunks } from '../../scripts/lib/prehydration.js';
import { chunksOf } from './route-chunks';

function lazyRoutes(routes: RouteObject[]): RouteObject[] {
  return routes.flatMap((route) => [
    ...((route.handle as RouteHandle | undefined)?.load ? [route] : []),
    ...lazyRoutes(route.children ?? []),
  ]);
}

describe('route preloads', () => {
  it('names, for every lazily loaded route, the source path of its module (the manifest key)', async () => {
    const routes = lazyRoutes(createPageTable(new QueryClient()));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const handle = route.handle as RouteHandle;
      // vitest runs from web/
      expect(existsSync(String(handle.module)), handle.module).toBe(true);
      expect(handle.module).toMatch(/^src\/app\/routes\/.+\.tsx$/);
    }
    // the very module it loads
    const product = routes.find((route) => (route.handle as RouteHandle).module === 'src/app/routes/product.tsx');
    const loaded = await (product?.handle as RouteHandle | undefined)?.load?.();
    expect(loaded).toBe(await import('../app/routes/product'));
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
