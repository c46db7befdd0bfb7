import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { installFakeCaptcha } from '../../test/captcha';
import { aboutUsPage, limitedEditionPage, mediaLibraryPage } from '../../test/fixtures';
import { renderRoute } from '../../test/render';
import { problem, server } from '../../test/server';
import { defined } from '../../test/defined';

const page = (name: string, body: Record<string, unknown>) =>
  http.get(`/api/pages/${name}`, () => HttpResponse.json(body));
const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });

describe('about us', () => {
  it('shows the banner, copy, the careers section (anchored at #careers) and Contact Us', async () => {
    const scrollIntoView = vi.spyOn(Element.prototype, 'scrollIntoView');
    renderRoute('/about-us#careers');

    expect(await h1('Forged by Shooters')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Watch the video/ })).toHaveAttribute(
      'href',
      'https://media.example.test/video-about.html',
    );
    const careers = screen.getByRole('region', { name: "We're Hiring" });
    expect(careers).toHaveAttribute('id', 'careers');
    expect(
      within(careers)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['CNC Machinist', 'Quality Assurance Technician']);
    expect(scrollIntoView).toHaveBeenCalled();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Contact Us' })).toHaveAttribute(
      'href',
      '/contact-us',
    );
  });

  it('hides the careers section when there are no open positions', async () => {
    server.use(page('aboutus', { ...aboutUsPage, lookingForListContent: [] }));
    renderRoute('/about-us#careers');
    await h1('Forged by Shooters');
    expect(screen.queryByRole('region', { name: "We're Hiring" })).not.toBeInTheDocument();
    expect(document.getElementById('careers')).toBeNull();
    expect(screen.getByRole('region', { name: 'Want to Talk?' })).toBeInTheDocument();
  });
});

describe('FAQ', () => {
  it('opens several answers at once and closes them all with Close All', async () => {
    const user = userEvent.setup();
    renderRoute('/faq');
    await h1('Frequently Asked Questions');
    expect(screen.getByRole('navigation', { name: 'Breadcrumb' })).toBeInTheDocument();
    const closeAll = screen.getByRole('button', { name: 'Close All' });
    expect(closeAll).toBeDisabled();

    const first = screen.getByRole('button', { name: 'How do FFL transfers work?' });
    const second = screen.getByRole('button', { name: 'How long does shipping take?' });
    await user.click(first);
    await user.click(second);
    expect(first).toHaveAttribute('aria-expanded', 'true');
    expect(second).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('Through a dealer.')).toBeVisible();
    expect(screen.getByText('Two days.')).toBeVisible();

    await user.click(closeAll);
    expect(first).toHaveAttribute('aria-expanded', 'false');
    expect(second).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByText('Through a dealer.')).not.toBeVisible();
  });
});

describe('limited edition', () => {
  it("shows the featured edition with 'Buy Now', 'Stay Informed' and 'Past Limited Editions'", async () => {
    installFakeCaptcha();
    renderRoute('/limited-edition');
    await h1('Limited Edition');

    const featured = screen.getByRole('region', { name: 'Copperhead' });
    expect(within(featured).getByRole('link', { name: 'Buy Now: Copperhead' })).toHaveAttribute(
      'href',
      '/product/copperhead',
    );
    const stay = screen.getByRole('region', { name: 'Stay Informed' });
    expect(await within(stay).findByRole('form', { name: 'Stay Informed' })).toBeInTheDocument();
    const past = screen.getByRole('region', { name: 'Past Limited Editions' });
    expect(within(past).getByRole('heading', { level: 3, name: 'Glacier (2024)' })).toBeInTheDocument();
    expect(within(past).getAllByRole('img')).toHaveLength(2);
  });

  it("has no 'Buy Now' without a url", async () => {
    server.use(
      page('limitededition', { ...limitedEditionPage, current: { ...limitedEditionPage.current, url: null } }),
    );
    renderRoute('/limited-edition');
    await h1('Limited Edition');
    expect(screen.getByRole('heading', { name: 'Copperhead' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Buy Now/ })).not.toBeInTheDocument();
  });
});

describe('media library', () => {
  it('groups the downloads by category, served from object URLs, with the original URL as fallback', async () => {
    server.use(http.get('https://media.example.test/pistol-manual.pdf', () => HttpResponse.error()));
    renderRoute('/media-library');
    await h1('Media Library');

    expect(screen.getByRole('link', { name: 'Download the Catalog' })).toHaveAttribute(
      'href',
      mediaLibraryPage.catalog?.url,
    );
    const manuals = screen.getByRole('list', { name: 'Manuals' });
    const rifle = within(manuals).getByRole('link', { name: 'Download Rifle Manual (PDF)' });
    await waitFor(() => {
      expect(rifle.getAttribute('href')).toMatch(/^blob:/);
    });
    expect(rifle).toHaveAttribute('download', 'rifle-manual.pdf');
    // this one could not be fetched: it keeps its original URL
    expect(within(manuals).getByRole('link', { name: 'Download Pistol Manual (PDF)' })).toHaveAttribute(
      'href',
      'https://media.example.test/pistol-manual.pdf',
    );
    expect(
      within(screen.getByRole('list', { name: 'Logos' })).getByRole('link', { name: 'Download Logo (SVG)' }),
    ).toBeInTheDocument();
  });

  it("validates the 'Product Image Request' form ('Required' placeholders) and sends it", async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/image-requests', async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ message: 'Thank you! Your image request has been received.' });
      }),
    );
    installFakeCaptcha();
    const user = userEvent.setup();
    renderRoute('/media-library');
    await h1('Media Library');
    const form = await screen.findByRole('form', { name: 'Product Image Request' });
    for (const label of ['First Name', 'Last Name', 'Email', 'What are you looking for?']) {
      expect(within(form).getByLabelText(label)).toHaveAttribute('placeholder', 'Required');
    }

    await user.click(within(form).getByRole('button', { name: 'Submit Request' }));
    expect(await within(form).findByText('First Name is required')).toBeInTheDocument();
    expect(within(form).getByText('Last Name is required')).toBeInTheDocument();
    expect(within(form).getByText('Email is required')).toBeInTheDocument();
    expect(within(form).getByText('What you are looking for is required')).toBeInTheDocument();
    expect(within(form).getByText('Captcha is required')).toBeInTheDocument();

    await user.type(within(form).getByLabelText('First Name'), 'Sam');
    await user.type(within(form).getByLabelText('Last Name'), 'Press');
    await user.type(within(form).getByLabelText('Email'), 'sam@press');
    await user.type(within(form).getByLabelText('What are you looking for?'), 'Summit LR studio shots');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Submit Request' }));
    expect(await within(form).findByText('Email must be a valid email address')).toBeInTheDocument();

    await user.clear(within(form).getByLabelText('Email'));
    await user.type(within(form).getByLabelText('Email'), 'sam@press.example');
    await user.click(within(form).getByRole('button', { name: 'Submit Request' }));

    expect(await screen.findByText('Thank you! Your image request has been received.')).toBeInTheDocument();
    expect(bodies).toEqual([
      {
        firstName: 'Sam',
        lastName: 'Press',
        email: 'sam@press.example',
        lookingFor: 'Summit LR studio shots',
        captcha: 'test-captcha-token',
      },
    ]);
    expect(within(form).getByLabelText('First Name')).toHaveValue('');
  });

  it('on failure resets the captcha and shows the error', async () => {
    server.use(
      http.post('/api/image-requests', () => problem(400, { title: 'Bad', detail: 'Captcha verification failed' })),
    );
    const captcha = installFakeCaptcha();
    const user = userEvent.setup();
    renderRoute('/media-library');
    const form = await screen.findByRole('form', { name: 'Product Image Request' });
    await user.type(within(form).getByLabelText('First Name'), 'Sam');
    await user.type(within(form).getByLabelText('Last Name'), 'Press');
    await user.type(within(form).getByLabelText('Email'), 'sam@press.example');
    await user.type(within(form).getByLabelText('What are you looking for?'), 'Logos');
    await user.click(within(form).getByRole('checkbox', { name: "I'm not a robot" }));
    await user.click(within(form).getByRole('button', { name: 'Submit Request' }));

    expect(
      await within(screen.getByRole('alert')).findByText('Error: Captcha verification failed'),
    ).toBeInTheDocument();
    expect(captcha.resets.some((count) => count > 0)).toBe(true);
    expect(within(form).getByRole('checkbox', { name: "I'm not a robot" })).not.toBeChecked();
  });
});

describe('customer reviews', () => {
  it("shows 'Customer Reviews' and refreshes the widget, removing the user fields it adds", async () => {
    const refresh = vi.fn(() => {
      for (const element of document.querySelectorAll('[data-reviews-widget]')) {
        element.innerHTML = '<p>Great rifle</p><div data-reviews-user-field><label>Name <input></label></div>';
      }
    });
    window.SandboxReviews = { refresh };
    renderRoute('/reviews');
    await h1('Customer Reviews');
    await waitFor(() => {
      expect(refresh).toHaveBeenCalled();
    });
    expect(screen.getByText('Great rifle')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByLabelText('Name')).not.toBeInTheDocument();
    });
    delete window.SandboxReviews;
  });

  it('renders without the widget when its script cannot load', async () => {
    renderRoute('/reviews');
    expect(await h1('Customer Reviews')).toBeInTheDocument();
  });
});

describe('simple content pages', () => {
  it.each([
    [
      '/support',
      'support',
      {
        heading: 'How can we help?',
        subheading: 'Find answers',
        cards: [{ id: 1, title: 'FAQ', subtitle: 'Answers', link: '/faq', image: { src: '/i.svg', alt: 'FAQ' } }],
      },
      'How can we help?',
    ],
    [
      '/resources',
      'resources',
      { heading: 'LE / MIL Resources', subheading: 'Programs', content: [] },
      'LE / MIL Resources',
    ],
    [
      '/warranty',
      'warranty',
      { breadcrumbs: [], title: 'Lifetime Warranty', sections: [{ id: 1, header: 'What is covered', content: [] }] },
      'Lifetime Warranty',
    ],
    [
      '/contact-us',
      'contactus',
      {
        heading: 'Contact Us',
        address1: 'Test Arms',
        address2: '1 Foundry Way',
        address3: 'Prescott, AZ',
        phone: '(928) 555-0100',
        email: 'support@example.test',
        socialLinks: [],
      },
      'Contact Us',
    ],
    [
      '/patents',
      'patent',
      {
        title: 'Patents',
        items: [
          { id: 1, productName: 'Apex Brake', patentType: 'Patent pending', colorsAndModels: 'All', patentNumbers: [] },
        ],
      },
      'Patents',
    ],
  ])('%s renders its content', async (path, name, body, heading) => {
    server.use(page(name, body));
    renderRoute(path);
    expect(await h1(heading)).toBeInTheDocument();
  });

  it('support: cards link to their pages', async () => {
    server.use(
      page('support', {
        heading: 'Support',
        subheading: '',
        cards: [
          {
            id: 1,
            title: 'Warranty',
            subtitle: 'Claims',
            link: '/warranty',
            image: { src: '/w.svg', alt: 'Warranty' },
          },
        ],
      }),
    );
    renderRoute('/support');
    await h1('Support');
    expect(screen.getByRole('link', { name: 'Warranty Claims' })).toHaveAttribute('href', '/warranty');
  });

  it('contact us: phone and e-mail are links', async () => {
    server.use(
      page('contactus', {
        heading: 'Contact Us',
        phone: '(928) 555-0100',
        email: 'support@example.test',
        socialLinks: [{ title: 'Instagram', url: 'https://instagram.example/x', iconUrl: '/i.svg' }],
      }),
    );
    renderRoute('/contact-us');
    await h1('Contact Us');
    expect(screen.getByRole('link', { name: '(928) 555-0100' })).toHaveAttribute('href', 'tel:9285550100');
    expect(screen.getByRole('link', { name: 'support@example.test' })).toHaveAttribute(
      'href',
      'mailto:support@example.test',
    );
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Instagram' })).toHaveAttribute(
      'href',
      'https://instagram.example/x',
    );
  });

  it('patents: one row per patent group, "Patent pending" without numbers', async () => {
    server.use(
      page('patent', {
        title: 'Patents',
        items: [
          {
            id: 1,
            productName: 'Summit LR',
            patentType: 'Utility',
            colorsAndModels: 'All',
            patentNumbers: ['US 1', 'US 2'],
          },
          { id: 2, productName: 'Apex Brake', patentType: 'Design', colorsAndModels: 'All', patentNumbers: [] },
        ],
      }),
    );
    renderRoute('/patents');
    await h1('Patents');
    const rows = within(screen.getByRole('table', { name: 'Patents' })).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(within(defined(rows[1])).getByRole('rowheader', { name: 'Summit LR' })).toBeInTheDocument();
    expect(within(defined(rows[2])).getByRole('cell', { name: 'Patent pending' })).toBeInTheDocument();
  });
});

describe('/copy/<copyId>', () => {
  it.each([
    ['/copy/privacy', 'Privacy Policy', 'We keep what we need.'],
    ['/copy/terms', 'Terms of Service', 'All orders are subject to acceptance.'],
    ['/copy/cookies', 'Terms of Service', 'All orders are subject to acceptance.'],
    ['/terms-of-service', 'Terms of Service', 'All orders are subject to acceptance.'],
  ])('%s shows the %s page', async (path, heading, text) => {
    renderRoute(path);
    expect(await h1(heading)).toBeInTheDocument();
    expect(screen.getByText(text)).toBeInTheDocument();
  });
});

describe('page meta', () => {
  it("sets the title, description and social-preview tags from the page's metaData", async () => {
    renderRoute('/faq');
    await h1('Frequently Asked Questions');
    await waitFor(() => {
      expect(document.title).toBe('FAQ | Test Arms');
    });
    const meta = (selector: string) => document.head.querySelector<HTMLMetaElement>(`meta[${selector}]`)?.content;
    expect(meta('name="description"')).toBe('Answers');
    expect(meta('property="og:title"')).toBe('FAQ | Test Arms');
    expect(meta('property="og:description"')).toBe('Answers');
    expect(meta('name="twitter:title"')).toBe('FAQ | Test Arms');
  });

  it('falls back to the brand name with a generic manufacturer description', async () => {
    server.use(page('home', { carousel: [], ribbon: [] }));
    renderRoute('/');
    await screen.findByRole('heading', { level: 1, name: 'Home' });
    await waitFor(() => {
      expect(document.title).toBe('Test Arms | Firearms, parts and accessories from the manufacturer');
    });
  });
});

describe('global loading indicator', () => {
  it('shows while a request is in flight or the store flag is set', async () => {
    const { setGlobalLoading } = await import('../../features/layout/loading');
    let release: () => void = () => undefined;
    server.use(
      http.get('/api/pages/faq', async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return HttpResponse.json({ title: 'Slow FAQ', items: [] });
      }),
    );
    const { router } = renderRoute('/');
    await screen.findByRole('heading', { name: 'Built for the Long Range' });
    await waitFor(() => {
      expect(screen.queryByRole('progressbar', { name: 'Loading' })).not.toBeInTheDocument();
    });

    act(() => {
      router.navigate('/faq');
    });
    expect(await screen.findByRole('progressbar', { name: 'Loading' })).toBeInTheDocument();
    act(() => {
      release();
    });
    await h1('Slow FAQ');
    await waitFor(() => {
      expect(screen.queryByRole('progressbar', { name: 'Loading' })).not.toBeInTheDocument();
    });

    act(() => {
      setGlobalLoading(true);
    });
    expect(screen.getByRole('progressbar', { name: 'Loading' })).toBeInTheDocument();
    act(() => {
      setGlobalLoading(false);
    });
    expect(screen.queryByRole('progressbar', { name: 'Loading' })).not.toBeInTheDocument();
  });
});
