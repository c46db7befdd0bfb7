/**
 * Content pages as served by `GET /api/pages/{name}` (camelCase, page fields at the top level).
 * Hand-written for now; to be replaced by the types generated from the BFF's OpenAPI document.
 */

export interface Image {
  src: string;
  alt: string;
}

export interface MetaData {
  title: string;
  description: string;
}

export interface NavLink {
  label: string;
  link: string;
}

export interface MenuGroup {
  title: string;
  links: NavLink[];
}

export interface MenuCard {
  label: string;
  subtitle: string;
  link: string;
  image: Image;
  hoverImage: Image;
}

/** A top-level header menu: Rifles, Pistols, Apparel & Gear, Support. */
export interface Menu {
  title: string;
  link: string;
  groups: MenuGroup[];
  cards: MenuCard[];
}

export interface AppPage {
  metaData?: MetaData;
  logo: Image;
  menus: Menu[];
}

export interface SocialLink {
  title: string;
  url: string;
  icon: Image;
}

export interface DownloadAsset {
  label: string;
  url: string;
}

export interface FooterPage {
  logo: Image;
  navLinks: NavLink[];
  socialLinks: SocialLink[];
  bottomTexts: NavLink[];
  downloadAsset: DownloadAsset;
}

export interface CarouselSlide {
  title: string;
  subtitle: string;
  image: Image;
  url: string;
  buttonLabel: string;
}

export interface RibbonItem {
  title: string;
  image: Image;
  url: string;
}

export interface HomePage {
  metaData?: MetaData;
  carousel: CarouselSlide[];
  ribbon: RibbonItem[];
}

/** Page name → page type, for the pages typed so far. */
export interface ContentPages {
  app: AppPage;
  footer: FooterPage;
  home: HomePage;
}

export type PageName = keyof ContentPages;
