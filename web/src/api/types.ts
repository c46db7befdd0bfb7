/**
 * Named aliases of the bff's API types. `schema.d.ts` is generated from `openapi.json` (the bff's
 * committed OpenAPI document) by `npm run generate:api`; `npm run check:api` fails when it is stale.
 * Import API shapes from here, not from `schema.d.ts`, and do not hand-write them elsewhere.
 */
import type { components, operations } from './schema';

type Schemas = components['schemas'];

// errors ---------------------------------------------------------------------------------------

/** The RFC 9457 problem document every error answer carries (`application/problem+json`). */
export type Problem = Schemas['Problem'];

/** `{message}`: an upstream confirmation relayed for display (`message` may be null or absent). */
export type MessageAnswer = Schemas['MessageAnswer'];

// session and auth -----------------------------------------------------------------------------

/** `GET /api/session`, and the answer of sign-in and registration. */
export type SessionView = Schemas['SessionView'];
export type UserView = Schemas['UserView'];

export type Login = Schemas['Login'];
export type Register = Schemas['Register'];
export type ForgotPassword = Schemas['ForgotPassword'];
export type ResetPassword = Schemas['ResetPassword'];
export type ChangePassword = Schemas['ChangePassword'];
export type VerifyRegistration = Schemas['VerifyRegistration'];

// cart and checkout ----------------------------------------------------------------------------

export type Cart = Schemas['Cart'];
export type CartItem = Schemas['CartItem'];
export type CartOption = Schemas['CartOption'];
export type AppliedDiscount = Schemas['AppliedDiscount'];
export type PromotionalPageInfo = Schemas['PromotionalPageInfo'];
export type PromotionalPage = Schemas['PromotionalPage'];
export type PromotionImage = Schemas['PromotionImage'];
export type InventoryWarning = Schemas['InventoryWarning'];
export type ComputeAddress = Schemas['ComputeAddress'];
export type DealerInfo = Schemas['DealerInfo'];
export type NewCartItem = Schemas['NewCartItem'];
export type QuantityUpdate = Schemas['QuantityUpdate'];
export type PromoCode = Schemas['PromoCode'];
export type ShippingMethod = Schemas['ShippingMethod'];
export type MethodId = Schemas['MethodId'];
export type CheckoutForm = Schemas['CheckoutForm'];
export type DealerForm = Schemas['DealerForm'];
export type OrderPlaced = Schemas['OrderPlaced'];

// orders and account ---------------------------------------------------------------------------

export type Order = Schemas['Order'];
export type OrderItem = Schemas['OrderItem'];
export type PaymentMethod = Schemas['PaymentMethod'];
export type Profile = Schemas['Profile'];
export type ProfileUpdate = Schemas['ProfileUpdate'];
export type Address = Schemas['Address'];
export type StoredAddress = Schemas['StoredAddress'];
export type MilitarySession = Schemas['MilitarySession'];
export type MilitaryCallback = Schemas['MilitaryCallback'];
export type MilitaryOutcome = Schemas['MilitaryOutcome'];

// newsletter and forms -------------------------------------------------------------------------

export type NewsletterStatus = Schemas['NewsletterStatus'];
export type Subscribe = Schemas['Subscribe'];
export type StockAlert = Schemas['StockAlert'];
export type ImageRequest = Schemas['ImageRequest'];
/** Sent as `multipart/form-data` (`FormData`); the files are `File` parts. */
export type DealerRegistrationForm = Schemas['DealerRegistrationForm'];
/** Sent as `multipart/form-data` (`FormData`); the files are `File` parts. */
export type ProDealForm = Schemas['ProDealForm'];

// configuration --------------------------------------------------------------------------------

/** `GET /api/config`, also embedded in `index.html` (validated at run time: `lib/runtime-config.ts`). */
export type PublicConfig = Schemas['PublicConfig'];

// catalogue: products, collections, search ----------------------------------------------------

/** `GET /api/search?q=`. */
export type SearchResults = Schemas['SearchResults'];
/** A product as collections, search results and related products show it. */
export type ProductCard = Schemas['ProductCard'];
export type ProductSku = Schemas['ProductSku'];
/** `GET /api/products/{title}`. */
export type ProductPage = Schemas['ProductPage'];
/** `GET /api/collections/{title}`. */
export type Collection = Schemas['Collection'];
export type SkuVariant = Schemas['SkuVariant'];
export type AddOn = Schemas['AddOn'];
export type FilterCategory = Schemas['FilterCategory'];
export type FilterTag = Schemas['FilterTag'];
export type CompatibilityGroup = Schemas['CompatibilityGroup'];
export type ColorOption = Schemas['ColorOption'];
export type PromoCard = Schemas['PromoCard'];
export type PromoVideos = Schemas['PromoVideos'];
export type ProductAbout = Schemas['ProductAbout'];
export type TechSpec = Schemas['TechSpec'];
export type MoreDetail = Schemas['MoreDetail'];

// content pages: `GET /api/pages/{name}` -------------------------------------------------------

/** Any content page; which one depends on the name (see `ContentPages` in `features/content`). */
export type ContentPage = Schemas['ContentPage'];
/** The page names `GET /api/pages/{name}` knows. */
export type PageName = operations['getPage']['parameters']['path']['name'];

export type Image = Schemas['Image'];
export type MetaData = Schemas['MetaData'];
export type NavLink = Schemas['NavLink'];
export type Breadcrumb = Schemas['Breadcrumb'];

export type TextNode = Schemas['TextNode'];
export type LinkNode = Schemas['LinkNode'];
export type InlineNode = Schemas['InlineNode'];
export type ParagraphBlock = Schemas['ParagraphBlock'];
export type HeadingLevel = Schemas['HeadingLevel'];
export type HeadingBlock = Schemas['HeadingBlock'];
export type QuoteBlock = Schemas['QuoteBlock'];
export type CodeBlock = Schemas['CodeBlock'];
export type ListItemBlock = Schemas['ListItemBlock'];
export type ListFormat = Schemas['ListFormat'];
export type ListBlock = Schemas['ListBlock'];
export type ListBlockChild = Schemas['ListBlockChild'];
export type RichTextImage = Schemas['RichTextImage'];
export type ImageBlock = Schemas['ImageBlock'];
export type RichTextBlock = Schemas['RichTextBlock'];
export type RichText = Schemas['RichText'];

export type MenuGroup = Schemas['MenuGroup'];
export type MenuCard = Schemas['MenuCard'];
export type Menu = Schemas['Menu'];
export type AppPage = Schemas['AppPage'];
export type SocialLink = Schemas['SocialLink'];
export type DownloadAsset = Schemas['DownloadAsset'];
export type FooterPage = Schemas['FooterPage'];

export type CarouselSlide = Schemas['CarouselSlide'];
export type RibbonItem = Schemas['RibbonItem'];
export type HomePage = Schemas['HomePage'];
export type AboutUsPage = Schemas['AboutUsPage'];
export type ContactSocialLink = Schemas['ContactSocialLink'];
export type ContactUsPage = Schemas['ContactUsPage'];
export type DealerSignupLink = Schemas['DealerSignupLink'];
export type DealerLocatorContentPage = Schemas['DealerLocatorContentPage'];
export type DealerRegistrationContentPage = Schemas['DealerRegistrationContentPage'];

/** `GET /api/dealers`: the dealers (nearest first after a search), the searched centre and the page's texts. */
export type DealerList = Schemas['DealerList'];
export type DealerCard = Schemas['DealerCard'];
export type DealerSearchCenter = Schemas['DealerSearchCenter'];
export type FaqItem = Schemas['FaqItem'];
export type FaqPage = Schemas['FaqPage'];
export type LimitedEdition = Schemas['LimitedEdition'];
export type PastLimitedEdition = Schemas['PastLimitedEdition'];
export type LimitedEditionPage = Schemas['LimitedEditionPage'];
export type MediaFile = Schemas['MediaFile'];
export type MediaDownload = Schemas['MediaDownload'];
export type MediaDownloadCategory = Schemas['MediaDownloadCategory'];
export type MediaImageRequest = Schemas['MediaImageRequest'];
export type MediaLibraryPage = Schemas['MediaLibraryPage'];
export type WarrantySection = Schemas['WarrantySection'];
export type WarrantyPage = Schemas['WarrantyPage'];
export type ResourcesPage = Schemas['ResourcesPage'];
export type SupportCard = Schemas['SupportCard'];
export type SupportPage = Schemas['SupportPage'];
export type PatentItem = Schemas['PatentItem'];
export type PatentPage = Schemas['PatentPage'];
export type AuthContentPage = Schemas['AuthContentPage'];
export type CopyPage = Schemas['CopyPage'];
