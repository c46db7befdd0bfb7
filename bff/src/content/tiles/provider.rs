//! The map tile provider as the BFF calls it: its URL template filled in for one tile, and its
//! key injected server-side (in the URL where the template says `{key}`, or in a header).

use axum::http::header::ACCEPT;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use url::Url;

use super::coords::TileCoords;
use crate::cache::Fetched;
use crate::http::request_id::RequestId;
use crate::upstream::{Upstream, UpstreamError};

const UPSTREAM: &str = "tiles";

#[derive(Debug, Clone)]
pub struct TileProvider {
    upstream: Upstream,
    /// The URL template, `${sandbox}` resolved.
    template: String,
    key: Option<SecretString>,
    key_header: Option<HeaderName>,
}

impl TileProvider {
    pub fn new(
        upstream: Upstream,
        template: String,
        key: Option<SecretString>,
        key_header: Option<HeaderName>,
    ) -> Self {
        Self {
            upstream,
            template,
            key,
            key_header,
        }
    }

    /// The provider as an upstream (its breaker's state, for `/admin/upstreams`).
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The provider's URL for `tile`. The key is percent-encoded, so no key can change the URL's
    /// shape; a template that needs a key when none is configured gets an empty one (and the
    /// provider's refusal says so).
    pub fn url_for(&self, tile: TileCoords) -> Result<Url, UpstreamError> {
        let key = self.key.as_ref().map_or("", |key| key.expose_secret());
        let filled = self
            .template
            .replace("{z}", &tile.z.to_string())
            .replace("{x}", &tile.x.to_string())
            .replace("{y}", &tile.y.to_string())
            .replace(
                "{key}",
                &url::form_urlencoded::byte_serialize(key.as_bytes()).collect::<String>(),
            );
        Url::parse(&filled).map_err(|err| UpstreamError::Decode {
            upstream: UPSTREAM,
            reason: format!("tile URL template: {err}"),
        })
    }

    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("image/*"));
        if let (Some(name), Some(key)) = (&self.key_header, &self.key)
            && let Ok(mut value) = HeaderValue::from_str(key.expose_secret())
        {
            value.set_sensitive(true);
            headers.insert(name.clone(), value);
        }
        headers
    }

    /// Fetches `tile` for the cache. Only an image is a tile: a provider answering 200 with an
    /// HTML error page must not have it cached and drawn as the map.
    pub async fn fetch(
        &self,
        tile: TileCoords,
        request_id: RequestId,
    ) -> Result<Fetched, UpstreamError> {
        let label = format!("tiles/{tile}");
        let response = self
            .upstream
            .get_url(
                self.url_for(tile)?,
                "tiles/{z}/{x}/{y}",
                self.headers(),
                &request_id,
            )
            .await?;
        let content_type = response
            .content_type
            .filter(|value| value.to_str().is_ok_and(|text| text.starts_with("image/")))
            .ok_or_else(|| UpstreamError::Decode {
                upstream: UPSTREAM,
                reason: format!("{label}: the answer is not an image"),
            })?;
        Ok(Fetched {
            status: StatusCode::OK,
            body: response.body,
            content_type,
            extra_tags: Vec::new(),
            no_store: response.no_store,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::MapsConfig;
    use crate::observe::metrics::Metrics;

    fn provider(template: &str, key: Option<&str>, header: Option<&str>) -> TileProvider {
        let upstream = Upstream::new(
            UPSTREAM,
            &MapsConfig::default().upstream(),
            Url::parse("http://127.0.0.1:9/").unwrap(),
            None,
            Arc::new(Metrics::new()),
        )
        .unwrap();
        TileProvider::new(
            upstream,
            template.to_owned(),
            key.map(|key| SecretString::from(key.to_owned())),
            header.map(|name| HeaderName::from_bytes(name.as_bytes()).unwrap()),
        )
    }

    #[test]
    fn the_template_is_filled_and_the_key_encoded() {
        let tiles = provider(
            "https://tiles.example/v1/{z}/{x}/{y}.png?api_key={key}",
            Some("k&y=1 /#"),
            None,
        );
        let url = tiles.url_for(TileCoords { z: 3, x: 5, y: 7 }).unwrap();
        assert_eq!(
            url.as_str(),
            "https://tiles.example/v1/3/5/7.png?api_key=k%26y%3D1+%2F%23"
        );
        assert_eq!(
            url.query_pairs().collect::<Vec<_>>(),
            vec![("api_key".into(), "k&y=1 /#".into())]
        );
    }

    #[test]
    fn a_key_header_carries_the_key_marked_sensitive() {
        let tiles = provider(
            "https://t.example/{z}/{x}/{y}",
            Some("secret"),
            Some("x-api-key"),
        );
        let headers = tiles.headers();
        let value = headers.get("x-api-key").unwrap();
        assert_eq!(value, "secret");
        assert!(value.is_sensitive());
        assert_eq!(headers.get(ACCEPT).unwrap(), "image/*");
        // without a configured key, no header at all
        let keyless = provider("https://t.example/{z}/{x}/{y}", None, Some("x-api-key"));
        assert!(keyless.headers().get("x-api-key").is_none());
    }

    #[test]
    fn the_key_is_never_in_debug_output() {
        let tiles = provider(
            "https://t.example/{z}/{x}/{y}?k={key}",
            Some("hunter2"),
            None,
        );
        assert!(!format!("{tiles:?}").contains("hunter2"));
    }
}
