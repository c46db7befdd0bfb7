/**
 * Content pages as served by `GET /api/pages/{name}`: the content service's page `data`, every
 * key camelCased by the BFF (`nav_links` → `navLinks`, `hover_image` → `hoverImage`). Values
 * (such as rich-text block types) are untouched.
 *
 * The shapes are the contract's (generated from the bff's OpenAPI document, see
 * `src/api/types.ts`); this module re-exports them under the names the app uses.
 */
import type {
  AboutUsPage,
  AppPage,
  AuthContentPage,
  ContactUsPage,
  CopyPage,
  DealerLocatorContentPage,
  DealerRegistrationContentPage,
  FaqPage,
  FooterPage,
  HomePage,
  LimitedEditionPage,
  MediaLibraryPage,
  PageName,
  PatentPage,
  ResourcesPage,
  SupportPage,
  WarrantyPage,
} from '../../api/types';

export type {
  // common shapes
  Breadcrumb,
  Image,
  MetaData,
  NavLink,
  // rich text: Strapi v5 "blocks"
  CodeBlock,
  HeadingBlock,
  HeadingLevel,
  ImageBlock,
  InlineNode,
  LinkNode,
  ListBlock,
  ListBlockChild,
  ListFormat,
  ListItemBlock,
  ParagraphBlock,
  QuoteBlock,
  RichText,
  RichTextBlock,
  RichTextImage,
  TextNode,
  // frame: header and footer
  AppPage,
  DownloadAsset,
  FooterPage,
  Menu,
  MenuCard,
  MenuGroup,
  SocialLink,
  // pages
  AboutUsPage,
  AuthContentPage,
  CarouselSlide,
  ContactSocialLink,
  ContactUsPage,
  CopyPage,
  DealerLocatorContentPage,
  DealerRegistrationContentPage,
  DealerSignupLink,
  FaqItem,
  FaqPage,
  HomePage,
  LimitedEdition,
  LimitedEditionPage,
  MediaDownload,
  MediaDownloadCategory,
  MediaFile,
  MediaImageRequest,
  MediaLibraryPage,
  PageName,
  PastLimitedEdition,
  PatentItem,
  PatentPage,
  ResourcesPage,
  RibbonItem,
  SupportCard,
  SupportPage,
  WarrantyPage,
  WarrantySection,
} from '../../api/types';

/**
 * Which shape each page has. Kept here because the contract is less precise: it answers every
 * name with `ContentPage`, the union of all page shapes (the bodies carry no discriminator), and
 * says which name has which shape only in prose. `PageName` is the contract's list of names: a
 * name added there and missing here fails to compile.
 */
interface PageShapes {
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

/** Page name → page type. */
export type ContentPages = { [N in PageName]: PageShapes[N] };
