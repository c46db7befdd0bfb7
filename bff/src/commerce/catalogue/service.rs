//! The catalogue's answers through the edge cache: the content part (product, group, search
//! results) and the price map part, each fetched on a miss from its upstream path, read into its
//! contract type, and composed per request.

use axum::http::StatusCode;
use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Catalogue;
use super::answer::Answer;
use super::compose;
use super::content::{CardContent, CollectionContent, ProductContent};
use super::pricing::{PriceMap, SkuPricing};
use super::query::SearchQuery;
use crate::cache::{self, FetchFailure, Fetched, Lookup, RouteKind};
use crate::content::pages::{decode, encoded_entry};
use crate::content::{Data, read};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::upstream::{Upstream, UpstreamError, UpstreamPath, UpstreamResponse};

/// The price map is one cache entry (tag `prices`) under this key.
/// The price map's one cache key (`prices:all`).
pub const PRICE_MAP_KEY: &str = "all";

impl Catalogue {
    /// A product page, priced: every sku's live figures, the first sku displayed, related
    /// products priced as cards. An unknown title is its cached 404.
    pub async fn product(&self, title: &str, request_id: RequestId) -> Result<Answer, ApiError> {
        self.priced(
            RouteKind::Product,
            title,
            request_id,
            fetch_product,
            compose::product_page,
        )
        .await
    }

    /// A collection, its products priced as cards. An unknown title is its cached 404.
    pub async fn collection(&self, title: &str, request_id: RequestId) -> Result<Answer, ApiError> {
        self.priced(
            RouteKind::Collection,
            title,
            request_id,
            fetch_collection,
            compose::collection,
        )
        .await
    }

    /// A collection's content alone (no prices), through the cache: what the sitemap lists.
    /// An unknown title is its cached 404.
    pub async fn collection_content(
        &self,
        title: &str,
        request_id: RequestId,
    ) -> Result<Lookup, ApiError> {
        let title = cache::normalise(title);
        let content = self.content.upstream.clone();
        let key = title.clone();
        Ok(self
            .content
            .cache
            .lookup(RouteKind::Collection, &key, move || {
                fetch_collection(content, title, request_id)
            })
            .await?)
    }

    /// A product's content alone (no prices), through the cache: what a cart line is checked
    /// against. `None` for an unknown title (its 404 is cached like the product page's).
    pub async fn product_content(
        &self,
        title: &str,
        request_id: RequestId,
    ) -> Result<Option<ProductContent>, ApiError> {
        let title = cache::normalise(title);
        let content = self.content.upstream.clone();
        let key = title.clone();
        let page = self
            .content
            .cache
            .lookup(RouteKind::Product, &key, move || {
                fetch_product(content, title, request_id)
            })
            .await?;
        if page.entry.status != StatusCode::OK {
            return Ok(None);
        }
        cached(&page).map(Some)
    }

    /// What `sku` costs now, from the live price map (through the cache); `None` when the map
    /// cannot be had or does not know the sku: then nothing here can price it.
    pub async fn live_pricing(&self, sku: &str, request_id: RequestId) -> Option<SkuPricing> {
        match self.price_map(request_id).await {
            Ok((_, map)) => map.get(sku).map(|live| SkuPricing::of(None, Some(live))),
            Err(err) => {
                tracing::warn!(error = %err, "price map unavailable for a cart line");
                None
            }
        }
    }

    /// The products matching `query`, priced, by title. A search that cannot run (the search or
    /// the price map failing, with no stale copy to answer) is a 503 `search_unavailable`: an
    /// error the page shows as such and monitoring counts, not a "no products match".
    pub async fn search(
        &self,
        query: &SearchQuery,
        request_id: RequestId,
    ) -> Result<Answer, ApiError> {
        let SearchQuery(q) = query;
        let content = self.content.upstream.clone();
        let fetch_id = request_id.clone();
        let fetch_query = q.clone();
        let found = self
            .content
            .cache
            .lookup(RouteKind::Search, q, move || {
                fetch_search(content, fetch_query, fetch_id)
            })
            .await;
        let results = found.map_err(search_unavailable)?;
        let (prices, map) = self
            .price_map(request_id)
            .await
            .map_err(search_unavailable)?;
        let body = encode(&compose::search_results(q, cached(&results)?, &map))?;
        // Not remembered: searches are many and rarely repeated, and the hit path never
        // answers them.
        Ok(Answer::Composed {
            parts: vec![results, prices],
            body,
            epochs: None,
        })
    }

    /// A page of content found by title (`fetch`, through the cache) and priced (`compose`).
    /// The two parts are looked up concurrently: with both upstreams slow, the answer costs one
    /// wait (at most `cache.stale_wait` when both have a stale copy), not two in series. An
    /// unknown title answers the content entry's cached 404, whatever the price map did.
    async fn priced<C, A, F, Fut>(
        &self,
        kind: RouteKind,
        title: &str,
        request_id: RequestId,
        fetch: F,
        compose: fn(C, &PriceMap) -> A,
    ) -> Result<Answer, ApiError>
    where
        C: DeserializeOwned,
        A: Serialize,
        F: FnOnce(Upstream, String, RequestId) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Fetched, UpstreamError>> + Send + 'static,
    {
        let epochs = self.content.cache.epochs();
        let title = cache::normalise(title);
        let content = self.content.upstream.clone();
        let fetch_id = request_id.clone();
        let key = title.clone();
        let (page, prices) = tokio::join!(
            self.content
                .cache
                .lookup(kind, &key, move || fetch(content, title, fetch_id)),
            self.price_map(request_id),
        );
        let page = page?;
        if page.entry.status != StatusCode::OK {
            return Ok(Answer::Cached(page));
        }
        let (prices, map) = prices?;
        let body = encode(&compose(cached(&page)?, &map))?;
        Ok(Answer::Composed {
            parts: vec![page, prices],
            body,
            epochs: Some(epochs),
        })
    }

    /// The price map through the cache, and read.
    async fn price_map(&self, request_id: RequestId) -> Result<(Lookup, PriceMap), FetchFailure> {
        let commerce = self.commerce.clone();
        let lookup = self
            .content
            .cache
            .lookup(RouteKind::Prices, PRICE_MAP_KEY, move || {
                fetch_prices(commerce, request_id)
            })
            .await?;
        // Stored by `fetch_prices` in this very shape, so this cannot fail short of a bug.
        let map = serde_json::from_slice(&lookup.entry.body).map_err(|err| {
            FetchFailure::Upstream(UpstreamError::Decode {
                upstream: "commerce",
                reason: format!("cached price map: {err}"),
            })
        })?;
        Ok((lookup, map))
    }
}

/// The answer to a search that could not run, whatever failed (the search itself, the price
/// map, the answer breaking the contract): one 503 the page can name, with `Retry-After`.
fn search_unavailable(failure: FetchFailure) -> ApiError {
    tracing::warn!(error = %failure, "search failed");
    ApiError::Refused {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: "search_unavailable",
        detail: "Search is unavailable; please try again in a moment.".to_owned(),
        errors: None,
        members: serde_json::Map::new(),
    }
}

/// A content entry as its fetch stored it (so this cannot fail short of a bug).
fn cached<T: DeserializeOwned>(lookup: &Lookup) -> Result<T, ApiError> {
    serde_json::from_slice(&lookup.entry.body).map_err(|err| {
        ApiError::Internal(format!(
            "cached {} entry: {err}",
            lookup.entry.route.as_str()
        ))
    })
}

fn encode(answer: &impl Serialize) -> Result<Bytes, ApiError> {
    serde_json::to_vec(answer)
        .map(Bytes::from)
        .map_err(|err| ApiError::Internal(format!("catalogue answer: {err}")))
}

/// `GET Products` on the commerce upstream: the live price map, stored in its checked form.
async fn fetch_prices(commerce: Upstream, request_id: RequestId) -> Result<Fetched, UpstreamError> {
    let path = UpstreamPath::fixed("Products");
    let response = match commerce.get(&path, &request_id).await {
        Ok(response) => response,
        // Not an unknown product: a missing price map is an outage, worth stale-if-error.
        Err(UpstreamError::NotFound { .. }) => {
            return Err(UpstreamError::Decode {
                upstream: "commerce",
                reason: "no price map at Products".to_owned(),
            });
        }
        Err(err) => return Err(err),
    };
    Ok(Fetched {
        no_store: response.no_store,
        ..encoded_entry("commerce", &PriceMap::from_upstream(&response.body)?)?
    })
}

/// `GET {collection}/{segment}` on the content upstream, the answer when there is one: `None`
/// when the segment cannot be a path segment (`.`, `..`) or the upstream knows no such entry.
async fn get_entry(
    content: &Upstream,
    collection: &'static str,
    segment: &str,
    request_id: &RequestId,
) -> Result<Option<UpstreamResponse>, UpstreamError> {
    let Ok(path) = UpstreamPath::fixed(collection).segment(segment) else {
        return Ok(None);
    };
    match content.get(&path, request_id).await {
        Ok(response) => Ok(Some(response)),
        Err(UpstreamError::NotFound { .. }) => Ok(None),
        Err(err) => Err(err),
    }
}

/// `GET products/{title}` on the content upstream: an array whose first element is the product.
async fn fetch_product(
    content: Upstream,
    title: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    // The title is not echoed: the answer is remembered, and a made-up title is anyone's text.
    let missing = || Fetched::not_found("There is no product with this title.".to_owned());
    let Some(response) = get_entry(&content, "products", &title, &request_id).await? else {
        return Ok(missing());
    };
    let products: Vec<Value> = read(decode("content", &response.body)?)?;
    match products.into_iter().next() {
        Some(product) => Ok(Fetched {
            no_store: response.no_store,
            ..encoded_entry("content", &read::<ProductContent>(product)?)?
        }),
        None => Ok(missing()),
    }
}

/// `GET product-groups/{title}` on the content upstream: `{data: group}`. The entry is also
/// tagged with each of its products, so purging a product drops the collections listing it.
async fn fetch_collection(
    content: Upstream,
    title: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let missing = || Fetched::not_found("There is no collection with this title.".to_owned());
    let Some(response) = get_entry(&content, "product-groups", &title, &request_id).await? else {
        return Ok(missing());
    };
    let Data { data: group } = read::<Data<CollectionContent>>(decode("content", &response.body)?)?;
    let product_tags = group
        .products
        .iter()
        .map(|card| RouteKind::Product.tag(&cache::normalise(&card.title)))
        .collect();
    Ok(Fetched {
        extra_tags: product_tags,
        no_store: response.no_store,
        ..encoded_entry("content", &group)?
    })
}

/// `GET products/search/{query}` on the content upstream: an array of product cards.
async fn fetch_search(
    content: Upstream,
    query: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let Some(response) = get_entry(&content, "products/search", &query, &request_id).await? else {
        // Nothing matches (`..` matches no title worth finding either).
        return encoded_entry("content", &Vec::<CardContent>::new());
    };
    Ok(Fetched {
        no_store: response.no_store,
        ..encoded_entry(
            "content",
            &read::<Vec<CardContent>>(decode("content", &response.body)?)?,
        )?
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use axum::Router;
    use axum::extract::Path;
    use axum::routing::get;
    use serde_json::json;
    use url::Url;

    use super::*;
    use crate::cache::{CacheConfig, CacheState, EdgeCache};
    use crate::config::UpstreamsConfig;
    use crate::content::Content;
    use crate::observe::metrics::Metrics;

    fn sku(code: &str, price: f64) -> Value {
        json!({
            "id": 1, "sku": code, "price": price, "restrictedStates": [], "warehouse_bin": "A-7",
            "variants": [{"id": 1, "fieldName": "black", "label": "Black", "swatch": "#000",
                "product_variant_type": {"title": "color", "display_title": "Color"}}],
        })
    }

    /// A content and commerce service in one: what the catalogue reads, some of it broken.
    fn upstreams() -> Router {
        let product = |Path(title): Path<String>| async move {
            axum::Json(match title.as_str() {
                "untitled" => json!([{"skus": [sku("S-1", 10.0)]}]),
                "mistyped" => json!([{"title": "M", "skus": [{"sku": "S-1", "price": "ten"}]}]),
                "nothing" => json!([]),
                _ => json!([{
                    "title": "Summit", "display_type": "product-long", "brand_new": {"a_b": 1},
                    "skus": [sku("S-1", 10.0), sku("S-2", 12.0)],
                    "relatedProducts": [{"title": "Falcon", "ffl_item": true, "skus": [sku("F-1", 5.0)]}],
                }]),
            })
        };
        let search = |Path(query): Path<String>| async move {
            axum::Json(match query.as_str() {
                "broken" => json!([{"title": 7, "skus": []}]),
                _ => {
                    json!([{"title": "zeta", "skus": [sku("F-1", 5.0)]}, {"title": "Alpha", "skus": []}])
                }
            })
        };
        let group = |Path(_): Path<String>| async move {
            axum::Json(json!({"data": {
                "title": "Rifles", "filter_categories": [],
                "products": [{"title": "Summit LR", "skus": [sku("S-1", 10.0)]}],
            }}))
        };
        let prices = || async {
            axum::Json(json!({"products": {
                "S-1": {"price": 10, "bestDiscountPercentage": 10, "bestDiscountedPrice": 9, "inStock": true, "site": "unknown field"},
                "S-2": {"price": 12, "inStock": true},
                "F-1": {"price": 5, "inStock": false},
            }}))
        };
        Router::new()
            .route("/strapi/products/search/{query}", get(search))
            .route("/strapi/products/{title}", get(product))
            .route("/strapi/product-groups/{title}", get(group))
            .route("/Products", get(prices))
    }

    async fn catalogue() -> Catalogue {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, upstreams()).await });
        let metrics = Arc::new(Metrics::new());
        let config = UpstreamsConfig::default();
        let upstream = |name, config, path: &str| {
            Upstream::new(
                name,
                config,
                Url::parse(&format!("{origin}{path}")).unwrap(),
                None,
                metrics.clone(),
            )
            .unwrap()
        };
        Catalogue {
            content: Content {
                upstream: upstream("content", &config.content, "/strapi/"),
                cache: EdgeCache::new(CacheConfig::default(), metrics.clone()),
                metrics: metrics.clone(),
            },
            commerce: upstream("commerce", &config.commerce, "/"),
        }
    }

    fn composed(answer: &Answer) -> (Value, Vec<CacheState>) {
        match answer {
            Answer::Composed { parts, body, .. } => (
                serde_json::from_slice(body).unwrap(),
                parts.iter().map(|part| part.state).collect(),
            ),
            other => panic!("not a composed answer: {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_product_breaking_the_contract_is_an_upstream_contract_502() {
        let catalogue = catalogue().await;
        for (title, at) in [("untitled", "."), ("mistyped", "skus[0].price")] {
            let err = catalogue
                .product(title, RequestId::generate())
                .await
                .unwrap_err();
            let ApiError::Upstream(UpstreamError::Contract {
                upstream, field, ..
            }) = &err
            else {
                panic!("not a contract error: {err:?}");
            };
            assert_eq!((*upstream, field.as_str()), ("content", at));
            let problem = err.problem();
            assert_eq!((problem.status, problem.code), (502, "upstream_contract"));
        }
    }

    #[tokio::test]
    async fn a_product_is_priced_and_its_unknown_fields_are_tolerated() {
        let catalogue = catalogue().await;
        let answer = catalogue
            .product(" SUMMIT ", RequestId::generate())
            .await
            .unwrap();
        let (page, states) = composed(&answer);
        assert_eq!(states, [CacheState::Miss, CacheState::Miss]);
        assert_eq!(page["title"], "Summit");
        assert_eq!(page["displayType"], "product-long");
        assert_eq!(page["brandNew"], json!({"aB": 1}));
        assert_eq!(page["noVariants"], false);
        assert_eq!(page["displayedSku"], "S-1");
        let first = &page["skus"][0];
        assert_eq!(
            (
                &first["price"],
                &first["finalPrice"],
                &first["discountPercentage"]
            ),
            (&json!(10), &json!(9), &json!(10))
        );
        assert_eq!(first["inStock"], true);
        assert_eq!(first["warehouseBin"], "A-7", "relayed, camelCased");
        assert_eq!(
            first["variants"][0],
            json!({"id": 1, "fieldName": "black", "label": "Black",
                "productVariantType": {"title": "color", "displayTitle": "Color"}}),
            "typed: an unknown variant field is not relayed"
        );
        let related = &page["relatedProducts"][0];
        assert_eq!(
            (&related["fflItem"], &related["displayedSku"]),
            (&json!(true), &json!("F-1"))
        );
        assert_eq!(related["skus"][0]["inStock"], false);

        let again = catalogue
            .product("summit", RequestId::generate())
            .await
            .unwrap();
        let (same, states) = composed(&again);
        assert_eq!(states, [CacheState::Hit, CacheState::Hit]);
        assert_eq!(same, page, "composed the same from the cached parts");
    }

    #[tokio::test]
    async fn an_unknown_product_is_its_cached_404() {
        let catalogue = catalogue().await;
        let answer = catalogue
            .product("nothing", RequestId::generate())
            .await
            .unwrap();
        let Answer::Cached(lookup) = answer else {
            panic!("not the cached entry: {answer:?}");
        };
        assert_eq!(lookup.entry.status, StatusCode::NOT_FOUND);
        let problem: Value = serde_json::from_slice(&lookup.entry.body).unwrap();
        // Remembered, so it does not echo the title (issue 30).
        assert_eq!(problem["detail"], "There is no product with this title.");
    }

    #[tokio::test]
    async fn a_collection_is_tagged_with_its_products() {
        let catalogue = catalogue().await;
        let answer = catalogue
            .collection("Rifles", RequestId::generate())
            .await
            .unwrap();
        let Answer::Composed { parts, body, .. } = &answer else {
            panic!("not a composed answer: {answer:?}");
        };
        assert!(
            parts[0]
                .entry
                .tags
                .contains(&"product:summit lr".to_owned())
        );
        let group: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(group["title"], "Rifles");
        assert_eq!(group["filterCategories"], json!([]));
        assert_eq!(group["products"][0]["displayedSku"], "S-1");
    }

    #[tokio::test]
    async fn search_results_are_sorted_and_a_broken_search_is_a_503() {
        let catalogue = catalogue().await;
        let query = SearchQuery("any".to_owned());
        let (found, _) = composed(
            &catalogue
                .search(&query, RequestId::generate())
                .await
                .unwrap(),
        );
        assert_eq!(found["query"], "any");
        assert_eq!(found["results"][0]["title"], "Alpha");
        assert_eq!(found["results"][0]["displayedSku"], Value::Null);
        assert_eq!(found["results"][1]["skus"][0]["finalPrice"], json!(5));

        let broken = SearchQuery("broken".to_owned());
        let problem = catalogue
            .search(&broken, RequestId::generate())
            .await
            .unwrap_err()
            .problem();
        assert_eq!((problem.status, problem.code), (503, "search_unavailable"));
        assert_eq!(
            problem.detail,
            "Search is unavailable; please try again in a moment."
        );
    }
}
