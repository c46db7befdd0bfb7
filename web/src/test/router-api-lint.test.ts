import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The app uses React Router's public API only: `npm run lint` holds it over the real tree with
 * `no-restricted-imports`; this proves the rule fails on a planted violation, linted with the
 * project's own ESLint config as if it were a file of the app, a test, or the test harness.
 */
const webRoot = resolve(import.meta.dirname, '../..');
const RULE = 'no-restricted-imports';

let eslint: ESLint;
// Building the TypeScript program for typed linting takes seconds on a busy machine: once, here.
beforeAll(async () => {
  eslint = new ESLint({ cwd: webRoot });
  await eslint.lintText('export {};\n', { filePath: 'src/lib/debounce.ts' });
}, 60_000);

async function routerApiErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe("React Router's public API", () => {
  it.each([
    [
      'the app',
      'src/app/page-meta.tsx',
      "import { UNSAFE_LocationContext } from 'react-router';\nexport const c = UNSAFE_LocationContext;\n",
    ],
    [
      'a test',
      'src/app/page-table.test.tsx',
      "import { unstable_HistoryRouter as H } from 'react-router';\nexport const h = H;\n",
    ],
    [
      'the test harness',
      'src/test/render.tsx',
      "import { UNSAFE_createMemoryHistory } from 'react-router';\nexport const m = UNSAFE_createMemoryHistory;\n",
    ],
  ])('refuses an UNSAFE_ or unstable_ import in %s', async (_where, filePath, code) => {
    expect(await routerApiErrors(filePath, code)).toEqual([expect.stringContaining("Use React Router's public API")]);
  });

  it('allows its public exports', async () => {
    expect(
      await routerApiErrors(
        'src/app/page-meta.tsx',
        "import { createBrowserRouter, useNavigate } from 'react-router';\nexport const r = [createBrowserRouter, useNavigate];\n",
      ),
    ).toEqual([]);
  });
});
