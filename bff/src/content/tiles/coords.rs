//! A tile's address, `z/x/y` in the Web Mercator grid, checked before anything is fetched: only
//! tiles that exist can reach the provider or take a place in the cache.

use std::fmt;

/// A valid tile: `z` up to the configured maximum, `x` and `y` below `2^z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileCoords {
    pub z: u8,
    pub x: u32,
    pub y: u32,
}

/// Why a path does not name a tile; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidTile {
    #[error("z must be a whole number from 0 to {max_zoom}")]
    Zoom { max_zoom: u8 },
    #[error("{field} must be a whole number from 0 to {max} at zoom {z}")]
    Coordinate {
        field: &'static str,
        z: u8,
        max: u32,
    },
}

impl InvalidTile {
    pub fn field(&self) -> &'static str {
        match self {
            Self::Zoom { .. } => "z",
            Self::Coordinate { field, .. } => field,
        }
    }
}

impl TileCoords {
    /// Parses the three path segments. Only plain decimal digits count (no sign, no spaces, no
    /// `0x`), so each tile has exactly one path and one cache key.
    pub fn parse(z: &str, x: &str, y: &str, max_zoom: u8) -> Result<Self, InvalidTile> {
        let z = digits(z)
            .filter(|z| *z <= u64::from(max_zoom))
            .and_then(|z| u8::try_from(z).ok())
            .ok_or(InvalidTile::Zoom { max_zoom })?;
        // 2^z tiles per axis; z ≤ 31 keeps this in u32 (the config caps max_zoom far below)
        let max = u32::try_from((1_u64 << z) - 1).unwrap_or(u32::MAX);
        let coordinate = |field: &'static str, text: &str| {
            digits(text)
                .filter(|value| *value <= u64::from(max))
                .and_then(|value| u32::try_from(value).ok())
                .ok_or(InvalidTile::Coordinate { field, z, max })
        };
        Ok(Self {
            z,
            x: coordinate("x", x)?,
            y: coordinate("y", y)?,
        })
    }
}

/// A decimal number of at most 10 digits without leading zeros ("0" itself is fine).
fn digits(text: &str) -> Option<u64> {
    let plain = !text.is_empty()
        && text.len() <= 10
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

impl fmt::Display for TileCoords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.z, self.x, self.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_inside_the_grid_parse() {
        assert_eq!(
            TileCoords::parse("0", "0", "0", 19),
            Ok(TileCoords { z: 0, x: 0, y: 0 })
        );
        let deep = TileCoords::parse("19", "524287", "1", 19);
        assert_eq!(deep.map(|t| t.to_string()), Ok("19/524287/1".to_owned()));
        assert_eq!(
            TileCoords::parse("4", "15", "15", 19),
            Ok(TileCoords { z: 4, x: 15, y: 15 })
        );
    }

    #[test]
    fn the_zoom_is_bounded_by_the_configured_maximum() {
        assert_eq!(
            TileCoords::parse("20", "0", "0", 19),
            Err(InvalidTile::Zoom { max_zoom: 19 })
        );
        assert_eq!(
            TileCoords::parse("12", "0", "0", 10).map_err(|e| e.to_string()),
            Err("z must be a whole number from 0 to 10".to_owned())
        );
    }

    #[test]
    fn coordinates_outside_the_grid_name_their_field() {
        let err = TileCoords::parse("2", "4", "0", 19).unwrap_err();
        assert_eq!(err.field(), "x");
        assert_eq!(
            err.to_string(),
            "x must be a whole number from 0 to 3 at zoom 2"
        );
        assert_eq!(
            TileCoords::parse("2", "0", "4", 19).unwrap_err().field(),
            "y"
        );
    }

    #[test]
    fn only_plain_decimal_numbers_are_coordinates() {
        for (z, x, y) in [
            ("-1", "0", "0"),
            ("1", "-0", "0"),
            ("1", "+1", "0"),
            ("1", " 1", "0"),
            ("1", "1.0", "0"),
            ("1", "0x1", "0"),
            ("1", "01", "0"),
            ("1", "", "0"),
            ("1", "1", "1.png"),
            ("99999999999999999999", "0", "0"),
            ("1", "1", "4294967296"),
        ] {
            assert!(TileCoords::parse(z, x, y, 19).is_err(), "{z}/{x}/{y}");
        }
    }
}
