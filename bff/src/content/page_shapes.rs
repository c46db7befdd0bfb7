//! Content pages as `GET /api/pages/{name}` answers them: the content service's page `data`,
//! every key camelCased by the BFF, values untouched. These shapes are the API's schema and the
//! runtime's check: each page is read as the shape its name answers at every cache fill
//! (`content::pages`), and one that does not read is logged, counted
//! (`bff_upstream_contract_violations_total`) and still relayed as sent, so a CMS edit the web
//! app cannot read is an alert, not an outage. The catalogue's relayed fields use the common
//! shapes below (`Image`, `MetaData`, `Breadcrumb`, `RichText`).
//!
//! Optional keys (`metaData`) may be absent; `Option` fields marked `required` are always sent
//! but may be null. Objects stay open to more keys: the content service may add fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use crate::content::PAGE_NAMES;

/// A single-value string enum for a rich-text node's `type`, so each node schema names its own
/// kind and the `oneOf` unions can be told apart by it.
macro_rules! node_type {
    ($($name:ident = $value:tt;)*) => {
        $(
            #[doc = concat!("Always `", $value, "`.")]
            #[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
            pub enum $name {
                #[serde(rename = $value)]
                Tag,
            }
        )*
    };
}

node_type! {
    TextType = "text";
    LinkType = "link";
    ParagraphType = "paragraph";
    HeadingType = "heading";
    QuoteType = "quote";
    CodeType = "code";
    ListItemType = "list-item";
    ListType = "list";
    ImageType = "image";
}

// ---------------------------------------------------------------------------------------------
// Common shapes

/// An image: its absolute URL and its text alternative.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Image {
    pub src: String,
    /// May be empty for a decorative image.
    pub alt: String,
}

/// The page's `<title>` and meta description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MetaData {
    pub title: String,
    pub description: String,
}

/// A link with its label.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NavLink {
    pub label: String,
    /// An in-app path or an absolute URL; empty for plain text (the footer's bottom texts).
    pub link: String,
}

/// One step of a breadcrumb trail.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Breadcrumb {
    pub label: String,
    /// An in-app path.
    pub url: String,
}

// ---------------------------------------------------------------------------------------------
// Rich text: Strapi v5 "blocks"

/// A run of text with its marks; a mark that is not set may be absent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TextNode {
    #[schema(inline)]
    pub r#type: TextType,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub bold: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub italic: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub underline: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub strikethrough: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub code: Option<bool>,
}

/// A link around runs of text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LinkNode {
    #[schema(inline)]
    pub r#type: LinkType,
    /// An in-app path or an absolute URL.
    pub url: String,
    pub children: Vec<TextNode>,
}

/// What a text block holds: text runs and links, told apart by `type`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(discriminator(property_name = "type", mapping(
    ("text" = "#/components/schemas/TextNode"),
    ("link" = "#/components/schemas/LinkNode"),
)))]
pub enum InlineNode {
    Text(TextNode),
    Link(LinkNode),
}

/// A paragraph.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ParagraphBlock {
    #[schema(inline)]
    pub r#type: ParagraphType,
    pub children: Vec<InlineNode>,
}

/// A heading's level, as in `<h1>`…`<h6>`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct HeadingLevel(pub u8);

impl PartialSchema for HeadingLevel {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some(1..=6))
            .description(Some("A heading's level, as in `<h1>`…`<h6>`."))
            .into()
    }
}

impl ToSchema for HeadingLevel {}

/// A heading.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HeadingBlock {
    #[schema(inline)]
    pub r#type: HeadingType,
    pub level: HeadingLevel,
    pub children: Vec<InlineNode>,
}

/// A block quote.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QuoteBlock {
    #[schema(inline)]
    pub r#type: QuoteType,
    pub children: Vec<InlineNode>,
}

/// Preformatted code or text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CodeBlock {
    #[schema(inline)]
    pub r#type: CodeType,
    /// The language the author picked, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub children: Vec<InlineNode>,
}

/// One item of a list.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ListItemBlock {
    #[schema(inline)]
    pub r#type: ListItemType,
    pub children: Vec<InlineNode>,
}

/// Numbered or bulleted.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ListFormat {
    Ordered,
    Unordered,
}

/// A list.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ListBlock {
    #[schema(inline)]
    pub r#type: ListType,
    pub format: ListFormat,
    /// List items, or nested lists (Strapi nests a sub-list as a sibling of the items).
    pub children: Vec<ListBlockChild>,
}

/// What a list holds: items, or a nested list, told apart by `type`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(discriminator(property_name = "type", mapping(
    ("list-item" = "#/components/schemas/ListItemBlock"),
    ("list" = "#/components/schemas/ListBlock"),
)))]
pub enum ListBlockChild {
    Item(ListItemBlock),
    // `ListBlock` is collected through `RichTextBlock`; recursing here would never end.
    #[schema(no_recursion)]
    List(ListBlock),
}

/// An uploaded image inside rich text (the CMS's media record).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RichTextImage {
    /// Absolute URL.
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternative_text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caption: Option<String>,
    /// In pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<i64>,
    /// In pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub name: Option<String>,
    /// With the dot: `.svg`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ext: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub mime: Option<String>,
}

/// An image block.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ImageBlock {
    #[schema(inline)]
    pub r#type: ImageType,
    pub image: RichTextImage,
    /// Strapi writes an empty text node here; nothing to show.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub children: Option<Vec<InlineNode>>,
}

/// One block of rich text, told apart by `type`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(discriminator(property_name = "type", mapping(
    ("paragraph" = "#/components/schemas/ParagraphBlock"),
    ("heading" = "#/components/schemas/HeadingBlock"),
    ("quote" = "#/components/schemas/QuoteBlock"),
    ("code" = "#/components/schemas/CodeBlock"),
    ("list" = "#/components/schemas/ListBlock"),
    ("image" = "#/components/schemas/ImageBlock"),
)))]
pub enum RichTextBlock {
    Paragraph(ParagraphBlock),
    Heading(HeadingBlock),
    Quote(QuoteBlock),
    Code(CodeBlock),
    List(ListBlock),
    Image(ImageBlock),
}

/// A rich-text field (Strapi v5 blocks): an array of blocks.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RichText(pub Vec<RichTextBlock>);

// ---------------------------------------------------------------------------------------------
// Frame: header and footer

/// A column of links in a header menu.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MenuGroup {
    pub title: String,
    pub links: Vec<NavLink>,
}

/// A picture card in a header menu.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MenuCard {
    pub label: String,
    pub subtitle: String,
    pub link: String,
    pub image: Image,
    pub hover_image: Image,
}

/// A top-level header menu: Rifles, Pistols, Apparel & Gear, Support.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Menu {
    pub title: String,
    pub link: String,
    pub groups: Vec<MenuGroup>,
    pub cards: Vec<MenuCard>,
}

/// `app`: the site header.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub logo: Image,
    pub menus: Vec<Menu>,
}

/// A social network link with its icon.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SocialLink {
    pub title: String,
    pub url: String,
    pub icon: Image,
}

/// A downloadable file with its label.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DownloadAsset {
    pub label: String,
    /// Absolute URL.
    pub url: String,
}

/// `footer`: the site footer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooterPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub logo: Image,
    pub nav_links: Vec<NavLink>,
    pub social_links: Vec<SocialLink>,
    pub bottom_texts: Vec<NavLink>,
    pub download_asset: DownloadAsset,
}

// ---------------------------------------------------------------------------------------------
// Pages

/// One slide of the home page carousel.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CarouselSlide {
    pub title: String,
    pub subtitle: String,
    pub image: Image,
    pub url: String,
    pub button_label: String,
}

/// One tile of the home page ribbon.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RibbonItem {
    pub title: String,
    pub image: Image,
    pub url: String,
}

/// `home`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HomePage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub carousel: Vec<CarouselSlide>,
    pub ribbon: Vec<RibbonItem>,
}

/// `aboutus`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AboutUsPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading_title: String,
    pub heading_image_url: Image,
    /// URL of a video page; null: no video.
    #[schema(required)]
    pub heading_video_url: Option<String>,
    pub simple_copy_section: RichText,
    pub looking_for_image_url: Image,
    pub looking_for_heading: String,
    pub looking_for_sub_heading: RichText,
    /// Open positions; the careers section shows only when there is at least one.
    pub looking_for_list_content: Vec<String>,
    pub want_to_talk_image_url: Image,
    pub want_to_talk_heading: String,
    pub want_to_talk_content: String,
}

/// A social link on the contact page, its icon as a URL.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactSocialLink {
    pub title: String,
    pub url: String,
    pub icon_url: String,
}

/// `contactus`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactUsPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading: String,
    pub img_url: Image,
    pub address1: String,
    pub address2: String,
    pub address3: String,
    pub phone: String,
    pub email: String,
    pub hours: String,
    pub social_links: Vec<ContactSocialLink>,
}

/// The dealer locator's "become a dealer" link.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
pub struct DealerSignupLink {
    pub label: String,
    pub url: String,
}

/// `dealerlocator`: the locator's texts. The page also carries the raw `dealers` records; read
/// them through `GET /api/dealers`, which places, filters and sorts them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerLocatorContentPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading: String,
    pub dealer_signup: String,
    pub dealer_signup_link: DealerSignupLink,
}

/// `dealerregistration`: the texts around the dealer application form.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerRegistrationContentPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub title: String,
    pub greeting: String,
    pub sub_text: RichText,
}

/// One question and its answer.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FaqItem {
    pub id: i64,
    pub question: String,
    pub answer: RichText,
}

/// `faq`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaqPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub breadcrumbs: Vec<Breadcrumb>,
    pub header_image: Image,
    pub title: String,
    pub intro: RichText,
    pub items: Vec<FaqItem>,
}

/// The limited edition on sale now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LimitedEdition {
    pub image: Image,
    pub title: String,
    pub content: RichText,
    /// Where 'Buy Now' goes; null: no 'Buy Now'.
    #[schema(required)]
    pub url: Option<String>,
}

/// A past limited edition.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PastLimitedEdition {
    pub id: i64,
    pub images: Vec<Image>,
    pub title: String,
    pub content: RichText,
}

/// `limitededition`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LimitedEditionPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub banner_title: String,
    /// Null when no edition is on sale.
    #[schema(required)]
    pub current: Option<LimitedEdition>,
    pub past: Vec<PastLimitedEdition>,
}

/// A file in the media library.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MediaFile {
    pub name: String,
    /// Absolute URL.
    pub url: String,
    /// With the dot, as the content service stores it: `.pdf`.
    pub ext: String,
    pub mime: String,
}

/// A download and its title.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MediaDownload {
    pub title: String,
    pub file: MediaFile,
}

/// The downloads of one category.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MediaDownloadCategory {
    pub category: String,
    pub items: Vec<MediaDownload>,
}

/// The texts above the media library's image request form.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MediaImageRequest {
    pub heading: String,
    pub text: String,
}

/// `medialibrary`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MediaLibraryPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading: String,
    /// The catalogue download; null: none.
    #[schema(required)]
    pub catalog: Option<DownloadAsset>,
    pub downloads: Vec<MediaDownloadCategory>,
    pub image_request: MediaImageRequest,
}

/// One section of the warranty text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WarrantySection {
    pub id: i64,
    /// Null: a section without a heading.
    #[schema(required)]
    pub header: Option<String>,
    pub content: RichText,
}

/// `warranty`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WarrantyPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub breadcrumbs: Vec<Breadcrumb>,
    pub title: String,
    pub sections: Vec<WarrantySection>,
}

/// `resources`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading: String,
    pub subheading: String,
    pub content: RichText,
}

/// A card on the support page.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SupportCard {
    pub id: i64,
    pub image: Image,
    pub title: String,
    pub subtitle: String,
    pub link: String,
}

/// `support`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SupportPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub heading: String,
    pub subheading: String,
    pub cards: Vec<SupportCard>,
}

/// One row of the patents table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PatentItem {
    pub id: i64,
    pub product_name: String,
    pub patent_type: String,
    pub colors_and_models: String,
    /// Empty: patent pending.
    pub patent_numbers: Vec<String>,
}

/// `patent`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PatentPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub title: String,
    pub items: Vec<PatentItem>,
}

/// `login`, `register`, `forgotpassword`, `resetpassword`: the frame around an account form.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthContentPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub background_image: Image,
    pub header: String,
}

/// `terms`, `privacy`: a legal text.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CopyPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub background_image: Image,
    pub heading: String,
    pub text: String,
    pub rich_text: RichText,
}

/// Declares [`ContentPage`], the union of the page schemas, and its schema: an `anyOf` of
/// references, not a `oneOf`. The pages carry no discriminator and their shapes can overlap (a
/// FAQ page without items also reads as a `PatentPage`), so "exactly one" cannot be promised;
/// `name` says which page it is.
macro_rules! content_pages {
    ($($variant:ident($page:ident),)*) => {
        /// A content page; which one depends on the page name (see [`CONTENT_PAGE_DESCRIPTION`]).
        #[derive(Debug, Clone, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum ContentPage {
            $($variant($page),)*
        }

        impl PartialSchema for ContentPage {
            fn schema() -> RefOr<Schema> {
                AnyOfBuilder::new()
                    $(.item(Ref::from_schema_name($page::name())))*
                    .description(Some(CONTENT_PAGE_DESCRIPTION))
                    .into()
            }
        }

        impl ToSchema for ContentPage {
            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                $(
                    schemas.push(($page::name().into_owned(), $page::schema()));
                    $page::schemas(schemas);
                )*
            }
        }
    };
}

/// The description of the `ContentPage` schema.
pub const CONTENT_PAGE_DESCRIPTION: &str = "A content page; which one depends on the page name: \
    `app` AppPage, `footer` FooterPage, `home` HomePage, `aboutus` AboutUsPage, `contactus` \
    ContactUsPage, `dealerlocator` DealerLocatorContentPage, `dealerregistration` \
    DealerRegistrationContentPage, `faq` FaqPage, `limitededition` LimitedEditionPage, \
    `medialibrary` MediaLibraryPage, `warranty` WarrantyPage, `resources` ResourcesPage, \
    `support` SupportPage, `patent` PatentPage, `login` `register` `forgotpassword` \
    `resetpassword` AuthContentPage, `terms` `privacy` CopyPage. The bodies carry no \
    discriminator and may match more than one of these shapes (a FAQ page without items is \
    also a valid PatentPage): rely on the name, not on the shape.";

content_pages! {
    App(AppPage),
    Footer(FooterPage),
    Home(HomePage),
    AboutUs(AboutUsPage),
    ContactUs(ContactUsPage),
    DealerLocator(DealerLocatorContentPage),
    DealerRegistration(DealerRegistrationContentPage),
    Faq(FaqPage),
    LimitedEdition(LimitedEditionPage),
    MediaLibrary(MediaLibraryPage),
    Warranty(WarrantyPage),
    Resources(ResourcesPage),
    Support(SupportPage),
    Patent(PatentPage),
    Auth(AuthContentPage),
    Copy(CopyPage),
}

impl ContentPage {
    /// Reads a page (camelCased) as the shape its name answers: an error names what the CMS
    /// changed that the web app would not read (a required field renamed, a type changed). Keys
    /// the shapes do not name are allowed. `None` for a name that is not a page.
    pub fn decode(name: &str, page: Value) -> Option<Result<Self, serde_json::Error>> {
        use serde_json::from_value as read;
        Some(match name {
            "app" => read(page).map(Self::App),
            "footer" => read(page).map(Self::Footer),
            "home" => read(page).map(Self::Home),
            "aboutus" => read(page).map(Self::AboutUs),
            "contactus" => read(page).map(Self::ContactUs),
            "dealerlocator" => read(page).map(Self::DealerLocator),
            "dealerregistration" => read(page).map(Self::DealerRegistration),
            "faq" => read(page).map(Self::Faq),
            "limitededition" => read(page).map(Self::LimitedEdition),
            "medialibrary" => read(page).map(Self::MediaLibrary),
            "warranty" => read(page).map(Self::Warranty),
            "resources" => read(page).map(Self::Resources),
            "support" => read(page).map(Self::Support),
            "patent" => read(page).map(Self::Patent),
            "login" | "register" | "forgotpassword" | "resetpassword" => read(page).map(Self::Auth),
            "terms" | "privacy" => read(page).map(Self::Copy),
            _ => return None,
        })
    }
}

/// The `name` path parameter: one of [`PAGE_NAMES`] (matched ignoring case).
#[derive(Debug, Clone, Copy)]
pub struct PageName;

impl PartialSchema for PageName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(PAGE_NAMES.iter().copied()))
            .into()
    }
}

impl ToSchema for PageName {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page added to `PAGE_NAMES` needs its schema named in the description, which is the only
    /// place that says which shape a name answers.
    #[test]
    fn every_page_name_is_mapped_to_a_schema() {
        for name in PAGE_NAMES {
            assert!(
                CONTENT_PAGE_DESCRIPTION.contains(&format!("`{name}`")),
                "{name} is not in the ContentPage description"
            );
        }
    }
}
