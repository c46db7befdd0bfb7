//! Offline geography for the dealer locator: a ZIP code's centre from an embedded Census table,
//! great-circle distances, and the radius filter. Pure logic, no I/O.

pub mod distance;
pub mod geocoder;
pub mod zip_centroids;

use serde::Serialize;

pub use distance::{Nearby, miles_between, within_radius};
pub use geocoder::{GeocodeError, Geocoder};
pub use zip_centroids::{ZipCentroids, ZipCode};

/// A point in WGS 84 decimal degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LatLng {
    /// Latitude, -90 to 90.
    pub lat: f64,
    /// Longitude, -180 to 180.
    pub lng: f64,
}

impl LatLng {
    /// `None` unless both coordinates are finite and in range, so a bad content record can never
    /// produce a NaN distance.
    pub fn new(lat: f64, lng: f64) -> Option<Self> {
        let valid = lat.is_finite()
            && lng.is_finite()
            && (-90.0..=90.0).contains(&lat)
            && (-180.0..=180.0).contains(&lng);
        valid.then_some(Self { lat, lng })
    }

    /// Exactly (0, 0): the content service's "no location yet", which the spec says to ignore
    /// (no dealer sits in the Gulf of Guinea).
    pub fn is_null_island(&self) -> bool {
        self.lat == 0.0 && self.lng == 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_or_non_finite_coordinates_are_refused() {
        assert!(LatLng::new(30.0, -97.0).is_some());
        assert!(LatLng::new(90.0, 180.0).is_some());
        assert!(LatLng::new(90.1, 0.0).is_none());
        assert!(LatLng::new(0.0, -180.5).is_none());
        assert!(LatLng::new(f64::NAN, 0.0).is_none());
        assert!(LatLng::new(0.0, f64::INFINITY).is_none());
    }

    #[test]
    fn only_exactly_zero_zero_is_null_island() {
        assert!(LatLng::new(0.0, 0.0).is_some_and(|p| p.is_null_island()));
        assert!(LatLng::new(-0.0, 0.0).is_some_and(|p| p.is_null_island()));
        assert!(LatLng::new(0.0, 0.000_1).is_some_and(|p| !p.is_null_island()));
    }
}
