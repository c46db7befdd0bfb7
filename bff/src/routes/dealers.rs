//! The dealer locator: `GET /api/dealers?zip=&radius=`.
//!
//! Dealers are the records of the `dealerlocator` content page, read through the edge cache.
//! Without a zip every placed dealer is listed, in content order. With one, the zip is geocoded
//! (offline, see [`crate::geo`]) and the dealers within the radius are listed nearest first with
//! their distance. Dealers at exactly (0, 0) have no place yet and are never listed.

use std::collections::BTreeMap;

use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::cache::Lookup;
use crate::catalogue::answer;
use crate::error::ApiError;
use crate::geo::{Geocoder, LatLng, ZipCode, within_radius};
use crate::openapi::schemas::dealers::RadiusMiles;
use crate::request_id::RequestId;
use crate::state::SharedState;
use crate::upstream::UpstreamError;
use axum::extract::FromRef;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The locator's radius options (spec section 9).
pub const RADIUS_OPTIONS_MILES: [u32; 5] = [50, 100, 150, 200, 250];
pub const DEFAULT_RADIUS_MILES: u32 = 50;

pub const ZIP_MESSAGE: &str = "Zip code must be 5 digits";
pub const RADIUS_MESSAGE: &str = "Radius must be one of 50, 100, 150, 200, 250";
/// The spec's message when a zip cannot be placed (section 8).
pub const GEOCODING_FAILED: &str = "Geocoding request failed";

const DEALER_PAGE: &str = "dealerlocator";

pub fn routes() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// The validated query of a dealer search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealerSearch {
    /// `None` lists every dealer.
    pub zip: Option<ZipCode>,
    pub radius_miles: u32,
}

impl DealerSearch {
    /// An empty value counts as absent, as the locator's empty search form sends it; other
    /// parameters are ignored, and a repeated one counts once (its first value). Every bad field
    /// is reported at once.
    pub fn from_query(query: Option<&str>) -> Result<Self, BTreeMap<String, String>> {
        let (mut zip, mut radius) = (None, None);
        for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            match name.as_ref() {
                "zip" if zip.is_none() => zip = Some(value),
                "radius" if radius.is_none() => radius = Some(value),
                _ => {}
            }
        }
        let mut errors = BTreeMap::new();
        let zip = match zip.filter(|raw| !raw.is_empty()) {
            None => None,
            Some(raw) => {
                let parsed = ZipCode::parse(&raw);
                if parsed.is_none() {
                    errors.insert("zip".to_owned(), ZIP_MESSAGE.to_owned());
                }
                parsed
            }
        };
        let radius_miles = match radius.filter(|raw| !raw.is_empty()) {
            None => Some(DEFAULT_RADIUS_MILES),
            // Compared as text, so only the offered spellings pass (`050` and `+50` do not).
            Some(raw) => RADIUS_OPTIONS_MILES
                .into_iter()
                .find(|option| raw == option.to_string()),
        };
        if radius_miles.is_none() {
            errors.insert("radius".to_owned(), RADIUS_MESSAGE.to_owned());
        }
        match radius_miles {
            Some(radius_miles) if errors.is_empty() => Ok(Self { zip, radius_miles }),
            _ => Err(errors),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for DealerSearch {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        Self::from_query(parts.uri.query()).map_err(ApiError::Validation)
    }
}

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
    #[schema(required, value_type = Option<String>)]
    pub heading: Option<Value>,
    /// The invitation to become a dealer.
    #[schema(required, value_type = Option<String>)]
    pub dealer_signup: Option<Value>,
    #[schema(required, value_type = Option<crate::openapi::schemas::content::DealerSignupLink>)]
    pub dealer_signup_link: Option<Value>,
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

/// A dealer as the content page holds it (keys already camelCased by the page fetch).
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

/// Find dealers.
///
/// Without a zip, every dealer with a place, in content order. With one, the dealers within the
/// radius of the zip's centre, nearest first, each with its distance. Also the locator page's
/// texts, so the screen needs this one request. A zip that is not a known US ZIP code is a 404
/// (`detail`: Geocoding request failed).
#[utoipa::path(
    get,
    path = "/dealers",
    operation_id = "listDealers",
    tag = "dealers",
    params(
        ("zip" = Option<String>, Query, pattern = r"^[0-9]{5}$",
            description = "A US ZIP code, five digits. Absent or empty: every dealer."),
        ("radius" = inline(Option<RadiusMiles>), Query,
            description = "The search radius in miles; used only with a zip. Absent or empty: 50."),
    ),
    responses(
        (status = 200, description = "The dealers.", body = DealerList,
            headers(
                ("Cache-Control" = String,
                    description = "As fresh as the locator page the dealers come from."),
                ("ETag" = String, description = "Of this answer; send it back as If-None-Match."),
            )),
        (status = 304, description = "Not modified: the If-None-Match ETag is current."),
        (status = 404, response = crate::openapi::problems::NotFound),
        (status = 422, response = crate::openapi::problems::Invalid),
    ),
)]
async fn list(
    State(state): State<SharedState>,
    search: DealerSearch,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // Geocoded first: an unknown zip needs no content.
    let center = match &search.zip {
        None => None,
        Some(zip) => {
            let point = Geocoder::select(state.secrets.geocoder_key.as_ref())
                .locate(zip)
                .map_err(|err| ApiError::Internal(err.to_string()))?
                .ok_or_else(|| ApiError::NotFound(GEOCODING_FAILED.to_owned()))?;
            Some(Center {
                lat: point.lat,
                lng: point.lng,
                zip: zip.as_str().to_owned(),
            })
        }
    };
    let (page, lookup) = dealer_page(state, request_id).await?;
    let dealers = placed_dealers(&page);
    let dealers = match &center {
        None => dealers,
        Some(center) => {
            let origin = LatLng {
                lat: center.lat,
                lng: center.lng,
            };
            within_radius(
                origin,
                f64::from(search.radius_miles),
                dealers,
                |card: &DealerCard| card.coordinates,
            )
            .into_iter()
            .map(|nearby| DealerCard {
                distance_miles: Some((nearby.distance_miles * 100.0).round() / 100.0),
                ..nearby.item
            })
            .collect()
        }
    };
    let field = |name: &str| page.get(name).cloned();
    let list = DealerList {
        center,
        radius_miles: search.radius_miles,
        dealers,
        heading: field("heading"),
        dealer_signup: field("dealerSignup"),
        dealer_signup_link: field("dealerSignupLink"),
    };
    let body = serde_json::to_vec(&list)
        .map_err(|err| ApiError::Internal(format!("dealer list: {err}")))?;
    // The cache headers of the page it is made from (freshness, Cache-Status, Surrogate-Key, so
    // a purge of the page reaches CDNs too) and an ETag of this very answer.
    Ok(answer::respond(&[&lookup], Bytes::from(body), &headers))
}

/// The `dealerlocator` page, parsed, and its edge-cache entry (the same one the pages route
/// uses).
async fn dealer_page(
    state: SharedState,
    request_id: RequestId,
) -> Result<(Value, Lookup), ApiError> {
    let lookup = crate::content::Content::from_ref(&state)
        .page_lookup(DEALER_PAGE, request_id)
        .await?;
    let unreadable = |reason: String| {
        ApiError::Upstream(UpstreamError::Decode {
            upstream: "content",
            reason,
        })
    };
    if lookup.entry.status != StatusCode::OK {
        return Err(unreadable(format!(
            "the {DEALER_PAGE} page answered {}",
            lookup.entry.status
        )));
    }
    let page = serde_json::from_slice(&lookup.entry.body)
        .map_err(|err| unreadable(format!("the {DEALER_PAGE} page: {err}")))?;
    Ok((page, lookup))
}

/// The page's dealers that have a place, in content order. A malformed record is skipped with a
/// warning (one bad record must not hide the others); one at exactly (0, 0) is skipped quietly,
/// as the spec asks.
fn placed_dealers(page: &Value) -> Vec<DealerCard> {
    let records = page
        .get("dealers")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    records
        .iter()
        .enumerate()
        .filter_map(|(index, record)| {
            let dealer = match ContentDealer::deserialize(record) {
                Ok(dealer) => dealer,
                Err(err) => {
                    tracing::warn!(index, error = %err, "skipping a malformed dealer record");
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
    }

    #[test]
    fn placed_dealers_skip_null_island_and_malformed_records() {
        let page = json!({"dealers": [
            {"id": 1, "name": "A", "phone": "(602) 555-0100", "address1": "1 Main", "address2": "Phoenix, AZ 85004",
             "coordinates": {"latitude": 33.4484, "longitude": -112.074}},
            {"id": 2, "name": "Nowhere", "coordinates": {"latitude": 0, "longitude": 0}},
            {"id": 3, "name": "No coordinates"},
            {"id": 4, "name": "Off the globe", "coordinates": {"latitude": 123.0, "longitude": 0}},
            {"id": 5, "name": "Sparse", "phone": null, "coordinates": {"latitude": 0, "longitude": 1.5}},
        ]});
        let cards = placed_dealers(&page);
        let names: Vec<&str> = cards.iter().map(|card| card.id.as_str()).collect();
        assert_eq!(names, ["A", "Sparse"]);
        assert_eq!(cards[1].phone_number, "");
        assert!(placed_dealers(&json!({})).is_empty());
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
