import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import boundaries are enforced by `npm run lint` over the real tree; this proves the rule
 * would fail: text with a forbidden import is linted as if it were a real file of each layer, with
 * the project's own ESLint config.
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
    expect(errors).toEqual([expect.stringContaining('must not import the app')]);
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
      expect.stringContaining('must not import features'),
      expect.stringContaining('must not import features'),
    ]);
  });
});
