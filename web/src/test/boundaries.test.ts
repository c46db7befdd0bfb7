import { ESLint, type Linter } from 'eslint';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parser } from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import boundaries (the layers of `src`, and a feature reached only through its index) and
 * the ban on import cycles are enforced by `npm run lint` over the real tree; this proves each rule
 * would fail: text with a forbidden import is linted as if it were a real file of each layer, with
 * the project's own ESLint config. It also checks the real tree against the boundaries alone,
 * which is quick, and that every top folder and file of `src` is in a layer.
 */
const webRoot = resolve(import.meta.dirname, '../..');
const RULE = 'import-x/no-restricted-paths';

let eslint: ESLint;
// Building the TypeScript program for typed linting takes seconds on a busy machine: once, here.
beforeAll(async () => {
  eslint = new ESLint({ cwd: webRoot });
  await eslint.lintText('export {};\n', { filePath: 'src/lib/debounce.ts' });
}, 60_000);

async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === RULE).map((message) => message.message);
}

const inFeature = 'src/features/home/components/image-ribbon.tsx';
const inLib = 'src/lib/debounce.ts';
const inComponent = 'src/components/ui/app-link.tsx';

describe('import boundaries', () => {
  it("refuses a feature reaching into another feature's files", async () => {
    const errors = await boundaryErrors(
      inFeature,
      "import { cartKeys } from '../../cart/queries';\nexport const keys = cartKeys;\n",
    );
    expect(errors).toEqual([expect.stringContaining('only through its index.ts')]);
  });

  it("allows another feature's public index, and a feature's own files", async () => {
    expect(
      await boundaryErrors(inFeature, "import { cartKeys } from '../../cart';\nexport const keys = cartKeys;\n"),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'src/features/cart/index.ts',
        "import { cartKeys } from './queries';\nexport const keys = cartKeys;\n",
      ),
    ).toEqual([]);
  });

  it('refuses a feature importing the app', async () => {
    const errors = await boundaryErrors(
      inFeature,
      "import { pageTable } from '../../../app/page-table';\nexport const r = pageTable;\n",
    );
    expect(errors).toEqual([expect.stringContaining('features must not import app')]);
  });

  it('refuses shared code importing a feature, even through its index', async () => {
    const fromLib = await boundaryErrors(
      inLib,
      "import { cartKeys } from '../features/cart';\nexport const keys = cartKeys;\n",
    );
    const fromComponent = await boundaryErrors(
      inComponent,
      "import { useSession } from '../../features/session';\nexport const s = useSession;\n",
    );
    expect([...fromLib, ...fromComponent]).toEqual([
      expect.stringContaining('lib must not import features'),
      expect.stringContaining('components must not import features'),
    ]);
  });
});

describe('the layers of src', () => {
  it.each([
    [
      'lib importing the server render',
      inLib,
      "import { chunksOf } from '../ssr/route-chunks';",
      'lib must not import ssr',
    ],
    [
      'boot importing the app',
      'src/boot/route-chunks.ts',
      "import { App } from '../app/app';",
      'boot must not import app',
    ],
    [
      'the boot script importing the app',
      'src/boot.ts',
      "import { App } from './app/app';",
      'boot must not import app',
    ],
    [
      'the API types importing lib',
      'src/api/types.ts',
      "import { paths } from '../lib/paths';",
      'api must not import lib',
    ],
    [
      'a feature importing the server render',
      inFeature,
      "import { chunksOf } from '../../../ssr/route-chunks';",
      'features must not import ssr',
    ],
    [
      'the server render importing an entry',
      'src/ssr/render.tsx',
      "import { render } from '../entry-server';",
      'ssr must not import entries',
    ],
    [
      'the app importing the test harness',
      'src/app/page-meta.tsx',
      "import { renderRoute } from '../test/render';",
      'app must not import test',
    ],
  ])('refuses %s', async (_what, filePath, importLine, message) => {
    expect(await boundaryErrors(filePath, `${importLine}\nexport const x = 1;\n`)).toEqual([
      expect.stringContaining(message),
    ]);
  });

  it('allows a layer to import the layers below it', async () => {
    expect(
      await boundaryErrors(
        'src/ssr/render.tsx',
        "import { App } from '../app/app';\nimport { answerKey } from '../lib/document-data';\nexport const x = [App, answerKey];\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'src/boot.ts',
        "import { armIdleTrigger } from './lib/idle';\nexport const x = armIdleTrigger;\n",
      ),
    ).toEqual([]);
  });
});

interface Zone {
  target: string | string[];
  from: string | string[];
}

/** The zones of the boundary rule, as ESLint reads them from eslint.config.js for a file of the app. */
async function projectZones(): Promise<Zone[]> {
  const config = (await eslint.calculateConfigForFile(inLib)) as Linter.Config;
  const [, options] = config.rules?.[RULE] as [unknown, { zones: Zone[] }];
  return options.zones;
}

describe('the real tree', () => {
  it('places every top folder and file of src in a layer', async () => {
    const named = new Set(
      (await projectZones()).flatMap((zone) => [zone.target, zone.from].flat()).map((path) => path.split('/')[2]),
    );
    expect([...named].sort()).toEqual(readdirSync(resolve(webRoot, 'src')).sort());
  });

  // `npm run lint` holds this too; here, with the boundary rule alone (no type information), it
  // takes seconds and says which import breaks the order.
  it('has no import that breaks the layers or reaches into another feature', async () => {
    const zones = await projectZones();
    const config: Linter.Config = {
      files: ['src/**/*.{ts,tsx}'],
      ignores: ['src/**/*.test.{ts,tsx}', 'src/test/**', 'src/**/*.d.ts'],
      languageOptions: { parser },
      // an eslint-disable comment does not hide a broken boundary from this test
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
      plugins: { 'import-x': importX as unknown as ESLint.Plugin },
      settings: { 'import-x/resolver-next': [createTypeScriptImportResolver()] },
      rules: { [RULE]: ['error', { zones }] },
    };
    const boundariesOnly = new ESLint({ cwd: webRoot, overrideConfigFile: true, overrideConfig: config });
    const results = await boundariesOnly.lintFiles(['src/**/*.{ts,tsx}']);
    const broken = results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === RULE)
        .map((message) => `${result.filePath.slice(webRoot.length + 1)}:${String(message.line)} ${message.message}`),
    );
    expect(results.length).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  }, 60_000);
});

describe('import cycles', () => {
  it('refuses a cycle between two files of one folder', async () => {
    // lib/api.ts imports lib/document-data.ts: this planted import closes the circle
    const [result] = await eslint.lintText("import { api } from './api';\nexport const x = api;\n", {
      filePath: 'src/lib/document-data.ts',
    });
    expect((result?.messages ?? []).filter((message) => message.ruleId === 'import-x/no-cycle')).toHaveLength(1);
  });
});
