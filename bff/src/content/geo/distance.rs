//! Great-circle distance (haversine on a sphere) and the locator's radius filter.

use super::LatLng;

/// The IUGG mean Earth radius R₁ (6,371.0088 km). A sphere is off by at most about 0.5 %
/// against the ellipsoid, far less than a ZIP centroid's own error.
pub const EARTH_RADIUS_METERS: f64 = 6_371_008.8;

/// The spec's mile (section 9).
pub const METERS_PER_MILE: f64 = 1609.34;

/// Haversine distance in metres.
pub fn meters_between(from: LatLng, to: LatLng) -> f64 {
    let (from_lat, to_lat) = (from.lat.to_radians(), to.lat.to_radians());
    let half_dlat = (to_lat - from_lat) / 2.0;
    let half_dlng = (to.lng - from.lng).to_radians() / 2.0;
    let a = half_dlat.sin().powi(2) + from_lat.cos() * to_lat.cos() * half_dlng.sin().powi(2);
    // Rounding can push `a` a hair above 1 for antipodal points; `asin` would then be NaN.
    2.0 * EARTH_RADIUS_METERS * a.sqrt().min(1.0).asin()
}

/// Haversine distance in the spec's miles.
pub fn miles_between(from: LatLng, to: LatLng) -> f64 {
    meters_between(from, to) / METERS_PER_MILE
}

/// An item and how far it is from the search centre.
#[derive(Debug, Clone, PartialEq)]
pub struct Nearby<T> {
    pub item: T,
    pub distance_miles: f64,
}

/// The items within `radius_miles` of `centre` (the boundary included), nearest first; items
/// at the same distance keep their original order.
pub fn within_radius<T>(
    centre: LatLng,
    radius_miles: f64,
    items: impl IntoIterator<Item = T>,
    position: impl Fn(&T) -> LatLng,
) -> Vec<Nearby<T>> {
    let mut nearby: Vec<Nearby<T>> = items
        .into_iter()
        .map(|item| Nearby {
            distance_miles: miles_between(centre, position(&item)),
            item,
        })
        .filter(|candidate| candidate.distance_miles <= radius_miles)
        .collect();
    nearby.sort_by(|a, b| a.distance_miles.total_cmp(&b.distance_miles));
    nearby
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(lat: f64, lng: f64) -> LatLng {
        LatLng { lat, lng }
    }

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    #[test]
    fn a_point_is_zero_miles_from_itself() {
        let austin = at(30.2672, -97.7431);
        assert_eq!(miles_between(austin, austin), 0.0);
    }

    #[test]
    fn one_degree_of_latitude_is_about_69_miles() {
        // π · 6,371.0088 km / 180 = 111.195 km = 69.09 spec miles.
        assert_close(miles_between(at(0.0, 0.0), at(1.0, 0.0)), 69.09, 0.01);
    }

    #[test]
    fn known_city_distances() {
        // Downtown Austin to downtown Dallas: about 182 miles as the crow flies.
        assert_close(
            miles_between(at(30.2672, -97.7431), at(32.7767, -96.7970)),
            182.0,
            2.0,
        );
        // New York City Hall to Los Angeles City Hall: about 2,445 miles.
        assert_close(
            miles_between(at(40.7128, -74.0060), at(34.0522, -118.2437)),
            2445.0,
            5.0,
        );
    }

    #[test]
    fn distance_is_symmetric_and_crosses_the_antimeridian() {
        let (fiji, samoa) = (at(-17.7134, 178.0650), at(-13.7590, -172.1046));
        assert_eq!(miles_between(fiji, samoa), miles_between(samoa, fiji));
        // About 708 miles across the 180° meridian, not 24,000 the long way round.
        assert_close(miles_between(fiji, samoa), 708.0, 5.0);
    }

    #[test]
    fn antipodes_are_half_the_circumference_and_never_nan() {
        let half = std::f64::consts::PI * EARTH_RADIUS_METERS / METERS_PER_MILE;
        assert_close(miles_between(at(0.0, 0.0), at(0.0, 180.0)), half, 1e-6);
        assert_close(miles_between(at(90.0, 0.0), at(-90.0, 0.0)), half, 1e-6);
    }

    #[test]
    fn the_radius_filter_keeps_the_boundary_and_sorts_nearest_first() {
        let centre = at(0.0, 0.0);
        let one_degree = miles_between(centre, at(1.0, 0.0));
        let items = vec![
            ("two degrees", at(2.0, 0.0)),
            ("one degree", at(1.0, 0.0)),
            ("here", at(0.0, 0.0)),
            ("one degree, again", at(1.0, 0.0)),
            ("far", at(10.0, 10.0)),
        ];
        let kept = within_radius(centre, one_degree, items, |item| item.1);
        let names: Vec<&str> = kept.iter().map(|nearby| nearby.item.0).collect();
        // The two at one degree are equally far and keep their order.
        assert_eq!(names, ["here", "one degree", "one degree, again"]);
        assert_eq!(kept[0].distance_miles, 0.0);
        assert_close(kept[1].distance_miles, one_degree, 1e-9);
    }

    #[test]
    fn nothing_within_a_radius_is_an_empty_list() {
        let kept = within_radius(at(0.0, 0.0), 50.0, [at(45.0, 45.0)], |point| *point);
        assert!(kept.is_empty());
    }
}
