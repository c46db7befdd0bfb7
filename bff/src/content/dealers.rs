//! The dealer locator: dealers are the records of the `dealerlocator` content page, read through
//! the edge cache. Without a zip every placed dealer is listed, in content order. With one, the
//! zip is geocoded (offline, see [`crate::content::geo`]) and the dealers within the radius are listed
//! nearest first with their distance. Dealers at exactly (0, 0) have no place yet and are never
//! listed.

use std::collections::BTreeMap;

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;
use validator::{Validate, ValidationError};

use super::Content;
use crate::cache::Lookup;
use crate::content::geo::{Geocoder, LatLng, ZipCode, within_radius};
use crate::content::page_shapes::{DealerSignupLink, MetaData};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::http::validation::field_errors;
use crate::upstream::{self, UpstreamError};

/// The locator's radius options (spec section 9).
pub const RADIUS_OPTIONS_MILES: [u32; 5] = [50, 100, 150, 200, 250];
pub const DEFAULT_RADIUS_MILES: u32 = 50;

pub const ZIP_MESSAGE: &str = "Zip code must be 5 digits";
pub const RADIUS_MESSAGE: &str = "Radius must be one of 50, 100, 150, 200, 250";
/// The spec's message when a zip cannot be placed (section 8).
pub const GEOCODING_FAILED: &str = "Geocoding request failed";

const DEALER_PAGE: &str = "dealerlocator";

/// What the dealer search needs: the content pages (through the edge cache) and a geocoder.
#[derive(Debug, Clone)]
pub struct Dealers {
    pub content: Content,
    pub geocoder: Geocoder,
}

// ---------------------------------------------------------------------------------------------
// The search.

/// The validated query of a dealer search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealerSearch {
    /// `None` lists every dealer.
    pub zip: Option<ZipCode>,
    pub radius_miles: u32,
}

/// The query as sent: an empty value counts as absent, as the locator's empty search form sends
/// it.
#[derive(Debug, Default, Validate)]
struct DealerQuery {
    #[validate(custom(function = "zip_rule"))]
    zip: Option<String>,
    #[validate(custom(function = "radius_rule"))]
    radius: Option<String>,
}

fn zip_rule(raw: &str) -> Result<(), ValidationError> {
    match ZipCode::parse(raw) {
        Some(_) => Ok(()),
        None => Err(ValidationError::new("zip").with_message(ZIP_MESSAGE.into())),
    }
}

/// One of the offered options, compared as text so only the offered spellings pass (`050` and
/// `+50` do not).
fn radius_option(raw: &str) -> Option<u32> {
    RADIUS_OPTIONS_MILES
        .into_iter()
        .find(|option| raw == option.to_string())
}

fn radius_rule(raw: &str) -> Result<(), ValidationError> {
    match radius_option(raw) {
        Some(_) => Ok(()),
        None => Err(ValidationError::new("radius").with_message(RADIUS_MESSAGE.into())),
    }
}

impl DealerSearch {
    /// Other parameters are ignored, and a repeated one counts once (its first value). Every
    /// bad field is reported at once.
    pub fn from_query(query: Option<&str>) -> Result<Self, BTreeMap<String, String>> {
        let mut sent = DealerQuery::default();
        for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            let slot = match name.as_ref() {
                "zip" => &mut sent.zip,
                "radius" => &mut sent.radius,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(value.into_owned());
            }
        }
        sent.zip = sent.zip.filter(|raw| !raw.is_empty());
        sent.radius = sent.radius.filter(|raw| !raw.is_empty());
        sent.validate().map_err(|errors| field_errors(&errors))?;
        // Both values passed the rules above, which are these very parsers.
        Ok(Self {
            zip: sent.zip.as_deref().and_then(ZipCode::parse),
            radius_miles: sent
                .radius
                .as_deref()
                .and_then(radius_option)
                .unwrap_or(DEFAULT_RADIUS_MILES),
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for DealerSearch {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        Self::from_query(parts.uri.query()).map_err(ApiError::Validation)
    }
}

// ---------------------------------------------------------------------------------------------
// The answer.

/// The answer: the dealers, the centre they were measured from, and the page's own texts, so
/// the locator screen needs this one request.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerList {
    /// The geocoded zip; `null` when no zip was given.
    #[schema(required)]
    pub center: Option<Center>,
    /// The search radius; it filters only when there is a centre.
    pub radius_miles: u32,
    /// Nearest first with a centre, in content order without.
    pub dealers: Vec<DealerCard>,
    /// The locator page's heading (the `dealerlocator` page's texts, passed through; null when
    /// the page has none).
    #[schema(required)]
    pub heading: Option<String>,
    /// The invitation to become a dealer.
    #[schema(required)]
    pub dealer_signup: Option<String>,
    #[schema(required)]
    pub dealer_signup_link: Option<DealerSignupLink>,
    /// The locator page's title and description (the `dealerlocator` page's `metaData`; null
    /// when the page has none): the page's title, description and social-preview tags.
    #[schema(required)]
    pub meta_data: Option<MetaData>,
}

/// Where the dealers were measured from: the zip's centre.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[schema(as = DealerSearchCenter)]
pub struct Center {
    /// The zip's centre, WGS 84 decimal degrees.
    pub lat: f64,
    pub lng: f64,
    /// The zip searched.
    pub zip: String,
}

/// The spec's dealer locator card.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerCard {
    /// The dealer's name: the spec's card shows its id as the name.
    pub id: String,
    pub name: String,
    pub phone_number: String,
    pub address1: String,
    pub address2: String,
    pub coordinates: LatLng,
    /// From the centre, in the spec's miles, to 0.01; only when a zip was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub distance_miles: Option<f64>,
}

/// A found list and the page entry it was made from (whose cache headers the answer carries).
#[derive(Debug)]
pub struct Found {
    pub list: DealerList,
    pub page: Lookup,
}

impl Found {
    /// The list as the JSON body of the answer.
    pub fn body(&self) -> Result<Bytes, ApiError> {
        serde_json::to_vec(&self.list)
            .map(Bytes::from)
            .map_err(|err| ApiError::Internal(format!("dealer list: {err}")))
    }
}

// ---------------------------------------------------------------------------------------------
// The content page, as the page fetch leaves it (keys camelCased).

/// The `dealerlocator` page: its texts and its dealer records. Other members are ignored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LocatorPage {
    /// Read on its own: a malformed `metaData` leaves the list without one.
    #[serde(default)]
    meta_data: Option<Lenient<MetaData>>,
    #[serde(default)]
    heading: Option<String>,
    #[serde(default)]
    dealer_signup: Option<String>,
    #[serde(default)]
    dealer_signup_link: Option<DealerSignupLink>,
    #[serde(default)]
    dealers: Option<Vec<Lenient<ContentDealer>>>,
}

/// A dealer as the content page holds it.
#[derive(Debug, Deserialize)]
struct ContentDealer {
    name: String,
    phone: Option<String>,
    address1: Option<String>,
    address2: Option<String>,
    coordinates: ContentCoordinates,
}

#[derive(Debug, Deserialize)]
struct ContentCoordinates {
    latitude: f64,
    longitude: f64,
}

/// One record of a list, read on its own: a malformed record is kept as its error instead of
/// failing the whole list (one bad record must not hide the others).
#[derive(Debug)]
struct Lenient<T>(Result<T, String>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = serde_json::Value::deserialize(deserializer)?;
        Ok(Self(T::deserialize(record).map_err(|err| err.to_string())))
    }
}

impl Dealers {
    /// The dealers for `search`, with the locator page's texts.
    pub async fn search(
        &self,
        search: &DealerSearch,
        request_id: RequestId,
    ) -> Result<Found, ApiError> {
        // Geocoded first: an unknown zip needs no content.
        let center = match &search.zip {
            None => None,
            Some(zip) => Some(self.locate(zip)?),
        };
        let (page, lookup) = self.page(request_id).await?;
        let dealers = placed_dealers(page.dealers.unwrap_or_default());
        let dealers = match &center {
            None => dealers,
            Some(center) => nearest(center, search.radius_miles, dealers),
        };
        Ok(Found {
            list: DealerList {
                center,
                radius_miles: search.radius_miles,
                dealers,
                heading: page.heading,
                dealer_signup: page.dealer_signup,
                dealer_signup_link: page.dealer_signup_link,
                meta_data: page.meta_data.and_then(|meta| meta.0.ok()),
            },
            page: lookup,
        })
    }

    /// The zip's centre; 404 when the geocoder does not know it.
    fn locate(&self, zip: &ZipCode) -> Result<Center, ApiError> {
        let point = self
            .geocoder
            .locate(zip)
            .map_err(|err| ApiError::Internal(err.to_string()))?
            .ok_or_else(|| ApiError::NotFound(GEOCODING_FAILED.to_owned()))?;
        Ok(Center {
            lat: point.lat,
            lng: point.lng,
            zip: zip.as_str().to_owned(),
        })
    }

    /// The `dealerlocator` page, read, and its edge-cache entry (the same one the pages route
    /// uses). A page that breaks its contract is a 502 `upstream_contract`.
    async fn page(&self, request_id: RequestId) -> Result<(LocatorPage, Lookup), ApiError> {
        let lookup = self.content.page_lookup(DEALER_PAGE, request_id).await?;
        if lookup.entry.status != StatusCode::OK {
            return Err(ApiError::Upstream(UpstreamError::Decode {
                upstream: "content",
                reason: format!("the {DEALER_PAGE} page answered {}", lookup.entry.status),
            }));
        }
        let page = upstream::decode("content", &lookup.entry.body)?;
        Ok((page, lookup))
    }
}

/// The dealers within `radius_miles` of `center`, nearest first, each with its distance.
fn nearest(center: &Center, radius_miles: u32, dealers: Vec<DealerCard>) -> Vec<DealerCard> {
    let origin = LatLng {
        lat: center.lat,
        lng: center.lng,
    };
    within_radius(origin, f64::from(radius_miles), dealers, |card| {
        card.coordinates
    })
    .into_iter()
    .map(|nearby| DealerCard {
        distance_miles: Some((nearby.distance_miles * 100.0).round() / 100.0),
        ..nearby.item
    })
    .collect()
}

/// The page's dealers that have a place, in content order. A malformed record is skipped with a
/// warning (one bad record must not hide the others); one at exactly (0, 0) is skipped quietly,
/// as the spec asks.
fn placed_dealers(records: Vec<Lenient<ContentDealer>>) -> Vec<DealerCard> {
    records
        .into_iter()
        .enumerate()
        .filter_map(|(index, Lenient(record))| {
            let dealer = match record {
                Ok(dealer) => dealer,
                Err(error) => {
                    tracing::warn!(index, %error, "skipping a malformed dealer record");
                    return None;
                }
            };
            let Some(coordinates) =
                LatLng::new(dealer.coordinates.latitude, dealer.coordinates.longitude)
            else {
                tracing::warn!(index, name = %dealer.name, "skipping a dealer with out-of-range coordinates");
                return None;
            };
            (!coordinates.is_null_island()).then(|| DealerCard {
                id: dealer.name.clone(),
                name: dealer.name,
                phone_number: dealer.phone.unwrap_or_default(),
                address1: dealer.address1.unwrap_or_default(),
                address2: dealer.address2.unwrap_or_default(),
                coordinates,
                distance_miles: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(query: &str) -> BTreeMap<String, String> {
        DealerSearch::from_query(Some(query))
            .err()
            .unwrap_or_default()
    }

    fn page(value: serde_json::Value) -> Result<LocatorPage, UpstreamError> {
        upstream::decode("content", value.to_string().as_bytes())
    }

    fn card(name: &str, lat: f64, lng: f64) -> DealerCard {
        DealerCard {
            id: name.to_owned(),
            name: name.to_owned(),
            phone_number: String::new(),
            address1: String::new(),
            address2: String::new(),
            coordinates: LatLng { lat, lng },
            distance_miles: None,
        }
    }

    #[test]
    fn no_query_lists_everything_within_the_default_radius() {
        for query in [None, Some(""), Some("zip=&radius="), Some("other=1")] {
            assert_eq!(
                DealerSearch::from_query(query),
                Ok(DealerSearch {
                    zip: None,
                    radius_miles: DEFAULT_RADIUS_MILES
                }),
                "{query:?}"
            );
        }
    }

    #[test]
    fn a_zip_and_an_offered_radius_are_accepted() {
        for radius in RADIUS_OPTIONS_MILES {
            let search = DealerSearch::from_query(Some(&format!("zip=02108&radius={radius}")));
            assert_eq!(
                search,
                Ok(DealerSearch {
                    zip: ZipCode::parse("02108"),
                    radius_miles: radius
                })
            );
        }
    }

    #[test]
    fn a_zip_that_is_not_five_digits_is_refused_with_the_message() {
        for zip in ["7870", "787011", "abcde", "7870a", "78701%20", "%2078701"] {
            assert_eq!(
                errors(&format!("zip={zip}")),
                BTreeMap::from([("zip".to_owned(), ZIP_MESSAGE.to_owned())]),
                "{zip}"
            );
        }
    }

    #[test]
    fn a_radius_outside_the_options_is_refused_with_the_message() {
        for radius in ["75", "0", "-50", "050", "+50", "50.0", "fifty", "1000"] {
            assert_eq!(
                errors(&format!("radius={radius}")),
                BTreeMap::from([("radius".to_owned(), RADIUS_MESSAGE.to_owned())]),
                "{radius}"
            );
        }
    }

    #[test]
    fn both_bad_fields_are_reported_together() {
        let errors = errors("zip=123&radius=75");
        assert_eq!(errors.len(), 2);
        assert!(errors.contains_key("zip") && errors.contains_key("radius"));
    }

    #[test]
    fn a_repeated_parameter_counts_once() {
        let search = DealerSearch::from_query(Some("radius=100&radius=75"));
        assert_eq!(search.map(|search| search.radius_miles), Ok(100));
        // The first value counts even when it is empty.
        let search = DealerSearch::from_query(Some("zip=&zip=123"));
        assert_eq!(search.map(|search| search.zip), Ok(None));
    }

    #[test]
    fn placed_dealers_skip_null_island_and_malformed_records() {
        let page = page(json!({"dealers": [
            {"id": 1, "name": "A", "phone": "(602) 555-0100", "address1": "1 Main", "address2": "Phoenix, AZ 85004",
             "coordinates": {"latitude": 33.4484, "longitude": -112.074}},
            {"id": 2, "name": "Nowhere", "coordinates": {"latitude": 0, "longitude": 0}},
            {"id": 3, "name": "No coordinates"},
            {"id": 4, "name": "Off the globe", "coordinates": {"latitude": 123.0, "longitude": 0}},
            {"id": 5, "name": "Sparse", "phone": null, "coordinates": {"latitude": 0, "longitude": 1.5}},
            "not even an object",
        ]}))
        .unwrap_or_else(|err| panic!("{err}"));
        let cards = placed_dealers(page.dealers.unwrap_or_default());
        let names: Vec<&str> = cards.iter().map(|card| card.id.as_str()).collect();
        assert_eq!(names, ["A", "Sparse"]);
        assert_eq!(cards[0].phone_number, "(602) 555-0100");
        assert_eq!(cards[1].phone_number, "");
    }

    #[test]
    fn a_page_without_dealers_or_texts_is_an_empty_list() {
        for value in [json!({}), json!({"dealers": null, "heading": null})] {
            let page = page(value).unwrap_or_else(|err| panic!("{err}"));
            assert!(placed_dealers(page.dealers.unwrap_or_default()).is_empty());
            assert_eq!(page.heading, None);
            assert_eq!(page.dealer_signup_link, None);
        }
    }

    #[test]
    fn unknown_page_members_are_tolerated() {
        let page = page(json!({
            "metaData": {"title": "Dealers"}, "heading": "Dealer Locator", "brandNew": [1, 2],
            "dealerSignupLink": {"label": "Become a dealer", "url": "/dealer-registration", "target": "_self"},
        }))
        .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(page.heading.as_deref(), Some("Dealer Locator"));
        assert_eq!(
            page.dealer_signup_link,
            Some(DealerSignupLink {
                label: "Become a dealer".to_owned(),
                url: "/dealer-registration".to_owned()
            })
        );
    }

    #[test]
    fn a_page_that_breaks_the_contract_names_the_field() {
        for (value, path) in [
            (json!({"heading": 7}), "heading"),
            (
                json!({"dealerSignupLink": {"label": "Become a dealer"}}),
                "dealerSignupLink",
            ),
            (json!({"dealers": "all of them"}), "dealers"),
        ] {
            let err = page(value)
                .err()
                .unwrap_or_else(|| panic!("{path}: decoded"));
            assert!(
                matches!(&err, UpstreamError::Contract { field, .. } if field == path),
                "{err:?}"
            );
            assert_eq!(ApiError::from(err).problem().code, "upstream_contract");
        }
    }

    #[test]
    fn nearest_keeps_the_radius_sorts_and_rounds_the_distance() {
        let center = Center {
            lat: 30.2672,
            lng: -97.7431,
            zip: "78701".to_owned(),
        };
        let cards = vec![
            card("Dallas", 32.7767, -96.797),
            card("Austin", 30.2672, -97.7431),
            card("San Antonio", 29.4241, -98.4936),
        ];
        let near = nearest(&center, 100, cards);
        let names: Vec<&str> = near.iter().map(|card| card.name.as_str()).collect();
        assert_eq!(names, ["Austin", "San Antonio"]);
        assert_eq!(near[0].distance_miles, Some(0.0));
        let miles = near[1].distance_miles.unwrap_or_default();
        assert!(
            (miles * 100.0 - (miles * 100.0).round()).abs() < 1e-6,
            "{miles}"
        );
        assert!((70.0..80.0).contains(&miles), "{miles}");
    }

    #[test]
    fn a_card_is_camel_cased_and_has_a_distance_only_when_measured() {
        let card = DealerCard {
            id: "A".to_owned(),
            name: "A".to_owned(),
            phone_number: "1".to_owned(),
            address1: "x".to_owned(),
            address2: "y".to_owned(),
            coordinates: LatLng { lat: 1.0, lng: 2.0 },
            distance_miles: None,
        };
        let value = serde_json::to_value(&card).unwrap_or_default();
        assert_eq!(
            value,
            json!({"id": "A", "name": "A", "phoneNumber": "1", "address1": "x", "address2": "y",
                   "coordinates": {"lat": 1.0, "lng": 2.0}})
        );
        let measured = DealerCard {
            distance_miles: Some(12.5),
            ..card
        };
        assert_eq!(
            serde_json::to_value(&measured).unwrap_or_default()["distanceMiles"],
            12.5
        );
    }
}
