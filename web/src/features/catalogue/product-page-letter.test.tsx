import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { beforeAll, describe, expect, it } from 'vitest';
import { productPage, sku } from '../../test/fixtures/catalogue';
import { renderRoute } from '../../test/render';
import { server } from '../../test/server';

/*
 * Issue 47, item 8: the product page's requirements that had no test (spec: shopping §2,
 * "Product page"), each one failing when its behaviour goes.
 */

beforeAll(async () => {
  await import('../../app/routes/product');
}, 60_000);

const h1 = (name: string) => screen.findByRole('heading', { level: 1, name }, { timeout: 5000 });

function serve(...products: ReturnType<typeof productPage>[]) {
  server.use(
    http.get('/api/products/:title', ({ params }) => {
      const wanted = decodeURIComponent(String(params.title)).toLowerCase();
      const found = products.find((product) => product.title.toLowerCase() === wanted) ?? products[0];
      return HttpResponse.json(found);
    }),
  );
}

describe('product page, to the letter (issue 47)', { timeout: 20_000 }, () => {
  it('shows the breadcrumbs: links up the trail, the product as the current page', async () => {
    serve(productPage());
    renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const trail = screen.getByRole('navigation', { name: 'Breadcrumb' });
    expect(within(trail).getByRole('link', { name: 'Home' })).toHaveAttribute('href', '/');
    expect(within(trail).getByRole('link', { name: 'Rifles' })).toHaveAttribute('href', '/collection/rifles');
    expect(within(trail).getByText('Summit LR')).toHaveAttribute('aria-current', 'page');
  });

  it('has the review widget under the title and the reviews section at the end, for this product', async () => {
    serve(productPage());
    const { container } = renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const summary = container.querySelector('[data-reviews-widget="summary"]');
    expect(summary).toHaveAttribute('data-product-id', 'TFA-1001');
    expect(summary?.previousElementSibling).toHaveTextContent('Bolt-action long range rifle, sub-MOA guaranteed');
    const section = screen.getByRole('region', { name: 'Product reviews' });
    expect(within(section).getByRole('heading', { name: 'Reviews' })).toBeInTheDocument();
    expect(section.querySelector('[data-reviews-widget="list"]')).toHaveAttribute('data-product-id', 'TFA-1001');
  });

  it("shows the compatibility buttons, and a disabled 'Coming Soon' for a group without options", async () => {
    serve(productPage());
    renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const mounts = screen.getByRole('region', { name: 'Optics Mounts' });
    expect(within(mounts).getByRole('link', { name: 'Ironclad Scope Mount' })).toHaveAttribute(
      'href',
      '/product/ironclad%20scope%20mount',
    );
    const suppressors = screen.getByRole('region', { name: 'Suppressors' });
    expect(within(suppressors).getByRole('button', { name: 'Coming Soon' })).toBeDisabled();
  });

  it('shows the promo videos: title, accent title and a card per video opening in a new tab', async () => {
    serve(
      productPage({
        promoVideos: {
          title: 'See it',
          accentTitle: 'in action',
          cards: [
            {
              id: 1,
              title: 'At 1,000 yards',
              image: { src: 'https://media.example.test/v1.svg', alt: '' },
              videoUrl: 'https://video.example.test/1000',
            },
          ],
        },
      }),
    );
    renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const videos = screen.getByRole('region', { name: 'See it in action' });
    const card = within(videos).getByRole('link', { name: /^At 1,000 yards/ });
    expect(card).toHaveTextContent('At 1,000 yards (video, opens in a new tab)');
    expect(card).toHaveAttribute('href', 'https://video.example.test/1000');
    expect(card).toHaveAttribute('target', '_blank');
  });

  it("the long display shows the about section's patents and disclaimer", async () => {
    serve(
      productPage({
        displayType: 'product-long',
        about: {
          title: 'About the Summit LR',
          subtitle: 'Built to hold',
          summary: 'Sub-MOA.',
          imgUrl: { src: 'https://media.example.test/about.svg', alt: 'About' },
          details: [{ title: 'Action', listItems: ['Three lugs'] }],
          techSpecs: [],
          patents: ['US 10,000,001', 'US 10,000,002'],
          disclaimer: 'Specifications may change without notice.',
          readMore: { label: 'Owner’s Manual', url: 'https://media.example.test/manual.pdf' },
        },
      }),
    );
    renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const about = screen.getByRole('region', { name: 'About the Summit LR' });
    const patents = within(about).getByRole('heading', { name: 'Patents' }).nextElementSibling as HTMLElement;
    expect(
      within(patents)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['US 10,000,001', 'US 10,000,002']);
    expect(within(about).getByText('Specifications may change without notice.')).toBeInTheDocument();
  });

  it('the images follow the selected sku', async () => {
    serve(productPage({ displayType: 'product-short' }));
    const user = userEvent.setup();
    const { container } = renderRoute('/product/summit%20lr');
    await h1('Summit LR');
    const firstImage = () => container.querySelector('.product-page__top img')?.getAttribute('src');
    expect(firstImage()).toContain('tf-slr-65cm-24-blk');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Caliber' }), '.308 Win');
    await waitFor(() => {
      expect(firstImage()).toContain('tf-slr-308-24-blk');
    });
  });

  it('the selection starts over when the title changes', async () => {
    const hunter = productPage({
      title: 'Summit Hunter',
      url: '/product/summit%20hunter',
      skus: [sku('TF-SH-308', 1899, 0, 10, [[7, '.308 Win', 'caliber', 'Caliber']], 21)],
      breadcrumbs: [],
      compatibilityOptions: [],
    });
    serve(productPage(), hunter);
    const { router } = renderRoute('/product/summit%20lr?sku=TF-SLR-6CM-26-BLK');
    await h1('Summit LR');
    expect(screen.getByRole('combobox', { name: 'Caliber' })).toHaveValue('6mm Creedmoor');
    act(() => {
      router.navigate('/product/summit%20hunter');
    });
    await h1('Summit Hunter');
    expect(screen.getByRole('group', { name: 'Price' })).toHaveTextContent('$1,899.00');
    act(() => {
      router.navigate('/product/summit%20lr');
    });
    await h1('Summit LR');
    // back on the first product without ?sku=: its displayed sku, not the earlier choice
    expect(screen.getByRole('combobox', { name: 'Caliber' })).toHaveValue('6.5 Creedmoor');
    expect(screen.getByRole('group', { name: 'Price' })).toHaveTextContent('$2,199.00');
  });
});
