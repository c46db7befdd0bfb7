import { render, screen, within } from '@testing-library/react';
import { createMemoryRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { describe, expect, it } from 'vitest';
import type { RichText as RichTextValue } from '../types';
import { RichText } from './rich-text';
import { defined } from '../../../test/defined';

function renderRichText(content: RichTextValue) {
  const router = createMemoryRouter([{ path: '/', element: <RichText content={content} /> }]);
  return render(<RouterProvider router={router} />);
}

const t = (text: string, marks: Record<string, boolean> = {}) => ({ type: 'text' as const, text, ...marks });

describe('RichText', () => {
  it('renders paragraphs, quotes and code blocks', () => {
    const { container } = renderRichText([
      { type: 'paragraph', children: [t('A paragraph.')] },
      { type: 'quote', children: [t('Ship nothing you would not carry.')] },
      { type: 'code', language: 'text', children: [t('Ring caps:   18 in-lb\nBase screws: 35 in-lb')] },
    ]);

    expect(screen.getByText('A paragraph.').tagName).toBe('P');
    expect(screen.getByText('Ship nothing you would not carry.').tagName).toBe('BLOCKQUOTE');
    const code = container.querySelector('pre > code');
    expect(code).toHaveTextContent('Ring caps: 18 in-lb Base screws: 35 in-lb', { normalizeWhitespace: true });
    expect(code?.textContent).toBe('Ring caps:   18 in-lb\nBase screws: 35 in-lb');
    expect(code).toHaveAttribute('data-language', 'text');
  });

  it.each([1, 2, 3, 4, 5, 6] as const)('renders a level-%i heading', (level) => {
    renderRichText([{ type: 'heading', level, children: [t(`Heading ${String(level)}`)] }]);
    expect(screen.getByRole('heading', { level, name: `Heading ${String(level)}` })).toBeInTheDocument();
  });

  it('renders ordered and unordered lists with their items, and nested lists', () => {
    renderRichText([
      {
        type: 'list',
        format: 'ordered',
        children: [
          { type: 'list-item', children: [t('First step')] },
          { type: 'list-item', children: [t('Second step')] },
        ],
      },
      {
        type: 'list',
        format: 'unordered',
        children: [
          { type: 'list-item', children: [t('A point')] },
          { type: 'list', format: 'unordered', children: [{ type: 'list-item', children: [t('A sub-point')] }] },
        ],
      },
    ]);

    const [ordered, unordered] = screen.getAllByRole('list').filter((list) => list.parentElement?.tagName !== 'LI');
    expect(ordered?.tagName).toBe('OL');
    expect(
      within(defined(ordered))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['First step', 'Second step']);
    expect(unordered?.tagName).toBe('UL');
    const nested = within(defined(unordered)).getByText('A sub-point').closest('ul');
    expect(nested).not.toBe(unordered);
    expect(nested?.parentElement?.tagName).toBe('LI');
  });

  it('renders images with their alternative text and caption', () => {
    renderRichText([
      {
        type: 'image',
        image: {
          url: 'https://media.example.test/shop-floor.svg',
          alternativeText: 'Machinists fitting actions',
          caption: 'The shop floor',
          width: 1600,
          height: 900,
        },
        children: [t('')],
      },
    ]);
    const img = screen.getByRole('img', { name: 'Machinists fitting actions' });
    expect(img).toHaveAttribute('src', 'https://media.example.test/shop-floor.svg');
    expect(img).toHaveAttribute('width', '1600');
    expect(screen.getByText('The shop floor').tagName).toBe('FIGCAPTION');
  });

  it('applies every modifier: bold, italic, underline, strikethrough and code, also combined', () => {
    renderRichText([
      {
        type: 'paragraph',
        children: [
          t('bold', { bold: true }),
          t('italic', { italic: true }),
          t('underline', { underline: true }),
          t('strikethrough', { strikethrough: true }),
          t('code', { code: true }),
          t('all', { bold: true, italic: true, underline: true, strikethrough: true, code: true }),
          t('plain'),
        ],
      },
    ]);
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.getByText('italic').tagName).toBe('EM');
    expect(screen.getByText('underline').tagName).toBe('U');
    expect(screen.getByText('strikethrough').tagName).toBe('S');
    expect(screen.getByText('code').tagName).toBe('CODE');
    const all = screen.getByText('all');
    const chain: string[] = [];
    for (let node: HTMLElement | null = all; node && node.tagName !== 'P'; node = node.parentElement)
      chain.push(node.tagName);
    expect(chain).toEqual(['CODE', 'S', 'U', 'EM', 'STRONG']);
    expect(screen.getByText(/plain/).tagName).toBe('P');
  });

  it('renders links: in-app paths through the router, other URLs as anchors, keeping their modifiers', () => {
    renderRichText([
      {
        type: 'paragraph',
        children: [
          { type: 'link', url: '/contact-us', children: [t('Contact our team')] },
          t(' or '),
          { type: 'link', url: 'mailto:careers@example.test', children: [t('e-mail', { bold: true })] },
          t(' or '),
          { type: 'link', url: 'https://example.test/page', children: [t('read more')] },
        ],
      },
    ]);
    expect(screen.getByRole('link', { name: 'Contact our team' })).toHaveAttribute('href', '/contact-us');
    const mail = screen.getByRole('link', { name: 'e-mail' });
    expect(mail).toHaveAttribute('href', 'mailto:careers@example.test');
    expect(within(mail).getByText('e-mail').tagName).toBe('STRONG');
    expect(screen.getByRole('link', { name: 'read more' })).toHaveAttribute('href', 'https://example.test/page');
  });

  it.each(['javascript:alert(document.cookie)', ' JAVASCRIPT:alert(1)', 'java\tscript:alert(1)', 'data:text/html,x'])(
    'refuses the link %j: its text stays, as plain text',
    (url) => {
      const { container } = renderRichText([
        { type: 'paragraph', children: [t('Click '), { type: 'link', url, children: [t('here')] }] },
      ]);
      expect(screen.queryByRole('link')).not.toBeInTheDocument();
      expect(screen.getByText(/here/)).toBeInTheDocument();
      expect(container.innerHTML).not.toMatch(/script:|data:/i);
    },
  );

  it('refuses images with an unsafe source', () => {
    renderRichText([{ type: 'image', image: { url: 'javascript:alert(1)', alternativeText: 'Bad' } }]);
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
  });

  it('renders line breaks inside text and skips unknown block types', () => {
    const { container } = renderRichText([
      { type: 'paragraph', children: [t('one\ntwo')] },
      { type: 'table', children: [] } as unknown as RichTextValue[number],
    ]);
    expect(container.querySelectorAll('p br')).toHaveLength(1);
    expect(container.querySelector('.rich-text')?.children).toHaveLength(1);
  });

  it('renders nothing for empty or missing content', () => {
    const { container } = renderRichText([]);
    expect(container.querySelector('.rich-text')).toBeNull();
  });
});
