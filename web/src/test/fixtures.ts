import type { Cart, CartItem, ProductCard, PublicConfig, SessionView } from '../api/types';
import type {
  AboutUsPage,
  AppPage,
  CopyPage,
  FaqPage,
  FooterPage,
  HomePage,
  InlineNode,
  LimitedEditionPage,
  MediaLibraryPage,
  RichText,
} from '../features/content/types';

const image = (name: string) => ({ src: `/images/${name}.jpg`, alt: `${name} image` });

export const runtimeConfig: PublicConfig = {
  environment: 'development',
  brandName: 'Test Arms',
  supportEmail: 'support@example.test',
  fflEmail: 'ffl@example.test',
  proDealEmail: 'prodeal@example.test',
  captcha: { siteKey: 'site-key', scriptUrl: '/sandbox/captcha.js' },
  payment: { loginId: 'login-id', clientKey: 'client-key', scriptUrl: '/sandbox/accept.js' },
  maps: { tileUrl: '/tiles/{z}/{x}/{y}.png', attribution: 'Map data' },
  reviews: { appKey: 'reviews-key', scriptUrl: '/sandbox/reviews.js' },
  analytics: { measurementId: 'G-TEST' },
  builder: { buildUrl: '/builder/Build' },
  telemetry: { traceSampleRatio: 1, rumSampleRatio: 1 },
};

const menu = (title: string): AppPage['menus'][number] => ({
  title,
  link: `/collection/${title.toLowerCase()}`,
  groups: [
    {
      title: `${title} models`,
      links: [{ label: `${title} Model One`, link: `/product/${title.toLowerCase()}-one` }],
    },
  ],
  cards: [
    {
      label: `${title} Featured`,
      subtitle: 'New',
      link: `/product/${title.toLowerCase()}-featured`,
      image: image(`${title}-card`),
      hoverImage: image(`${title}-card-hover`),
    },
  ],
});

export const appPage: AppPage = {
  metaData: { title: 'Test Arms', description: 'Test storefront' },
  logo: { src: '/images/logo.svg', alt: 'Test Arms' },
  menus: [menu('Rifles'), menu('Pistols'), menu('Apparel & Gear'), menu('Support')],
};

export const footerPage: FooterPage = {
  logo: { src: '/images/footer-logo.svg', alt: 'Test Arms footer logo' },
  navLinks: [
    { label: 'About Us', link: '/about-us' },
    { label: 'Contact Us', link: '/contact-us' },
    { label: 'Dealer Locator', link: '/dealer-locator' },
    { label: 'Warranty', link: '/warranty' },
    { label: 'FAQ', link: '/faq' },
    { label: 'Media Library', link: '/media-library' },
    { label: 'Patents', link: '/patents' },
  ],
  socialLinks: [{ title: 'Instagram', url: 'https://instagram.example.test/testarms', icon: image('instagram') }],
  bottomTexts: [
    { label: 'Privacy Policy', link: '/copy/privacy' },
    { label: 'Terms of Service', link: '/terms-of-service' },
  ],
  downloadAsset: { label: 'Download Product Guide', url: '/files/guide.pdf' },
};

export const homePage: HomePage = {
  metaData: { title: 'Home', description: 'Home page' },
  carousel: [
    {
      title: 'Built for the Long Range',
      subtitle: 'Precision rifles',
      image: image('slide-1'),
      url: '/collection/rifles',
      buttonLabel: 'Shop Rifles',
    },
    {
      title: 'Carry With Confidence',
      subtitle: 'Compact pistols',
      image: image('slide-2'),
      url: '/collection/pistols',
      buttonLabel: 'Shop Pistols',
    },
  ],
  ribbon: [
    { title: 'Optics', image: image('optics'), url: '/collection/optics' },
    { title: 'Apparel', image: image('apparel'), url: '/collection/apparel' },
  ],
};

// ---------------------------------------------------------------------------------------------
// content pages (as the BFF serves them: camelCase keys)

const text = (
  value: string,
  marks: Partial<Record<'bold' | 'italic' | 'underline' | 'strikethrough' | 'code', boolean>> = {},
) => ({
  type: 'text' as const,
  text: value,
  ...marks,
});
const paragraph = (...children: InlineNode[]): RichText[number] => ({
  type: 'paragraph',
  children,
});

export const aboutUsPage: AboutUsPage = {
  metaData: { title: 'About Us | Test Arms', description: 'Who we are' },
  headingTitle: 'Forged by Shooters',
  headingImageUrl: image('about-hero'),
  headingVideoUrl: 'https://media.example.test/video-about.html',
  simpleCopySection: [paragraph(text('We build in small batches.'))],
  lookingForImageUrl: image('careers'),
  lookingForHeading: "We're Hiring",
  lookingForSubHeading: [paragraph(text('Join the team.'))],
  lookingForListContent: ['CNC Machinist', 'Quality Assurance Technician'],
  wantToTalkImageUrl: image('talk'),
  wantToTalkHeading: 'Want to Talk?',
  wantToTalkContent: 'Our team answers every message.',
};

export const faqPage: FaqPage = {
  metaData: { title: 'FAQ | Test Arms', description: 'Answers' },
  breadcrumbs: [
    { label: 'Home', url: '/' },
    { label: 'FAQ', url: '/faq' },
  ],
  headerImage: image('faq'),
  title: 'Frequently Asked Questions',
  intro: [paragraph(text('Can we help?'))],
  items: [
    { id: 1, question: 'How do FFL transfers work?', answer: [paragraph(text('Through a dealer.'))] },
    { id: 2, question: 'How long does shipping take?', answer: [paragraph(text('Two days.'))] },
    { id: 3, question: 'Do you price match?', answer: [paragraph(text('No.'))] },
  ],
};

export const mediaLibraryPage: MediaLibraryPage = {
  metaData: { title: 'Media Library | Test Arms', description: 'Downloads' },
  heading: 'Media Library',
  catalog: { label: 'Download the Catalog', url: 'https://media.example.test/catalog.pdf' },
  downloads: [
    {
      category: 'Manuals',
      items: [
        {
          title: 'Rifle Manual',
          file: {
            name: 'rifle-manual.pdf',
            url: 'https://media.example.test/rifle-manual.pdf',
            ext: '.pdf',
            mime: 'application/pdf',
          },
        },
        {
          title: 'Pistol Manual',
          file: {
            name: 'pistol-manual.pdf',
            url: 'https://media.example.test/pistol-manual.pdf',
            ext: '.pdf',
            mime: 'application/pdf',
          },
        },
      ],
    },
    {
      category: 'Logos',
      items: [
        {
          title: 'Logo',
          file: { name: 'logo.svg', url: 'https://media.example.test/logo.svg', ext: '.svg', mime: 'image/svg+xml' },
        },
      ],
    },
  ],
  imageRequest: { heading: 'Product Image Request', text: 'Tell us what you need.' },
};

export const limitedEditionPage: LimitedEditionPage = {
  metaData: { title: 'Limited Edition | Test Arms', description: 'Limited' },
  bannerTitle: 'Limited Edition',
  current: {
    image: image('copperhead'),
    title: 'Copperhead',
    content: [paragraph(text('Only 500 made.'))],
    url: '/product/copperhead',
  },
  past: [
    {
      id: 1,
      images: [image('glacier-1'), image('glacier-2')],
      title: 'Glacier (2024)',
      content: [paragraph(text('Sold out.'))],
    },
  ],
};

export const termsPage: CopyPage = {
  metaData: { title: 'Terms of Service | Test Arms', description: 'Terms' },
  backgroundImage: image('terms'),
  heading: 'Terms of Service',
  text: 'Sample terms.',
  richText: [paragraph(text('All orders are subject to acceptance.'))],
};

export const privacyPage: CopyPage = {
  metaData: { title: 'Privacy Policy | Test Arms', description: 'Privacy' },
  backgroundImage: image('privacy'),
  heading: 'Privacy Policy',
  text: 'Sample privacy policy.',
  richText: [paragraph(text('We keep what we need.'))],
};

export const anonymousSessionFixture: SessionView = { signedIn: false, guest: false, user: null, expiresAt: null };

export const signedInSession: SessionView = {
  signedIn: true,
  guest: false,
  user: { firstName: 'Avery', lastName: 'Shooter', email: 'avery@example.test' },
  expiresAt: Date.now() + 15 * 60_000,
};

/** The empty guest cart, as the bff answers it for a visitor without a cart. */
export const emptyCart: Cart = {
  id: null,
  userId: null,
  isAbandoned: false,
  isGuest: true,
  items: [],
  inventoryWarnings: [],
  subTotal: 0,
  taxAmount: 0,
  shipping: 0,
  discountAmount: 0,
  totalAmount: 0,
  appliedDiscounts: [],
};

/** A cart line with every field the contract requires; `overrides` sets the rest. */
export function cartItem(overrides: Partial<CartItem> & Pick<CartItem, 'id'>): CartItem {
  return {
    productId: `SKU-${String(overrides.id)}`,
    yotpoProductId: null,
    productName: `Item ${String(overrides.id)}`,
    options: [],
    optionIds: null,
    price: 10,
    productPrice: 10,
    quantity: 1,
    imageUrl: `/images/item-${String(overrides.id)}.jpg`,
    productUrl: null,
    notes: null,
    buildId: null,
    isFflItem: false,
    isReceiverItem: false,
    restrictedStates: [],
    restrictedZips: [],
    ...overrides,
  };
}

/** A product card (collections, search results) with every field the contract requires. */
export function productCard(overrides: Partial<ProductCard> & Pick<ProductCard, 'title'>): ProductCard {
  const slug = overrides.title.toLowerCase();
  return {
    id: 1,
    documentId: `doc-${slug.replace(/\W+/g, '-')}`,
    subtitle: '',
    url: `/product/${encodeURIComponent(slug)}`,
    displayType: null,
    imgUrl: { src: '', alt: '' },
    skus: [],
    colorOptions: [],
    filterOptions: [],
    compatibility: [],
    fflItem: false,
    receiverItem: false,
    noVariants: false,
    displayedSku: null,
    ...overrides,
  };
}
