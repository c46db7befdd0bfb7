import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The accessibility rules (eslint-plugin-jsx-a11y's strict set) are enforced by `npm run lint`
 * over the real tree; this proves they still fire under the ESLint the project runs (the plugin's
 * peer range stops short of it and an npm override admits it): markup with known violations is
 * linted as if it were a real component, with the project's own ESLint config.
 */
const webRoot = resolve(import.meta.dirname, '../..');
// an existing file's path, so the TypeScript project service knows it; its text is the fixture's
const inComponent = 'src/components/ui/visually-hidden.tsx';

let eslint: ESLint;
// Building the TypeScript program for typed linting takes seconds on a busy machine: once, here.
beforeAll(async () => {
  eslint = new ESLint({ cwd: webRoot });
  await eslint.lintText('export {};\n', { filePath: inComponent });
}, 60_000);

async function a11yRules(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: inComponent });
  const messages = result?.messages ?? [];
  // a fatal message (a parse error, a rule that crashed) has no rule id: it must not pass as "clean"
  expect(messages.filter((message) => message.fatal)).toEqual([]);
  return messages
    .map((message) => message.ruleId ?? '')
    .filter((ruleId) => ruleId.startsWith('jsx-a11y/'))
    .sort();
}

describe('accessibility lint rules', () => {
  it('refuses an image without alt text', async () => {
    expect(await a11yRules('export const Logo = () => <img src="/logo.svg" />;\n')).toEqual(['jsx-a11y/alt-text']);
  });

  it('refuses a click handler on a div that has no role and no keyboard handler', async () => {
    expect(
      await a11yRules('export const Tile = ({ open }: { open: () => void }) => <div onClick={open}>Open</div>;\n'),
    ).toEqual(['jsx-a11y/click-events-have-key-events', 'jsx-a11y/no-static-element-interactions']);
  });

  it('refuses an anchor without an href and a label tied to no control', async () => {
    expect(
      await a11yRules(
        'export const Form = () => (\n  <form>\n    <a>Help</a>\n    <label>Name</label>\n  </form>\n);\n',
      ),
    ).toEqual(['jsx-a11y/anchor-is-valid', 'jsx-a11y/label-has-associated-control']);
  });

  it('accepts the accessible forms of the same markup', async () => {
    expect(
      await a11yRules(
        [
          'export const Ok = ({ open }: { open: () => void }) => (',
          '  <form>',
          '    <img src="/logo.svg" alt="Storefront" />',
          '    <button type="button" onClick={open}>Open</button>',
          '    <a href="/help">Help</a>',
          '    <label>',
          '      Name <input type="text" />',
          '    </label>',
          '  </form>',
          ');',
          '',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});
