/**
 * Content pages as served by `GET /api/pages/{name}`: the content service's page `data`, every
 * key camelCased by the BFF (`nav_links` → `navLinks`, `hover_image` → `hoverImage`). Values
 * (such as rich-text block types) are untouched. Fields the content service may leave unset are
 * typed `| null`.
 * Hand-written for now; to be replaced by the types generated from the BFF's OpenAPI document.
 */

// ---------------------------------------------------------------------------------------------
// Common shapes

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
  /** An in-app path or an absolute URL; '' for plain text (footer bottom texts). */
  link: string;
}

export interface Breadcrumb {
  label: string;
  url: string;
}

// ---------------------------------------------------------------------------------------------
// Rich text: Strapi v5 "blocks"

export interface TextNode {
  type: 'text';
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
}

export interface LinkNode {
  type: 'link';
  url: string;
  children: TextNode[];
}

export type InlineNode = TextNode | LinkNode;

export interface ParagraphBlock {
  type: 'paragraph';
  children: InlineNode[];
}

export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;

export interface HeadingBlock {
  type: 'heading';
  level: HeadingLevel;
  children: InlineNode[];
}

export interface QuoteBlock {
  type: 'quote';
  children: InlineNode[];
}

export interface CodeBlock {
  type: 'code';
  language?: string | null;
  children: InlineNode[];
}

export interface ListItemBlock {
  type: 'list-item';
  children: InlineNode[];
}

export interface ListBlock {
  type: 'list';
  format: 'ordered' | 'unordered';
  /** List items, or nested lists (Strapi nests a sub-list as a sibling of the items). */
  children: (ListItemBlock | ListBlock)[];
}

export interface RichTextImage {
  url: string;
  alternativeText?: string | null;
  caption?: string | null;
  width?: number | null;
  height?: number | null;
  name?: string;
  ext?: string;
  mime?: string;
}

export interface ImageBlock {
  type: 'image';
  image: RichTextImage;
  children?: InlineNode[];
}

export type RichTextBlock = ParagraphBlock | HeadingBlock | QuoteBlock | CodeBlock | ListBlock | ImageBlock;

/** A rich-text field: an array of blocks. */
export type RichText = RichTextBlock[];

// ---------------------------------------------------------------------------------------------
// Frame: header and footer

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
  metaData?: MetaData;
  logo: Image;
  navLinks: NavLink[];
  socialLinks: SocialLink[];
  bottomTexts: NavLink[];
  downloadAsset: DownloadAsset;
}

// ---------------------------------------------------------------------------------------------
// Pages

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

export interface AboutUsPage {
  metaData?: MetaData;
  headingTitle: string;
  headingImageUrl: Image;
  /** URL of a video page. */
  headingVideoUrl: string | null;
  simpleCopySection: RichText;
  lookingForImageUrl: Image;
  lookingForHeading: string;
  lookingForSubHeading: RichText;
  /** Open positions; the careers section shows only when there is at least one. */
  lookingForListContent: string[];
  wantToTalkImageUrl: Image;
  wantToTalkHeading: string;
  wantToTalkContent: string;
}

export interface ContactSocialLink {
  title: string;
  url: string;
  iconUrl: string;
}

export interface ContactUsPage {
  metaData?: MetaData;
  heading: string;
  imgUrl: Image;
  address1: string;
  address2: string;
  address3: string;
  phone: string;
  email: string;
  hours: string;
  socialLinks: ContactSocialLink[];
}

export interface DealerLocatorContentPage {
  metaData?: MetaData;
  heading: string;
  dealerSignup: string;
  dealerSignupLink: { label: string; url: string };
}

export interface DealerRegistrationContentPage {
  metaData?: MetaData;
  title: string;
  greeting: string;
  subText: RichText;
}

export interface FaqItem {
  id: number;
  question: string;
  answer: RichText;
}

export interface FaqPage {
  metaData?: MetaData;
  breadcrumbs: Breadcrumb[];
  headerImage: Image;
  title: string;
  intro: RichText;
  items: FaqItem[];
}

export interface LimitedEdition {
  image: Image;
  title: string;
  content: RichText;
  /** Where 'Buy Now' goes; null: no 'Buy Now'. */
  url: string | null;
}

export interface PastLimitedEdition {
  id: number;
  images: Image[];
  title: string;
  content: RichText;
}

export interface LimitedEditionPage {
  metaData?: MetaData;
  bannerTitle: string;
  current: LimitedEdition | null;
  past: PastLimitedEdition[];
}

export interface MediaFile {
  name: string;
  url: string;
  /** With the dot, as the content service stores it: '.pdf'. */
  ext: string;
  mime: string;
}

export interface MediaDownload {
  title: string;
  file: MediaFile;
}

export interface MediaDownloadCategory {
  category: string;
  items: MediaDownload[];
}

export interface MediaLibraryPage {
  metaData?: MetaData;
  heading: string;
  catalog: DownloadAsset | null;
  downloads: MediaDownloadCategory[];
  imageRequest: { heading: string; text: string };
}

export interface WarrantySection {
  id: number;
  header: string | null;
  content: RichText;
}

export interface WarrantyPage {
  metaData?: MetaData;
  breadcrumbs: Breadcrumb[];
  title: string;
  sections: WarrantySection[];
}

export interface ResourcesPage {
  metaData?: MetaData;
  heading: string;
  subheading: string;
  content: RichText;
}

export interface SupportCard {
  id: number;
  image: Image;
  title: string;
  subtitle: string;
  link: string;
}

export interface SupportPage {
  metaData?: MetaData;
  heading: string;
  subheading: string;
  cards: SupportCard[];
}

export interface PatentItem {
  id: number;
  productName: string;
  patentType: string;
  colorsAndModels: string;
  /** Empty: patent pending. */
  patentNumbers: string[];
}

export interface PatentPage {
  metaData?: MetaData;
  title: string;
  items: PatentItem[];
}

/** login, register, forgotpassword, resetpassword. */
export interface AuthContentPage {
  metaData?: MetaData;
  backgroundImage: Image;
  header: string;
}

/** terms, privacy. */
export interface CopyPage {
  metaData?: MetaData;
  backgroundImage: Image;
  heading: string;
  text: string;
  richText: RichText;
}

/** Page name → page type. */
export interface ContentPages {
  app: AppPage;
  footer: FooterPage;
  home: HomePage;
  aboutus: AboutUsPage;
  contactus: ContactUsPage;
  dealerlocator: DealerLocatorContentPage;
  dealerregistration: DealerRegistrationContentPage;
  faq: FaqPage;
  limitededition: LimitedEditionPage;
  medialibrary: MediaLibraryPage;
  warranty: WarrantyPage;
  resources: ResourcesPage;
  support: SupportPage;
  patent: PatentPage;
  login: AuthContentPage;
  register: AuthContentPage;
  forgotpassword: AuthContentPage;
  resetpassword: AuthContentPage;
  terms: CopyPage;
  privacy: CopyPage;
}

export type PageName = keyof ContentPages;
