//! The dealer locator against the sandbox, in process: `GET /api/dealers?zip=&radius=`.

#![allow(clippy::unwrap_used)]

use crate::common;

use bff::content::geo::{LatLng, miles_between};
use common::SandboxHooks;
use common::in_process::{InProcess, start, start_with_secrets};
use serde_json::{Value, json};

const DEALER_PAGE_ROUTE: &str = "/strapi/page/{name}";
/// The sandbox's 40 dealers, less the two at (0, 0).
const PLACED_DEALERS: usize = 38;
/// Downtown Austin, where 'Hill Country Arms' is.
const AUSTIN: &str = "78701";

async fn dealers(app: &InProcess, query: &str) -> Value {
    let response = app.get(&format!("/api/dealers{query}")).await;
    assert_eq!(response.status, 200, "{query}");
    response.json()
}

fn names(list: &Value) -> Vec<&str> {
    list["dealers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|dealer| dealer["name"].as_str().unwrap())
        .collect()
}

fn position(dealer: &Value) -> LatLng {
    LatLng {
        lat: dealer["coordinates"]["lat"].as_f64().unwrap(),
        lng: dealer["coordinates"]["lng"].as_f64().unwrap(),
    }
}

/// Asserts a 422 problem whose `errors` are exactly `expected`.
async fn assert_invalid(app: &InProcess, query: &str, expected: &[(&str, &str)]) {
    let response = app.get(&format!("/api/dealers{query}")).await;
    assert_eq!(response.status, 422, "{query}");
    assert_eq!(response.header("content-type"), "application/problem+json");
    let problem: Value = response.json();
    assert_eq!(problem["code"], "validation_failed");
    let errors = problem["errors"].as_object().unwrap();
    assert_eq!(errors.len(), expected.len(), "{query}: {errors:?}");
    for (field, message) in expected {
        assert_eq!(errors[*field], *message, "{query}");
    }
}

#[tokio::test]
async fn without_a_zip_every_placed_dealer_is_listed_and_none_at_zero_zero() {
    let app = start();
    let list = dealers(&app, "").await;
    assert_eq!(list["center"], Value::Null);
    assert_eq!(list["radiusMiles"], 50);
    let cards = list["dealers"].as_array().unwrap();
    assert_eq!(cards.len(), PLACED_DEALERS);
    for card in cards {
        let at = position(card);
        assert!(at.lat != 0.0 || at.lng != 0.0, "{card}");
        assert!(card.get("distanceMiles").is_none(), "{card}");
        assert_eq!(card["id"], card["name"], "the card's id is the dealer name");
    }
    let names = names(&list);
    assert!(!names.contains(&"Talonforge Mobile Range Team"));
    assert!(!names.contains(&"Pending Listing Dealer"));
    // Content order, content fields camelCased into the card.
    assert_eq!(names[0], "Saguaro Sporting Arms");
    assert_eq!(cards[0]["phoneNumber"], "(602) 555-0100");
    assert_eq!(cards[0]["address1"], "100 Main Street");
    assert_eq!(cards[0]["address2"], "Phoenix, AZ 85004");
    assert_eq!(cards[0]["coordinates"]["lat"], 33.4484);
    assert_eq!(cards[0]["coordinates"]["lng"], -112.074);
    // The page's own texts come along, so the screen needs no second request.
    assert_eq!(list["heading"], "Dealer Locator");
    assert!(list["dealerSignup"].as_str().unwrap().contains("dealer"));
    assert_eq!(list["dealerSignupLink"]["url"], "/dealer-registration");
    assert_eq!(
        list["metaData"],
        json!({"title": "Dealer Locator | Talonforge Arms",
               "description": "Find a Talonforge Arms dealer near you."}),
        "the page's metaData, for its title, description and social tags"
    );
    // An empty search form is the same as none.
    assert_eq!(
        dealers(&app, "?zip=&radius=").await["dealers"],
        list["dealers"]
    );
}

#[tokio::test]
async fn a_zip_and_radius_keep_only_the_dealers_within_it_nearest_first() {
    let app = start();
    let everyone = dealers(&app, "").await;
    let list = dealers(&app, &format!("?zip={AUSTIN}&radius=200")).await;
    assert_eq!(list["radiusMiles"], 200);
    let center = &list["center"];
    assert_eq!(center["zip"], AUSTIN);
    let origin = LatLng {
        lat: center["lat"].as_f64().unwrap(),
        lng: center["lng"].as_f64().unwrap(),
    };
    assert!((origin.lat - 30.27).abs() < 0.01 && (origin.lng + 97.74).abs() < 0.01);
    assert_eq!(
        names(&list),
        [
            "Hill Country Arms",      // Austin
            "Alamo Range Outfitters", // San Antonio, ~74 mi
            "Bayou City Firearms",    // Houston, ~146 mi
            "Trinity Gun Exchange",   // Dallas, ~182 mi
        ]
    );
    let distances: Vec<f64> = list["dealers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|card| card["distanceMiles"].as_f64().unwrap())
        .collect();
    assert!(distances.windows(2).all(|pair| pair[0] <= pair[1]));
    assert!(distances.iter().all(|miles| *miles <= 200.0));
    assert!((distances[3] - 182.0).abs() < 3.0, "{distances:?}");
    // Exactly the dealers whose haversine distance is within the radius: none left out.
    let expected = everyone["dealers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|card| miles_between(origin, position(card)) <= 200.0)
        .count();
    assert_eq!(distances.len(), expected);
}

#[tokio::test]
async fn the_radius_defaults_to_50_miles() {
    let app = start();
    let list = dealers(&app, &format!("?zip={AUSTIN}")).await;
    assert_eq!(list["radiusMiles"], 50);
    assert_eq!(names(&list), ["Hill Country Arms"]);
    assert!(list["dealers"][0]["distanceMiles"].as_f64().unwrap() < 1.0);
}

#[tokio::test]
async fn a_zip_with_no_dealer_within_the_radius_is_an_empty_list() {
    let app = start();
    // Key West: the nearest dealer (Tampa) is about 240 miles away.
    let list = dealers(&app, "?zip=33040&radius=100").await;
    assert_eq!(list["center"]["zip"], "33040");
    assert_eq!(list["dealers"], Value::Array(vec![]));
}

#[tokio::test]
async fn a_zip_that_is_not_five_digits_is_a_422() {
    let app = start();
    for zip in ["7870", "abcde", "787011", "7870a"] {
        assert_invalid(
            &app,
            &format!("?zip={zip}"),
            &[("zip", "Zip code must be 5 digits")],
        )
        .await;
    }
}

#[tokio::test]
async fn a_radius_outside_the_options_is_a_422() {
    let app = start();
    let message = "Radius must be one of 50, 100, 150, 200, 250";
    for query in ["?radius=75", "?zip=78701&radius=75", "?radius=fifty"] {
        assert_invalid(&app, query, &[("radius", message)]).await;
    }
    assert_invalid(
        &app,
        "?zip=123&radius=75",
        &[("zip", "Zip code must be 5 digits"), ("radius", message)],
    )
    .await;
}

#[tokio::test]
async fn an_unknown_zip_is_a_404_geocoding_request_failed() {
    let app = start();
    // 00000 is no ZIP; 99999 is well-formed but no Census ZCTA.
    for zip in ["00000", "99999"] {
        let response = app.get(&format!("/api/dealers?zip={zip}")).await;
        assert_eq!(response.status, 404, "{zip}");
        assert_eq!(response.header("content-type"), "application/problem+json");
        let problem: Value = response.json();
        assert_eq!(problem["detail"], "Geocoding request failed");
        assert_eq!(problem["code"], "not_found");
    }
    assert_eq!(
        app.upstream_calls(DEALER_PAGE_ROUTE).await,
        0,
        "a zip that cannot be placed needs no content"
    );
}

#[tokio::test]
async fn the_dealer_page_comes_through_the_edge_cache() {
    let app = start();
    let first = app.get("/api/dealers").await;
    assert!(
        first
            .header("cache-control")
            .starts_with("public, max-age="),
        "{}",
        first.header("cache-control")
    );
    dealers(&app, &format!("?zip={AUSTIN}&radius=250")).await;
    let page = app.get("/api/pages/dealerlocator").await;
    assert!(
        page.header("cache-status").contains("; hit"),
        "{}",
        page.header("cache-status")
    );
    assert_eq!(app.upstream_calls(DEALER_PAGE_ROUTE).await, 1);
}

#[tokio::test]
async fn an_answer_has_an_etag_per_search_and_revalidates_to_a_304() {
    let app = start();
    let all = app.get("/api/dealers").await;
    let austin = app.get(&format!("/api/dealers?zip={AUSTIN}")).await;
    let etag = all.header("etag").to_owned();
    assert!(etag.starts_with('"'), "{etag}");
    assert_ne!(
        etag,
        austin.header("etag"),
        "another search, another answer"
    );
    // A purge of the locator page reaches CDNs holding the dealer list too.
    assert!(
        all.header("surrogate-key").contains("page:dealerlocator"),
        "{}",
        all.header("surrogate-key")
    );
    // As the document says: the answer tells what the cache did for the page it is made from.
    assert!(
        all.header("cache-status").starts_with("bff; "),
        "{}",
        all.header("cache-status")
    );
    let again = app.get_if_none_match("/api/dealers", &etag).await;
    assert_eq!(again.status, 304);
    assert_eq!(again.header("etag"), etag);
    assert!(again.body.is_empty());
}

#[tokio::test]
async fn a_content_outage_is_a_502_problem() {
    let app = start();
    app.inject_fault(serde_json::json!({"route": DEALER_PAGE_ROUTE, "errorStatus": 500}))
        .await;
    let response = app.get("/api/dealers").await;
    assert_eq!(response.status, 502);
    assert_eq!(response.header("content-type"), "application/problem+json");
}

#[tokio::test]
async fn an_external_geocoder_key_still_geocodes_from_the_embedded_table() {
    let app = start_with_secrets(
        common::test_config(),
        &[("BFF_GEOCODER_KEY", "external-geocoder-key")],
    );
    let list = dealers(&app, &format!("?zip={AUSTIN}")).await;
    assert_eq!(list["center"]["zip"], AUSTIN);
    assert_eq!(names(&list), ["Hill Country Arms"]);
}
