import type { AppPage, FooterPage, HomePage } from '../features/content/types';
import type { RuntimeConfig } from '../lib/runtime-config';

const image = (name: string) => ({ src: `/images/${name}.jpg`, alt: `${name} image` });

export const runtimeConfig: RuntimeConfig = {
  environment: 'test',
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
  socialLinks: [
    { title: 'Instagram', url: 'https://instagram.example.test/testarms', icon: image('instagram') },
  ],
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
