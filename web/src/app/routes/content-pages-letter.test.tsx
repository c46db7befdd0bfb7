import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';

/* Issue 47, item 8: the content pages and the home ribbon's requirements that had no test. */

const say = (text: string) => [{ type: 'paragraph', children: [{ type: 'text', text }] }];
const page = (name: string, body: Record<string, unknown>) =>
  http.get(`/api/pages/${name}`, () => HttpResponse.json(body));
const h1 = (name: string) => screen.findByRole('heading', { level: 1, name }, { timeout: 5000 });

describe('content pages, to the letter (issue 47)', { timeout: 20_000 }, () => {
  it('resources (LE/MIL support): heading, subheading and the content', async () => {
    server.use(
      page('resources', {
        heading: 'LE / MIL Resources',
        subheading: 'For agencies and service members',
        content: say('Armorer courses are booked through your agency.'),
      }),
    );
    renderRoute('/resources');
    expect(await h1('LE / MIL Resources')).toBeInTheDocument();
    expect(screen.getByText('For agencies and service members')).toBeInTheDocument();
    expect(screen.getByText('Armorer courses are booked through your agency.')).toBeInTheDocument();
  });

  it('resources without content still has its title', async () => {
    renderRoute('/resources');
    expect(await h1('Resources')).toBeInTheDocument();
  });

  it('warranty: breadcrumbs, title and a section per header with its content', async () => {
    server.use(
      page('warranty', {
        breadcrumbs: [
          { label: 'Home', url: '/' },
          { label: 'Warranty', url: '/warranty' },
        ],
        title: 'Lifetime Warranty',
        sections: [
          { id: 1, header: 'What is covered', content: say('Every barrel, for life.') },
          { id: 2, header: null, content: say('Keep your receipt.') },
        ],
      }),
    );
    renderRoute('/warranty');
    expect(await h1('Lifetime Warranty')).toBeInTheDocument();
    expect(
      within(screen.getByRole('navigation', { name: 'Breadcrumb' })).getByRole('link', { name: 'Home' }),
    ).toHaveAttribute('href', '/');
    const covered = screen.getByRole('heading', { level: 2, name: 'What is covered' });
    expect(covered.parentElement).toHaveTextContent('Every barrel, for life.');
    expect(screen.getByText('Keep your receipt.')).toBeInTheDocument();
  });
});

describe('the home ribbon (spec: slide width 250 px)', { timeout: 20_000 }, () => {
  it('gives each slide 250 px: the image slot and the stylesheet', async () => {
    renderRoute('/');
    const ribbon = await screen.findByRole('region', { name: 'Shop by category' }, { timeout: 5000 });
    const images = ribbon.querySelectorAll('img');
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toHaveAttribute('width', '250');
    // jsdom applies no stylesheet: the rule itself is read
    const styles = readFileSync(join(process.cwd(), 'src/app/styles.css'), 'utf8');
    expect(styles).toMatch(/\.ribbon__item\s*\{[^}]*\bwidth:\s*250px;/);
  });
});
