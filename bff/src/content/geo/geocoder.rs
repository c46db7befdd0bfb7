//! Where a ZIP code's centre comes from. Only the embedded table today; an external geocoder
//! (its key is `BFF_GEOCODER_KEY`, kept in the BFF) becomes another variant.

use std::sync::Once;

use secrecy::SecretString;

use super::{LatLng, ZipCentroids, ZipCode, zip_centroids::ZipTableError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Geocoder {
    /// The embedded Census ZCTA table: offline, no key, no network.
    Embedded,
}

#[derive(Debug, thiserror::Error)]
pub enum GeocodeError {
    #[error("the embedded ZIP centroid table is unavailable: {0}")]
    TableUnavailable(&'static ZipTableError),
}

impl Geocoder {
    /// The geocoder to use. A key for an external geocoder may be set, but none is built in
    /// yet: the embedded table answers, and the first call says so in the log.
    pub fn select(external_key: Option<&SecretString>) -> Self {
        static REPORTED: Once = Once::new();
        if external_key.is_some() {
            REPORTED.call_once(|| {
                tracing::warn!(
                    "BFF_GEOCODER_KEY is set but external geocoding is not configured; \
                     zip codes are geocoded from the embedded Census table"
                );
            });
        }
        Self::Embedded
    }

    /// The zip's centre; `Ok(None)` when the geocoder does not know the zip.
    pub fn locate(self, zip: &ZipCode) -> Result<Option<LatLng>, GeocodeError> {
        match self {
            Self::Embedded => ZipCentroids::embedded()
                .map(|table| table.centroid(zip))
                .map_err(GeocodeError::TableUnavailable),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_answers_with_or_without_a_key() {
        let zip = ZipCode::parse("75201").unwrap_or_else(|| panic!("a zip"));
        let key = SecretString::from("external-key");
        for geocoder in [Geocoder::select(None), Geocoder::select(Some(&key))] {
            assert_eq!(geocoder, Geocoder::Embedded);
            let dallas = geocoder.locate(&zip).ok().flatten();
            assert!(dallas.is_some_and(|p| (p.lat - 32.788).abs() < 0.01));
        }
    }

    #[test]
    fn an_unknown_zip_is_none_not_an_error() {
        let zip = ZipCode::parse("00000").unwrap_or_else(|| panic!("a zip"));
        assert!(matches!(Geocoder::Embedded.locate(&zip), Ok(None)));
    }
}
