import { describe, expect, it } from 'vitest';
import { prehydrationFiles, staticClosure } from './prehydration.js';

// the shape of Vite's dist/.vite/manifest.json, cut down
const manifest = {
  'index.html': {
    file: 'assets/index-1.js',
    isEntry: true,
    imports: ['_framework-1.js', '_runtime-1.js'],
    dynamicImports: ['src/app/routes/product.tsx', 'src/app/routes/home.tsx'],
    css: ['assets/index-1.css'],
  },
  '_framework-1.js': { file: 'assets/framework-1.js', imports: ['_runtime-1.js'] },
  '_runtime-1.js': { file: 'assets/runtime-1.js' },
  'src/app/routes/product.tsx': {
    file: 'assets/product-1.js',
    isDynamicEntry: true,
    imports: ['_framework-1.js', '_catalogue-1.js'],
    dynamicImports: ['src/features/catalogue/components/stock-alert-fields.tsx'],
  },
  '_catalogue-1.js': { file: 'assets/catalogue-1.js', imports: ['_framework-1.js'], css: ['assets/catalogue-1.css'] },
  'src/features/catalogue/components/stock-alert-fields.tsx': {
    file: 'assets/stock-alert-fields-1.js',
    isDynamicEntry: true,
  },
  'src/app/routes/home.tsx': { file: 'assets/home-1.js', isDynamicEntry: true },
};

describe('prehydrationFiles', () => {
  it("is the entry, its static imports, the route's chunk and its static imports, each once; no lazy chunk", () => {
    expect(prehydrationFiles(manifest, 'src/app/routes/product.tsx')).toEqual([
      'assets/index-1.js',
      'assets/framework-1.js',
      'assets/runtime-1.js',
      'assets/product-1.js',
      'assets/catalogue-1.js',
    ]);
  });

  it('fails loudly on a route the manifest does not have', () => {
    expect(() => prehydrationFiles(manifest, 'src/app/routes/nope.tsx')).toThrow(
      /no entry for src\/app\/routes\/nope.tsx/,
    );
  });

  it('needs exactly one entry', () => {
    const twoEntries = { ...manifest, 'other.html': { file: 'assets/other.js', isEntry: true } };
    expect(() => prehydrationFiles(twoEntries, 'src/app/routes/home.tsx')).toThrow(/found 2/);
  });
});

describe('staticClosure', () => {
  it('survives import cycles', () => {
    const cyclic = { a: { file: 'a.js', imports: ['b'] }, b: { file: 'b.js', imports: ['a'] } };
    expect(staticClosure(cyclic, ['a'])).toEqual(['a.js', 'b.js']);
  });
});
